// Every number chapter 3 prints, recomputed through the core's public API in the chapter's order.
// Each printed tensor is checked twice: value by value at the printed precision, and as PyTorch's text.
#include <catch2/catch.hpp>

#include <cmath>
#include <cctype>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"
#include "support.hpp"

using namespace attn;

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

Tensor book_inputs() {
    return tensor({{0.43, 0.15, 0.89},    // Your
                   {0.55, 0.87, 0.66},    // journey
                   {0.57, 0.85, 0.64},    // starts
                   {0.22, 0.58, 0.33},    // with
                   {0.77, 0.25, 0.10},    // one
                   {0.05, 0.80, 0.55}});  // step
}

// The chapter's batch: the six embeddings twice.
Tensor book_batch() { return stack({book_inputs(), book_inputs()}, 0); }

}  // namespace

TEST_CASE("3.3.1 dot product of two vectors", "[chapter]") {
    const Tensor x1 = tensor({0.4, 0.1, 0.8}), x2 = tensor({0.5, 0.8, 0.6});
    check_book(dot(x1, x2), "tensor(0.7600)");
}

TEST_CASE("3.3.1 attention of the second token, step by step", "[chapter]") {
    const Tensor inputs = book_inputs();
    CHECK(inputs.shape() == Shape{6, 3});
    const Tensor query = inputs[1];

    // scores: one dot product per input, written into an empty tensor
    Tensor attn_scores_2 = empty({inputs.size(0)});
    for (int64_t i = 0; i < inputs.size(0); ++i) attn_scores_2.set({i}, dot(inputs[i], query));
    check_book(attn_scores_2, "tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])");

    // the same scores as torch.stack of the 0-d dot products, and as one matmul: the same bits
    std::vector<Tensor> scores;
    for (int64_t i = 0; i < inputs.size(0); ++i) scores.push_back(dot(inputs[i], query));
    CHECK(test::tensor_bits(stack(scores)) == test::tensor_bits(attn_scores_2));
    CHECK(test::tensor_bits(matmul(inputs, query)) == test::tensor_bits(attn_scores_2));

    // normalised by the sum: its sum is not exactly 1 (3f800001)
    const Tensor tmp = attn_scores_2 / sum(attn_scores_2);
    check_book(tmp, "tensor([0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])");
    check_book(sum(tmp), "tensor(1.0000)");

    // naive softmax: exactly 1
    const Tensor naive = exp(attn_scores_2) / sum(exp(attn_scores_2), 0);
    check_book(naive, "tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])");
    check_book(sum(naive), "tensor(1.)");

    const Tensor attn_weights_2 = softmax(attn_scores_2, 0);
    check_book(attn_weights_2, "tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])");
    check_book(sum(attn_weights_2), "tensor(1.)");

    // the context vector, accumulated in place
    Tensor context_vec_2 = zeros(query.shape());
    for (int64_t i = 0; i < inputs.size(0); ++i) context_vec_2 += attn_weights_2[i] * inputs[i];
    check_book(context_vec_2, "tensor([0.4419, 0.6515, 0.5683])");
}

