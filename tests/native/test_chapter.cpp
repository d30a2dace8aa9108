// Every number chapter 3 prints (book/chapter3.json), recomputed through the core's public API in the
// chapter's order. Each printed tensor is checked twice: value by value at the printed precision, and as
// PyTorch's text.
#include <catch2/catch.hpp>

#include <cmath>
#include <cctype>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"
#include "book.hpp"
#include "support.hpp"

using namespace attn;
using test::book_inputs;

namespace {

// The numbers in a printed tensor, with the number of decimals each was printed with.
struct Printed {
    std::vector<double> values;
    std::vector<int> decimals;
};

Printed parse_printed(std::string text) {
    // Suffixes such as grad_fn=<MmBackward0> carry digits that are not values.
    const auto suffix = text.find("grad_fn");
    if (suffix != std::string::npos) text = text.substr(0, suffix);
    Printed p;
    for (size_t i = 0; i < text.size();) {
        const bool negative = text[i] == '-';
        const size_t start = negative ? i + 1 : i;
        if (text.compare(start, 3, "inf") == 0 || text.compare(start, 3, "nan") == 0) {
            p.values.push_back(text[start] == 'n' ? NAN : negative ? -INFINITY : INFINITY);
            p.decimals.push_back(0);
            i = start + 3;
        } else if (start < text.size() && std::isdigit(static_cast<unsigned char>(text[start]))) {
            size_t end = start, dot = std::string::npos;
            while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
                if (text[end] == '.') dot = end;
                ++end;
            }
            p.values.push_back(std::stod(text.substr(i, end - i)));
            p.decimals.push_back(dot == std::string::npos ? 0 : static_cast<int>(end - dot - 1));
            i = end;
        } else {
            ++i;
        }
    }
    return p;
}

// Checks a tensor against the chapter's printout: values at printed precision, then the exact text.
void check_book(const Tensor& t, const std::string& book) {
    INFO("book:\n" << book);
    const Printed p = parse_printed(book);
    const std::vector<float> v = t.to_vector();
    REQUIRE(v.size() == p.values.size());
    for (size_t i = 0; i < v.size(); ++i) {
        INFO("element " << i);
        if (std::isnan(p.values[i])) {
            CHECK(std::isnan(v[i]));
            continue;
        }
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", p.decimals[i], static_cast<double>(v[i]));
        CHECK(std::stod(buf) == p.values[i]);
    }
    CHECK(to_string(t) == book);
}

// The chapter's batch: the six embeddings twice.
Tensor book_batch() { return stack({book_inputs(), book_inputs()}, 0); }

}  // namespace

TEST_CASE("3.3.1 dot product of two vectors", "[chapter]") {
    const Tensor x1 = tensor({0.4, 0.1, 0.8}), x2 = tensor({0.5, 0.8, 0.6});
    check_book(dot(x1, x2), test::book_print("dot_x1_x2"));
}

TEST_CASE("3.3.1 attention of the second token, step by step", "[chapter]") {
    const Tensor inputs = book_inputs();
    CHECK(inputs.shape() == Shape{6, 3});
    const Tensor query = inputs[1];

    // scores: one dot product per input, written into an empty tensor
    Tensor attn_scores_2 = empty({inputs.size(0)});
    for (int64_t i = 0; i < inputs.size(0); ++i) attn_scores_2.set({i}, dot(inputs[i], query));
    check_book(attn_scores_2, test::book_print("attn_scores_2"));

    // the same scores as torch.stack of the 0-d dot products, and as one matmul: the same bits
    std::vector<Tensor> scores;
    for (int64_t i = 0; i < inputs.size(0); ++i) scores.push_back(dot(inputs[i], query));
    CHECK(test::tensor_bits(stack(scores)) == test::tensor_bits(attn_scores_2));
    CHECK(test::tensor_bits(matmul(inputs, query)) == test::tensor_bits(attn_scores_2));

    // normalised by the sum: its sum is not exactly 1 (3f800001)
    const Tensor tmp = attn_scores_2 / sum(attn_scores_2);
    check_book(tmp, test::book_print("attn_weights_2_tmp"));
    check_book(sum(tmp), test::book_print("attn_weights_2_tmp_sum"));

    // naive softmax: exactly 1
    const Tensor naive = exp(attn_scores_2) / sum(exp(attn_scores_2), 0);
    check_book(naive, test::book_print("attn_weights_2_naive"));
    check_book(sum(naive), test::book_print("attn_weights_2_naive_sum"));

    const Tensor attn_weights_2 = softmax(attn_scores_2, 0);
    check_book(attn_weights_2, test::book_print("attn_weights_2_naive"));
    check_book(sum(attn_weights_2), test::book_print("attn_weights_2_naive_sum"));

    // the context vector, accumulated in place
    Tensor context_vec_2 = zeros(query.shape());
    for (int64_t i = 0; i < inputs.size(0); ++i) context_vec_2 += attn_weights_2[i] * inputs[i];
    check_book(context_vec_2, test::book_print("context_vec_2"));
}

TEST_CASE("3.3.2 attention weights for all tokens", "[chapter]") {
    const Tensor inputs = book_inputs();
    const std::string scores_text = test::book_print("attn_scores");

    // the double loop, printing each pair of rows as it goes
    Tensor loop_scores = empty({6, 6});
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 6; ++j) loop_scores.set({i, j}, dot(inputs[i], inputs[j]));
    check_book(inputs[0], test::book_print("inputs[0]"));
    check_book(inputs[5], test::book_print("inputs[5]"));
    check_book(loop_scores, scores_text);

    const Tensor attn_scores = matmul(inputs, inputs.T());
    check_book(attn_scores, scores_text);

    const Tensor attn_weights = softmax(attn_scores, 1);
    check_book(attn_weights, test::book_print("attn_weights"));
    check_book(sum(attn_weights, 1), test::book_print("attn_weights_row_sums"));

    const Tensor all_context_vecs = matmul(attn_weights, inputs);
    check_book(all_context_vecs, test::book_print("all_context_vecs"));
}

TEST_CASE("3.4.1 trainable weights, step by step (seed 123)", "[chapter]") {
    const Tensor inputs = book_inputs();
    const Tensor x_2 = inputs[1];
    check_book(x_2, test::book_print("x_2"));
    const int64_t d_in = inputs.size(1), d_out = 2;
    CHECK(d_in == 3);

    manual_seed(123);
    Tensor W_query = rand({d_in, d_out}).set_parameter(true, false);
    Tensor W_key = rand({d_in, d_out}).set_parameter(true, false);
    Tensor W_value = rand({d_in, d_out}).set_parameter(true, false);
    CHECK(W_query.shape() == Shape{3, 2});
    check_book(W_query, test::book_print("W_query"));

    const Tensor query_2 = matmul(x_2, W_query);
    check_book(query_2, test::book_print("query_2"));

    const Tensor keys = matmul(inputs, W_key);
    const Tensor values = matmul(inputs, W_value);
    CHECK(keys.shape() == Shape{6, 2});
    CHECK(values.shape() == Shape{6, 2});

    check_book(dot(query_2, keys[1]), test::book_print("attn_score_22"));
    const Tensor attn_scores_2 = matmul(query_2, keys.T());
    check_book(attn_scores_2, test::book_print("attn_scores_2_qk"));

    const int64_t d_k = keys.size(-1);
    CHECK(d_k == 2);
    const Tensor attn_weights_2 = softmax(attn_scores_2 / std::pow(static_cast<double>(d_k), 0.5), -1);
    check_book(attn_weights_2, test::book_print("attn_weights_2_qk"));

    check_book(matmul(attn_weights_2, values), test::book_print("context_vec_2_qk"));
    check_book(values, test::book_print("values"));
}

TEST_CASE("3.4.2 SelfAttention_v1 (seed 123)", "[chapter]") {
    manual_seed(123);
    nn::SelfAttention_v1 sa_v1(3, 2);
    check_book(sa_v1.W_query, test::book_print("sa_v1_W_query"));
    check_book(sa_v1(book_inputs()), test::book_print("sa_v1_out"));
    CHECK(default_generator().draws() == 18);
}

TEST_CASE("3.4.2 SelfAttention_v2 (seed 789)", "[chapter]") {
    manual_seed(789);
    nn::SelfAttention_v2 sa_v2(3, 2);
    CHECK(sa_v2.W_query.weight.shape() == Shape{2, 3});
    check_book(sa_v2.W_query.weight, test::book_print("sa_v2_W_query"));
    CHECK_FALSE(sa_v2.W_query.bias.has_value());
    check_book(sa_v2(book_inputs()), test::book_print("sa_v2_out"));
}

TEST_CASE("Exercise 3.1: v2's weights moved into v1 give the same output", "[chapter]") {
    // The printed run came after sa_v1 (18 draws) and one earlier run of the same cell (42 draws).
    manual_seed(123);
    nn::SelfAttention_v1 sa_v1(3, 2);
    { nn::SelfAttention_v2 earlier_v2(3, 2, true); nn::SelfAttention_v1 earlier_v1(3, 2); }
    CHECK(default_generator().draws() == 60);

    nn::SelfAttention_v2 attention_v2(3, 2, true);
    nn::SelfAttention_v1 attention_v1(3, 2);
    check_book(attention_v2.W_query.weight, test::book_print("ex31_v2_W_query"));
    check_book(*attention_v2.W_query.bias, test::book_print("ex31_v2_bias"));
    check_book(attention_v1.W_query, test::book_print("ex31_v1_W_query"));

    // nn.Linear keeps its weight transposed; the biases are zeroed to compare like with like.
    attention_v1.W_query.copy_(attention_v2.W_query.weight.T());
    attention_v1.W_key.copy_(attention_v2.W_key.weight.T());
    attention_v1.W_value.copy_(attention_v2.W_value.weight.T());
    attention_v2.W_query.bias->zero_();
    attention_v2.W_key.bias->zero_();
    attention_v2.W_value.bias->zero_();

    const std::string expected = test::book_print("ex31_out_v2");
    const Tensor out_v2 = attention_v2(book_inputs()), out_v1 = attention_v1(book_inputs());
    check_book(out_v2, expected);
    check_book(out_v1, expected);
    CHECK(allclose(out_v2, out_v1, 1e-5, 1e-6));
}