TEST_CASE("3.3.2 attention weights for all tokens", "[chapter]") {
    const Tensor inputs = book_inputs();
    const char* scores_text =
        "tensor([[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],\n"
        "        [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],\n"
        "        [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],\n"
        "        [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],\n"
        "        [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],\n"
        "        [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]])";

    // the double loop, printing each pair of rows as it goes
    Tensor loop_scores = empty({6, 6});
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 6; ++j) loop_scores.set({i, j}, dot(inputs[i], inputs[j]));
    check_book(inputs[0], "tensor([0.4300, 0.1500, 0.8900])");
    check_book(inputs[5], "tensor([0.0500, 0.8000, 0.5500])");
    check_book(loop_scores, scores_text);

    const Tensor attn_scores = matmul(inputs, inputs.T());
    check_book(attn_scores, scores_text);

    const Tensor attn_weights = softmax(attn_scores, 1);
    check_book(attn_weights,
               "tensor([[0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452],\n"
               "        [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],\n"
               "        [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565],\n"
               "        [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],\n"
               "        [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295],\n"
               "        [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896]])");
    check_book(sum(attn_weights, 1), "tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])");

    const Tensor all_context_vecs = matmul(attn_weights, inputs);
    check_book(all_context_vecs,
               "tensor([[0.4421, 0.5931, 0.5790],\n"
               "        [0.4419, 0.6515, 0.5683],\n"
               "        [0.4431, 0.6496, 0.5671],\n"
               "        [0.4304, 0.6298, 0.5510],\n"
               "        [0.4671, 0.5910, 0.5266],\n"
               "        [0.4177, 0.6503, 0.5645]])");
}

TEST_CASE("3.4.1 trainable weights, step by step (seed 123)", "[chapter]") {
    const Tensor inputs = book_inputs();
    const Tensor x_2 = inputs[1];
    check_book(x_2, "tensor([0.5500, 0.8700, 0.6600])");
    const int64_t d_in = inputs.size(1), d_out = 2;
    CHECK(d_in == 3);

    manual_seed(123);
    Tensor W_query = rand({d_in, d_out}).set_parameter(true, false);
    Tensor W_key = rand({d_in, d_out}).set_parameter(true, false);
    Tensor W_value = rand({d_in, d_out}).set_parameter(true, false);
    CHECK(W_query.shape() == Shape{3, 2});
    check_book(W_query,
               "Parameter containing:\n"
               "tensor([[0.2961, 0.5166],\n"
               "        [0.2517, 0.6886],\n"
               "        [0.0740, 0.8665]])");

    const Tensor query_2 = matmul(x_2, W_query);
    check_book(query_2, "tensor([0.4306, 1.4551])");

    const Tensor keys = matmul(inputs, W_key);
    const Tensor values = matmul(inputs, W_value);
    CHECK(keys.shape() == Shape{6, 2});
    CHECK(values.shape() == Shape{6, 2});

    check_book(dot(query_2, keys[1]), "tensor(1.8524)");
    const Tensor attn_scores_2 = matmul(query_2, keys.T());
    check_book(attn_scores_2, "tensor([1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440])");

    const int64_t d_k = keys.size(-1);
    CHECK(d_k == 2);
    const Tensor attn_weights_2 = softmax(attn_scores_2 / std::pow(static_cast<double>(d_k), 0.5), -1);
    check_book(attn_weights_2, "tensor([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])");

    check_book(matmul(attn_weights_2, values), "tensor([0.3061, 0.8210])");
    check_book(values,
               "tensor([[0.1855, 0.8812],\n"
               "        [0.3951, 1.0037],\n"
               "        [0.3879, 0.9831],\n"
               "        [0.2393, 0.5493],\n"
               "        [0.1492, 0.3346],\n"
               "        [0.3221, 0.7863]])");
}

TEST_CASE("3.4.2 SelfAttention_v1 (seed 123)", "[chapter]") {
    manual_seed(123);
    nn::SelfAttention_v1 sa_v1(3, 2);
    check_book(sa_v1.W_query,
               "Parameter containing:\n"
               "tensor([[0.2961, 0.5166],\n"
               "        [0.2517, 0.6886],\n"
               "        [0.0740, 0.8665]], requires_grad=True)");
    check_book(sa_v1(book_inputs()),
               "tensor([[0.2996, 0.8053],\n"
               "        [0.3061, 0.8210],\n"
               "        [0.3058, 0.8203],\n"
               "        [0.2948, 0.7939],\n"
               "        [0.2927, 0.7891],\n"
               "        [0.2990, 0.8040]], grad_fn=<MmBackward0>)");
    CHECK(default_generator().draws() == 18);
}

TEST_CASE("3.4.2 SelfAttention_v2 (seed 789)", "[chapter]") {
    manual_seed(789);
    nn::SelfAttention_v2 sa_v2(3, 2);
    CHECK(sa_v2.W_query.weight.shape() == Shape{2, 3});
    check_book(sa_v2.W_query.weight,
               "Parameter containing:\n"
               "tensor([[ 0.3161,  0.4568,  0.5118],\n"
               "        [-0.1683, -0.3379, -0.0918]], requires_grad=True)");
    CHECK_FALSE(sa_v2.W_query.bias.has_value());
    check_book(sa_v2(book_inputs()),
               "tensor([[-0.0739,  0.0713],\n"
               "        [-0.0748,  0.0703],\n"
               "        [-0.0749,  0.0702],\n"
               "        [-0.0760,  0.0685],\n"
               "        [-0.0763,  0.0679],\n"
               "        [-0.0754,  0.0693]], grad_fn=<MmBackward0>)");
}

TEST_CASE("Exercise 3.1: v2's weights moved into v1 give the same output", "[chapter]") {
    // The printed run came after sa_v1 (18 draws) and one earlier run of the same cell (42 draws).
    manual_seed(123);
    nn::SelfAttention_v1 sa_v1(3, 2);
    { nn::SelfAttention_v2 earlier_v2(3, 2, true); nn::SelfAttention_v1 earlier_v1(3, 2); }
    CHECK(default_generator().draws() == 60);

    nn::SelfAttention_v2 attention_v2(3, 2, true);
    nn::SelfAttention_v1 attention_v1(3, 2);
    check_book(attention_v2.W_query.weight,
               "Parameter containing:\n"
               "tensor([[ 0.0911,  0.4770, -0.5456],\n"
               "        [-0.3887, -0.2299,  0.0232]], requires_grad=True)");
    check_book(*attention_v2.W_query.bias,
               "Parameter containing:\ntensor([-0.1347, -0.0634], requires_grad=True)");
    check_book(attention_v1.W_query,
               "Parameter containing:\n"
               "tensor([[0.2251, 0.3111],\n"
               "        [0.1955, 0.9153],\n"
               "        [0.7751, 0.6749]], requires_grad=True)");

    // nn.Linear keeps its weight transposed; the biases are zeroed to compare like with like.
    attention_v1.W_query.copy_(attention_v2.W_query.weight.T());
    attention_v1.W_key.copy_(attention_v2.W_key.weight.T());
    attention_v1.W_value.copy_(attention_v2.W_value.weight.T());
    attention_v2.W_query.bias->zero_();
    attention_v2.W_key.bias->zero_();
    attention_v2.W_value.bias->zero_();

    const char* expected =
        "tensor([[-0.2406,  0.3448],\n"
        "        [-0.2571,  0.3424],\n"
        "        [-0.2573,  0.3424],\n"
        "        [-0.2530,  0.3425],\n"
        "        [-0.2568,  0.3423],\n"
        "        [-0.2518,  0.3426]], grad_fn=<MmBackward0>)";
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
    check_book(attn_weights,
               "tensor([[0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510],\n"
               "        [0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477],\n"
               "        [0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480],\n"
               "        [0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564],\n"
               "        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.1585],\n"
               "        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],\n"
               "       grad_fn=<SoftmaxBackward0>)");

    const int64_t context_length = attn_scores.size(0);
    const Tensor mask_simple = tril(ones({context_length, context_length}));
    check_book(mask_simple,
               "tensor([[1., 0., 0., 0., 0., 0.],\n"
               "        [1., 1., 0., 0., 0., 0.],\n"
               "        [1., 1., 1., 0., 0., 0.],\n"
               "        [1., 1., 1., 1., 0., 0.],\n"
               "        [1., 1., 1., 1., 1., 0.],\n"
               "        [1., 1., 1., 1., 1., 1.]])");

    const Tensor masked_simple = attn_weights * mask_simple;
    check_book(masked_simple,
               "tensor([[0.1921, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
               "        [0.2041, 0.1659, 0.0000, 0.0000, 0.0000, 0.0000],\n"
               "        [0.2036, 0.1659, 0.1662, 0.0000, 0.0000, 0.0000],\n"
               "        [0.1869, 0.1667, 0.1668, 0.1571, 0.0000, 0.0000],\n"
               "        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.0000],\n"
               "        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],\n"
               "       grad_fn=<MulBackward0>)");

    const Tensor masked_simple_norm = masked_simple / sum(masked_simple, -1, true);
    const char* renormalised =
        "tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
        "        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],\n"
        "        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],\n"
        "        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],\n"
        "        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],\n"
        "        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],\n";
    check_book(masked_simple_norm, std::string(renormalised) + "       grad_fn=<DivBackward0>)");

    const Tensor mask = triu(ones({context_length, context_length}), 1);
    const Tensor masked = masked_fill(attn_scores, mask.to_bool(), -INFINITY);
    check_book(masked,
               "tensor([[0.2899,   -inf,   -inf,   -inf,   -inf,   -inf],\n"
               "        [0.4656, 0.1723,   -inf,   -inf,   -inf,   -inf],\n"
               "        [0.4594, 0.1703, 0.1731,   -inf,   -inf,   -inf],\n"
               "        [0.2642, 0.1024, 0.1036, 0.0186,   -inf,   -inf],\n"
               "        [0.2183, 0.0874, 0.0882, 0.0177, 0.0786,   -inf],\n"
               "        [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]],\n"
               "       grad_fn=<MaskedFillBackward0>)");

    const Tensor causal_weights = softmax(masked / scale, 1);
    check_book(causal_weights, std::string(renormalised) + "       grad_fn=<SoftmaxBackward0>)");
    CHECK(allclose(causal_weights, masked_simple_norm, 1e-5, 1e-6));

    // 3.5.2: the same seed gives the same mask on ones and on the causal weights
    manual_seed(123);
    nn::Dropout dropout(0.5);
    check_book(dropout(ones({6, 6})),
               "tensor([[2., 2., 0., 2., 2., 0.],\n"
               "        [0., 0., 0., 2., 0., 2.],\n"
               "        [2., 2., 2., 2., 0., 2.],\n"
               "        [0., 2., 2., 0., 0., 2.],\n"
               "        [0., 2., 0., 2., 0., 2.],\n"
               "        [0., 2., 2., 2., 2., 0.]])");
    manual_seed(123);
    check_book(dropout(causal_weights),
               "tensor([[2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
               "        [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
               "        [0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000],\n"
               "        [0.0000, 0.4921, 0.4925, 0.0000, 0.0000, 0.0000],\n"
               "        [0.0000, 0.3966, 0.0000, 0.3775, 0.0000, 0.0000],\n"
               "        [0.0000, 0.3327, 0.3331, 0.3084, 0.3331, 0.0000]],\n"
               "       grad_fn=<MulBackward0>)");
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
    check_book(out,
               "tensor([[[-0.4519,  0.2216,  0.4772,  0.1063],\n"
               "         [-0.5874,  0.0058,  0.5891,  0.3257],\n"
               "         [-0.6300, -0.0632,  0.6202,  0.3860],\n"
               "         [-0.5675, -0.0843,  0.5478,  0.3589],\n"
               "         [-0.5526, -0.0981,  0.5321,  0.3428],\n"
               "         [-0.5299, -0.1081,  0.5077,  0.3493]],\n"
               "\n"
               "        [[-0.4519,  0.2216,  0.4772,  0.1063],\n"
               "         [-0.5874,  0.0058,  0.5891,  0.3257],\n"
               "         [-0.6300, -0.0632,  0.6202,  0.3860],\n"
               "         [-0.5675, -0.0843,  0.5478,  0.3589],\n"
               "         [-0.5526, -0.0981,  0.5321,  0.3428],\n"
               "         [-0.5299, -0.1081,  0.5077,  0.3493]]], grad_fn=<CatBackward0>)");

    manual_seed(123);
    nn::MultiHeadAttentionWrapper narrow(3, 1, batch.size(1), 0.0, 2);
    const Tensor out1 = narrow(batch);
    CHECK(out1.shape() == Shape{2, 6, 2});
    check_book(out1,
               "tensor([[[-0.5740,  0.2216],\n"
               "         [-0.7320,  0.0155],\n"
               "         [-0.7774, -0.0546],\n"
               "         [-0.6979, -0.0817],\n"
               "         [-0.6538, -0.0957],\n"
               "         [-0.6424, -0.1065]],\n"
               "\n"
               "        [[-0.5740,  0.2216],\n"
               "         [-0.7320,  0.0155],\n"
               "         [-0.7774, -0.0546],\n"
               "         [-0.6979, -0.0817],\n"
               "         [-0.6538, -0.0957],\n"
               "         [-0.6424, -0.1065]]], grad_fn=<CatBackward0>)");
}