TEST_CASE("3.5.1 causal mask, both ways, and 3.5.2 dropout", "[chapter]") {
    const Tensor inputs = book_inputs();
    manual_seed(789);
    nn::SelfAttention_v2 sa_v2(3, 2);

    const Tensor queries = sa_v2.W_query(inputs);
    const Tensor keys = sa_v2.W_key(inputs);
    const Tensor attn_scores = matmul(queries, keys.T());
    const double scale = std::pow(static_cast<double>(keys.size(-1)), 0.5);
    const Tensor attn_weights = softmax(attn_scores / scale, -1);
    check_book(attn_weights, test::book_print("causal_weights"));

    const int64_t context_length = attn_scores.size(0);
    const Tensor mask_simple = tril(ones({context_length, context_length}));
    check_book(mask_simple, test::book_print("mask_simple"));

    const Tensor masked_simple = attn_weights * mask_simple;
    check_book(masked_simple, test::book_print("masked_simple"));

    const Tensor masked_simple_norm = masked_simple / sum(masked_simple, -1, true);
    check_book(masked_simple_norm, test::book_print("masked_simple_norm"));

    const Tensor mask = triu(ones({context_length, context_length}), 1);
    const Tensor masked = masked_fill(attn_scores, mask.to_bool(), -INFINITY);
    check_book(masked, test::book_print("masked_scores"));

    const Tensor causal_weights = softmax(masked / scale, 1);
    check_book(causal_weights, test::book_print("causal_attn_weights"));
    CHECK(allclose(causal_weights, masked_simple_norm, 1e-5, 1e-6));

    // 3.5.2: the same seed gives the same mask on ones and on the causal weights
    manual_seed(123);
    nn::Dropout dropout(0.5);
    check_book(dropout(ones({6, 6})), test::book_print("dropout_ones"));
    manual_seed(123);
    check_book(dropout(causal_weights), test::book_print("dropout_weights"));
}

TEST_CASE("3.5.3 CausalAttention on the batch (seed 123)", "[chapter]") {
    const Tensor batch = book_batch();
    CHECK(batch.shape() == Shape{2, 6, 3});
    manual_seed(123);
    nn::CausalAttention ca(3, 2, 6, 0.0);
    const Tensor context_vecs = ca(batch);
    CHECK(context_vecs.shape() == Shape{2, 6, 2});
    // Its numbers are not printed in the chapter, but its first head is the wrapper's first head.
    manual_seed(123);
    nn::MultiHeadAttentionWrapper mha(3, 2, 6, 0.0, 2);
    CHECK(test::tensor_bits(context_vecs) == test::tensor_bits(mha(batch).slice(-1, 0, 2)));
}

TEST_CASE("3.6.1 MultiHeadAttentionWrapper with d_out 2 and (Exercise 3.2) d_out 1", "[chapter]") {
    const Tensor batch = book_batch();
    manual_seed(123);
    nn::MultiHeadAttentionWrapper mha(3, 2, batch.size(1), 0.0, 2);
    const Tensor out = mha(batch);
    CHECK(out.shape() == Shape{2, 6, 4});
    check_book(out, test::book_print("wrapper_out"));

    manual_seed(123);
    nn::MultiHeadAttentionWrapper narrow(3, 1, batch.size(1), 0.0, 2);
    const Tensor out1 = narrow(batch);
    CHECK(out1.shape() == Shape{2, 6, 2});
    check_book(out1, test::book_print("wrapper_out_d1"));
}

TEST_CASE("3.6.2 batched matmul over heads equals one matmul per head", "[chapter]") {
    const Tensor a = test::book_tensor(test::book()["bmm_input"]);
    check_book(matmul(a, a.transpose(2, 3)), test::book_print("bmm_out"));
    const Tensor first_head = a[0][0];
    check_book(matmul(first_head, first_head.T()), test::book_print("bmm_first_head"));
    const Tensor second_head = a[0][1];
    check_book(matmul(second_head, second_head.T()), test::book_print("bmm_second_head"));
}

TEST_CASE("3.6.2 MultiHeadAttention with weight splits (seed 123)", "[chapter]") {
    const Tensor batch = book_batch();
    manual_seed(123);
    nn::MultiHeadAttention mha(3, 2, batch.size(1), 0.0, 2);
    const Tensor out = mha(batch);
    CHECK(out.shape() == Shape{2, 6, 2});
    check_book(out, test::book_print("mha_out"));
}