TEST_CASE("3.6.2 batched matmul over heads equals one matmul per head", "[chapter]") {
    const Tensor a = tensor({{{{0.2745, 0.6584, 0.2775, 0.8573},
                               {0.8993, 0.0390, 0.9268, 0.7388},
                               {0.7179, 0.7058, 0.9156, 0.4340}},
                              {{0.0772, 0.3565, 0.1479, 0.5331},
                               {0.4066, 0.2318, 0.4545, 0.9737},
                               {0.4606, 0.5159, 0.4220, 0.5786}}}});
    check_book(matmul(a, a.transpose(2, 3)),
               "tensor([[[[1.3208, 1.1631, 1.2879],\n"
               "          [1.1631, 2.2150, 1.8424],\n"
               "          [1.2879, 1.8424, 2.0402]],\n"
               "\n"
               "         [[0.4391, 0.7003, 0.5903],\n"
               "          [0.7003, 1.3737, 1.0620],\n"
               "          [0.5903, 1.0620, 0.9912]]]])");
    const Tensor first_head = a[0][0];
    check_book(matmul(first_head, first_head.T()),
               "tensor([[1.3208, 1.1631, 1.2879],\n"
               "        [1.1631, 2.2150, 1.8424],\n"
               "        [1.2879, 1.8424, 2.0402]])");
    const Tensor second_head = a[0][1];
    check_book(matmul(second_head, second_head.T()),
               "tensor([[0.4391, 0.7003, 0.5903],\n"
               "        [0.7003, 1.3737, 1.0620],\n"
               "        [0.5903, 1.0620, 0.9912]])");
}

TEST_CASE("3.6.2 MultiHeadAttention with weight splits (seed 123)", "[chapter]") {
    const Tensor batch = book_batch();
    manual_seed(123);
    nn::MultiHeadAttention mha(3, 2, batch.size(1), 0.0, 2);
    const Tensor out = mha(batch);
    CHECK(out.shape() == Shape{2, 6, 2});
    check_book(out,
               "tensor([[[0.3190, 0.4858],\n"
               "         [0.2943, 0.3897],\n"
               "         [0.2856, 0.3593],\n"
               "         [0.2693, 0.3873],\n"
               "         [0.2639, 0.3928],\n"
               "         [0.2575, 0.4028]],\n"
               "\n"
               "        [[0.3190, 0.4858],\n"
               "         [0.2943, 0.3897],\n"
               "         [0.2856, 0.3593],\n"
               "         [0.2693, 0.3873],\n"
               "         [0.2639, 0.3928],\n"
               "         [0.2575, 0.4028]]], grad_fn=<ViewBackward0>)");
}
