// The fast path: the packed GEMM (bit for bit the reference, hence PyTorch's order), the fast exp and the
// tiled causal attention (every table bit for bit their references), and the attention modules' fast path
// against their exact path at the same sizes, within a tolerance that grows with the size. Then GPT-2
// size against PyTorch (tests/golden/gpt2_mha.json): the exact path bit for bit, the fast path within
// tolerance; those two run only outside the sanitizer build (ATTN_FAST_GPT2 = 0 there).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/parallel.hpp"
#include "kernels/kernels.hpp"
#include "support.hpp"

#ifndef ATTN_FAST_GPT2
#define ATTN_FAST_GPT2 1
#endif

using attn::Tensor;
using attn::kernels::Table;
using attn::nn::AttentionPath;
using attn::bits_of;
using test::difference;
using test::normal;
using test::simd_tables;

namespace {

constexpr double kEps = std::numeric_limits<float>::epsilon();

// ---- gemm

// C = A·B (+ bias) with one table; B is [K, N] row-major, or its transpose [N, K] read through strides.
std::vector<float> run_gemm(const Table& t, const std::vector<float>& A, int64_t lda, const std::vector<float>& B,
                            bool transposed, const std::vector<float>* bias, int64_t ldc, int64_t M, int64_t N,
                            int64_t K) {
    std::vector<float> C(static_cast<size_t>(M * ldc + 1), -12345.0f);
    const int64_t rsb = transposed ? 1 : N, csb = transposed ? K : 1;
    t.gemm(A.data(), lda, B.data(), rsb, csb, bias ? bias->data() : nullptr, C.data(), ldc, M, N, K);
    return C;
}

void check_gemm(std::mt19937& rng, int64_t M, int64_t N, int64_t K, bool transposed, bool with_bias,
                int64_t pad_a = 0, int64_t pad_c = 0) {
    const int64_t lda = K + pad_a, ldc = N + pad_c;
    const auto A = normal(rng, static_cast<size_t>(M * lda + 1));
    const auto B = normal(rng, static_cast<size_t>(K * N + 1));
    const auto bias = normal(rng, static_cast<size_t>(N));
    const auto* b = with_bias ? &bias : nullptr;
    const auto expected = run_gemm(attn::kernels::reference(), A, lda, B, transposed, b, ldc, M, N, K);
    for (const Table* t : simd_tables()) {
        INFO("table " << t->name << ", M=" << M << " N=" << N << " K=" << K << (transposed ? " B transposed" : "")
                      << (with_bias ? " with bias" : "") << " lda=" << lda << " ldc=" << ldc);
        CHECK(difference(expected, run_gemm(*t, A, lda, B, transposed, b, ldc, M, N, K)) == "");
    }
}

// ---- attention

struct Head {
    int64_t T, d, ld;
    std::vector<float> q, k, v;
};

Head random_head(std::mt19937& rng, int64_t T, int64_t d, int64_t pad = 0, float sigma = 1.0f) {
    const int64_t ld = d + pad;
    return {T, d, ld, normal(rng, static_cast<size_t>(T * ld), sigma), normal(rng, static_cast<size_t>(T * ld), sigma),
            normal(rng, static_cast<size_t>(T * ld))};
}

using Attention = decltype(Table::attention_causal);

std::vector<float> run_attention(Attention attention, const Head& h) {
    std::vector<float> out(static_cast<size_t>(h.T * h.ld), -12345.0f);
    const float scale = static_cast<float>(std::sqrt(static_cast<double>(h.d)));
    attention(h.q.data(), h.ld, h.k.data(), h.ld, h.v.data(), h.ld, out.data(), h.ld, h.T, h.d, scale);
    return out;
}

// The exact path's steps for one head (torch-numerics: matmul, masked_fill, / scale, softmax, matmul).
std::vector<float> exact_attention(const Head& h) {
    std::vector<float> q, k, v;
    for (int64_t i = 0; i < h.T; ++i)
        for (int64_t c = 0; c < h.d; ++c) {
            q.push_back(h.q[i * h.ld + c]);
            k.push_back(h.k[i * h.ld + c]);
            v.push_back(h.v[i * h.ld + c]);
        }
    const Tensor Q = Tensor::from_vector({h.T, h.d}, q), K = Tensor::from_vector({h.T, h.d}, k);
    const Tensor V = Tensor::from_vector({h.T, h.d}, v);
    Tensor scores = attn::matmul(Q, K.T());
    scores.masked_fill_(attn::triu(attn::ones({h.T, h.T}), 1).to_bool(), -INFINITY);
    const Tensor weights = attn::softmax(attn::div(scores, std::sqrt(static_cast<double>(h.d))), -1);
    const std::vector<float> context = attn::matmul(weights, V).to_vector();
    std::vector<float> out(static_cast<size_t>(h.T * h.ld), -12345.0f);
    for (int64_t i = 0; i < h.T; ++i)
        for (int64_t c = 0; c < h.d; ++c) out[i * h.ld + c] = context[i * h.d + c];
    return out;
}

// max |a − b| over the outputs, and max |b|.
std::pair<double, double> max_error(const std::vector<float>& a, const std::vector<float>& b) {
    double err = 0.0, scale = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        err = std::max(err, std::fabs(static_cast<double>(a[i]) - b[i]));
        scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
    }
    return {err, scale};
}

// The agreement the fast path promises: each output is a weighted mean of up to T values summed in another
// order, with weights normalised in another order, so k·ε·T·max|v| bounds the difference (ε of float).
double attention_tolerance(int64_t T, double max_v) { return 4.0 * kEps * static_cast<double>(T) * max_v; }

}  // namespace

// ---------------------------------------------------------------------------------------------------------

TEST_CASE("gemm: every table equals the reference bit for bit, packed and small", "[fast][gemm]") {
    std::mt19937 rng(7);
    SECTION("the packed driver: edges of every register and cache block") {
        for (bool transposed : {false, true}) {
            check_gemm(rng, 100, 770, 260, transposed, true);  // past MC = 96, NC = 768 and KC = 256
            check_gemm(rng, 67, 130, 257, transposed, false, 3, 5);
            check_gemm(rng, 33, 97, 300, transposed, true, 1, 2);
        }
    }
    SECTION("the small driver, with and without bias") {
        for (bool with_bias : {false, true}) {
            check_gemm(rng, 6, 2, 3, false, with_bias);  // the chapter's projections
            check_gemm(rng, 1, 5, 7, true, with_bias);
            check_gemm(rng, 9, 33, 17, false, with_bias, 2, 3);
        }
    }
    SECTION("empty and degenerate shapes") {
        check_gemm(rng, 0, 9, 5, false, true);
        check_gemm(rng, 9, 0, 5, true, true);
        check_gemm(rng, 9, 33, 0, true, true);  // K = 0: 0 + bias
        check_gemm(rng, 300, 40, 0, false, false);
    }
}

TEST_CASE("gemm_accumulate: sums that carry on from C, every table equal to the reference, on 1 and 3 threads",
          "[fast][gemm]") {
    std::mt19937 rng(31);
    struct Case {
        int64_t M, N, K;
        bool transposed;
    };
    // small driver, packed driver past every cache block, several row blocks for the threads, K = 0 (C kept)
    const Case cases[] = {{3, 3, 4, false}, {9, 33, 17, true}, {100, 770, 260, false}, {130, 97, 300, true},
                          {7, 5, 0, false}};
    const int64_t threads_before = attn::get_num_threads();
    for (const Case& c : cases) {
        const auto A = normal(rng, static_cast<size_t>(c.M * c.K + 1));
        const auto B = normal(rng, static_cast<size_t>(c.K * c.N + 1));
        const auto C0 = normal(rng, static_cast<size_t>(c.M * c.N + 1));
        const int64_t rsb = c.transposed ? 1 : c.N, csb = c.transposed ? c.K : 1;
        auto expected = C0;
        attn::kernels::reference().gemm_accumulate(A.data(), c.K, B.data(), rsb, csb, expected.data(), c.N, c.M,
                                                   c.N, c.K);
        if (c.M == 3) {  // the definition spelled out: C's value first, then each term in k order
            for (int64_t j = 0; j < c.N; ++j) {
                float sum = C0[static_cast<size_t>(j)];
                for (int64_t k = 0; k < c.K; ++k) sum = sum + A[static_cast<size_t>(k)] * B[static_cast<size_t>(k * rsb + j * csb)];
                CHECK(attn::bits_of(sum) == attn::bits_of(expected[static_cast<size_t>(j)]));
            }
        }
        for (int64_t threads : {1, 3}) {
            attn::set_num_threads(threads);
            for (const Table* t : simd_tables()) {
                INFO("table " << t->name << ", M=" << c.M << " N=" << c.N << " K=" << c.K
                              << (c.transposed ? " B transposed" : "") << ", " << threads << " threads");
                auto C = C0;
                t->gemm_accumulate(A.data(), c.K, B.data(), rsb, csb, C.data(), c.N, c.M, c.N, c.K);
                CHECK(difference(expected, C) == "");
            }
        }
        attn::set_num_threads(threads_before);
    }
}

TEST_CASE("gemm_fused: where the CPU has FMA, every table equals gemm_fused_ref bit for bit", "[fast][gemm]") {
    std::mt19937 rng(12);
    CHECK(attn::kernels::reference().gemm_fused == nullptr);  // the portable build: no FMA instruction
    struct Shape3 {
        int64_t M, N, K;
    };
    for (const Shape3& s : {Shape3{100, 770, 260}, Shape3{67, 130, 257}, Shape3{6, 2, 3}, Shape3{9, 33, 0}})
        for (bool transposed : {false, true}) {
            const auto A = normal(rng, static_cast<size_t>(s.M * s.K + 1));
            const auto B = normal(rng, static_cast<size_t>(s.K * s.N + 1));
            const auto bias = normal(rng, static_cast<size_t>(s.N));
            const int64_t rsb = transposed ? 1 : s.N, csb = transposed ? s.K : 1;
            std::vector<float> want(static_cast<size_t>(s.M * s.N)), got(want.size());
            attn::kernels::gemm_fused_ref(A.data(), s.K, B.data(), rsb, csb, bias.data(), want.data(), s.N, s.M, s.N,
                                          s.K);
            for (const Table* t : simd_tables()) {
                if (!t->gemm_fused) continue;
                INFO("table " << t->name << ", M=" << s.M << " N=" << s.N << " K=" << s.K);
                std::fill(got.begin(), got.end(), -1.0f);
                t->gemm_fused(A.data(), s.K, B.data(), rsb, csb, bias.data(), got.data(), s.N, s.M, s.N, s.K);
                CHECK(difference(want, got) == "");
            }
        }
}

TEST_CASE("gemm: the reference is matmul's running sum, then + bias", "[fast][gemm]") {
    std::mt19937 rng(8);
    const int64_t M = 7, N = 11, K = 13;
    const auto A = normal(rng, M * K), B = normal(rng, K * N), bias = normal(rng, N);
    std::vector<float> want(M * N), got(M * N);
    attn::kernels::reference().matmul(A.data(), K, B.data(), N, want.data(), N, M, N, K);
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) want[i * N + j] = want[i * N + j] + bias[j];
    attn::kernels::reference().gemm(A.data(), K, B.data(), N, 1, bias.data(), got.data(), N, M, N, K);
    CHECK(difference(want, got) == "");
}

TEST_CASE("nn.Linear through gemm keeps PyTorch's bits (torch-numerics §3 vector)", "[fast][gemm]") {
    attn::manual_seed(0);
    attn::nn::Linear lin(3, 2);
    const Tensor y = lin(attn::rand({2, 3}));
    std::vector<uint32_t> got;
    for (float v : y.to_vector()) got.push_back(bits_of(v));
    CHECK(got == std::vector<uint32_t>{0x3c884b98, 0x3e35da98, 0xbdb12708, 0x3e9dd502});
}

TEST_CASE("exp_fast: every table equals exp_fast_ref, which stays within 2 ulp of EXP", "[fast][exp]") {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> in_range(-105.0f, 90.0f);
    std::vector<float> x(200000);
    for (float& v : x) v = in_range(rng);
    for (float v : {0.0f, -0.0f, -104.0f, -103.9f, 88.7f, 100.0f, 100.5f, -INFINITY, INFINITY, NAN}) x.push_back(v);
    int64_t worst = 0;
    for (float v : x) {
        const float f = attn::kernels::exp_fast_ref(v), e = attn::kernels::exp_ref(v);
        if (std::isnan(e)) {
            CHECK(std::isnan(f));
            continue;
        }
        if (std::isinf(e) || e == 0.0f || e < 1e-37f) continue;  // the same cut-offs; no ulps below normal
        worst = std::max<int64_t>(worst, std::llabs(static_cast<int64_t>(bits_of(f)) - static_cast<int64_t>(bits_of(e))));
    }
    CHECK(worst <= 2);
    CHECK(bits_of(attn::kernels::exp_fast_ref(0.0f)) == 0x3f800000u);  // alpha = E(0) is exactly 1
    CHECK(attn::kernels::exp_fast_ref(-INFINITY) == 0.0f);
}

TEST_CASE("attention_causal: every table equals the reference bit for bit", "[fast][attention]") {
    std::mt19937 rng(10);
    // Token counts around the tiles (64) and the vector widths; head sizes with power-of-two scales (the
    // division becomes a product) and without; padded rows.
    for (int64_t T : {1, 2, 7, 16, 63, 64, 65, 127, 130, 200})
        for (int64_t d : {1, 3, 8, 16, 21, 64}) {
            const Head h = random_head(rng, T, d, T % 3);
            const auto expected = run_attention(attn::kernels::reference().attention_causal, h);
            const auto expected_fused = run_attention(attn::kernels::attention_causal_fused_ref, h);
            for (const Table* t : simd_tables()) {
                INFO("table " << t->name << ", T=" << T << " d=" << d);
                CHECK(difference(expected, run_attention(t->attention_causal, h)) == "");
                if (t->attention_causal_fused)
                    CHECK(difference(expected_fused, run_attention(t->attention_causal_fused, h)) == "");
            }
        }
}

TEST_CASE("attention_causal agrees with the exact path within a size-scaled tolerance", "[fast][attention]") {
    std::mt19937 rng(11);
    for (int64_t T : {1, 5, 64, 65, 150, 257})
        for (int64_t d : {4, 21, 64})
            for (float sigma : {0.3f, 3.0f}) {  // flat and peaked softmaxes
                const Head h = random_head(rng, T, d, 1, sigma);
                const auto exact = exact_attention(h);
                double max_v = 0.0;
                for (float x : h.v) max_v = std::max(max_v, static_cast<double>(std::fabs(x)));
                // both forms, whichever this CPU has (the fused one where it has FMA)
                const Table& t = attn::kernels::active();
                for (Attention attention : {t.attention_causal, t.attention_causal_fused}) {
                    if (!attention) continue;
                    const auto [err, scale] = max_error(run_attention(attention, h), exact);
                    INFO("T=" << T << " d=" << d << " sigma=" << sigma << (attention == t.attention_causal_fused
                                                                                ? " (fused)" : "")
                              << ": max |fast - exact| = " << err << ", tolerance " << attention_tolerance(T, max_v)
                              << ", max |exact| = " << scale);
                    CHECK(err <= attention_tolerance(T, max_v));
                }
            }
}

// ---- the modules

namespace {

// The module's output on x, by the given path (eval mode unless told).
template <class M>
Tensor forward_by(M& m, AttentionPath path, const Tensor& x) {
    m.set_attention_path(path);
    Tensor y = m(x);
    m.set_attention_path(AttentionPath::Auto);
    return y;
}

void check_close(const Tensor& fast, const Tensor& exact, int64_t T, int64_t width) {
    REQUIRE(fast.shape() == exact.shape());
    const auto [err, scale] = max_error(fast.to_vector(), exact.to_vector());
    // the attention's bound, then a projection of `width` terms
    const double tol = 4.0 * kEps * static_cast<double>(T + width) * std::max(1.0, scale);
    INFO("max |fast - exact| = " << err << ", tolerance " << tol << ", max |exact| = " << scale);
    CHECK(err <= tol);
}

}  // namespace

TEST_CASE("MultiHeadAttention: fast path against exact path", "[fast][modules]") {
    struct Case {
        int64_t b, T, d_in, d_out, heads;
        bool bias;
    };
    for (const Case& c : {Case{1, 64, 16, 16, 2, false}, Case{2, 65, 24, 48, 4, true}, Case{2, 130, 32, 36, 3, false},
                          Case{1, 100, 8, 12, 12, true}, Case{2, 7, 5, 6, 2, true}}) {
        INFO("b=" << c.b << " T=" << c.T << " d_in=" << c.d_in << " d_out=" << c.d_out << " heads=" << c.heads);
        attn::manual_seed(123);
        attn::nn::MultiHeadAttention mha(c.d_in, c.d_out, c.T + 3, 0.0, c.heads, c.bias);
        const Tensor x = attn::rand({c.b, c.T, c.d_in});
        const Tensor exact = forward_by(mha, AttentionPath::Exact, x);
        const Tensor fast = forward_by(mha, AttentionPath::Fast, x);
        check_close(fast, exact, c.T, c.d_out);
        CHECK(fast.grad_fn() == exact.grad_fn());
        CHECK(fast.requires_grad() == exact.requires_grad());
        // a 2-D input takes the same path
        const Tensor fast2 = forward_by(mha, AttentionPath::Fast, x[0]);
        CHECK(difference(fast[0].to_vector(), fast2.to_vector()) == "");
    }
    attn::nn::MultiHeadAttention empty(4, 4, 8, 0.0, 2);  // no tokens at all
    CHECK(forward_by(empty, AttentionPath::Fast, attn::rand({2, 0, 4})).shape() == attn::Shape{2, 0, 4});
}

TEST_CASE("the rule: auto is exact below 64 tokens and with active dropout, fast otherwise", "[fast][modules]") {
    attn::manual_seed(5);
    attn::nn::MultiHeadAttention mha(16, 16, 80, 0.1, 4);
    const Tensor x63 = attn::rand({2, 63, 16}), x64 = attn::rand({2, 64, 16});
    const auto bits = [](const Tensor& t) { return t.to_vector(); };

    mha.eval();  // dropout inactive
    CHECK(difference(bits(forward_by(mha, AttentionPath::Exact, x63)), bits(mha(x63))) == "");
    CHECK(difference(bits(forward_by(mha, AttentionPath::Fast, x64)), bits(mha(x64))) == "");
    CHECK(difference(bits(forward_by(mha, AttentionPath::Exact, x64)), bits(mha(x64))) != "");

    mha.train();  // p = 0.1: dropout draws, so every path is the exact one (same draws, same bits)
    attn::manual_seed(9);
    const Tensor auto_train = mha(x64);
    attn::manual_seed(9);
    const Tensor forced = forward_by(mha, AttentionPath::Fast, x64);
    CHECK(difference(bits(auto_train), bits(forced)) == "");
    CHECK(attn::rng_draws() == 2u * 2 * 4 * 64 * 64);

    attn::nn::MultiHeadAttention p0(16, 16, 80, 0.0, 4);  // training mode with p = 0: dropout inactive
    CHECK(attn::nn::uses_fast_attention(AttentionPath::Auto, p0.dropout, 64));
    CHECK(!attn::nn::uses_fast_attention(AttentionPath::Auto, p0.dropout, 63));
    CHECK(!attn::nn::uses_fast_attention(AttentionPath::Auto, mha.dropout, 1024));
    CHECK(!attn::nn::uses_fast_attention(AttentionPath::Fast, mha.dropout, 1024));
}

TEST_CASE("CausalAttention and MultiHeadAttentionWrapper take the fast path too", "[fast][modules]") {
    attn::manual_seed(17);
    attn::nn::CausalAttention ca(12, 10, 90, 0.0, true);
    const Tensor x = attn::rand({2, 90, 12});
    check_close(forward_by(ca, AttentionPath::Fast, x), forward_by(ca, AttentionPath::Exact, x), 90, 0);
    const Tensor x2 = x[1];  // 2-D input
    const Tensor fast2 = forward_by(ca, AttentionPath::Fast, x2), exact2 = forward_by(ca, AttentionPath::Exact, x2);
    check_close(fast2, exact2, 90, 0);
    CHECK(fast2.grad_fn() == exact2.grad_fn());

    attn::nn::MultiHeadAttentionWrapper wrapper(12, 5, 90, 0.0, 3);
    check_close(forward_by(wrapper, AttentionPath::Fast, x), forward_by(wrapper, AttentionPath::Exact, x), 90, 0);
}

TEST_CASE("attention_weights: one head's rows, the exact path's bits", "[fast][modules]") {
    attn::manual_seed(21);
    const int64_t b = 2, T = 70, d = 24, heads = 3, hd = d / heads;
    attn::nn::MultiHeadAttention mha(d, d, T, 0.0, heads, true);
    const Tensor x = attn::rand({b, T, d});
    // the exact path's weights, step by step as forward computes them
    const Tensor keys = mha.W_key(x).view({b, T, heads, hd}).transpose(1, 2);
    const Tensor queries = mha.W_query(x).view({b, T, heads, hd}).transpose(1, 2);
    Tensor scores = attn::matmul(queries, keys.transpose(2, 3));
    scores.masked_fill_(attn::triu(attn::ones({T, T}), 1).to_bool(), -INFINITY);
    const Tensor weights = attn::softmax(attn::div(scores, std::sqrt(static_cast<double>(hd))), -1);
    for (int64_t head : {0, 2})
        for (int64_t rows : {int64_t{0}, int64_t{1}, int64_t{5}, T}) {
            INFO("head " << head << ", rows " << rows);
            const Tensor got = mha.attention_weights(x, head, rows);
            CHECK(got.shape() == attn::Shape{b, rows, T});
            CHECK(difference(weights.select(1, head).slice(1, 0, rows).to_vector(), got.to_vector()) == "");
        }
    CHECK(mha.attention_weights(x[0], 1, 3).shape() == attn::Shape{3, T});
    CHECK_THROWS_WITH(mha.attention_weights(x, 3, 1), "attentionWeights: head must be in [0, 2], got 3");
    CHECK_THROWS_WITH(mha.attention_weights(x, 0, T + 1),
                      "attentionWeights: rows must be in [0, 70] (the number of tokens), got 71");
}

// ---- GPT-2 size against PyTorch

#if ATTN_FAST_GPT2
namespace {

const nlohmann::json& gpt2() {
    static const nlohmann::json data = [] {
        std::ifstream in(std::string(ATTN_GOLDEN_DIR) + "/gpt2_mha.json");
        REQUIRE(in);
        return nlohmann::json::parse(in);
    }();
    return data;
}

float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

std::vector<float> floats_of_hex(const std::string& text) {
    std::istringstream in(text);
    std::vector<float> out;
    std::string word;
    while (in >> word) out.push_back(from_bits(static_cast<uint32_t>(std::stoul(word, nullptr, 16))));
    return out;
}

// The GPT-2-size module and input of gen_gpt2.py: seed 123, the module, then x.
int64_t seeded(int64_t d_in) {
    attn::manual_seed(123);
    return d_in;
}
struct Gpt2 {
    Gpt2() : mha(seeded(768), 768, 1024, 0.0, 12), x(attn::rand({1, 1024, 768})) { mha.eval(); }
    attn::nn::MultiHeadAttention mha;
    Tensor x;
};

// t[0][rows][:, cols], row-major.
std::vector<float> pick(const Tensor& t, const nlohmann::json& rows, const nlohmann::json& cols) {
    std::vector<float> out;
    for (int64_t r : rows)
        for (int64_t c : cols) out.push_back(t.at({0, r, c}));
    return out;
}

}  // namespace

TEST_CASE("GPT-2 size: the exact path is PyTorch's, bit for bit", "[fast][gpt2]") {
    Gpt2 g;
    const nlohmann::json& golden = gpt2();
    CHECK(difference(floats_of_hex(golden["queries"]), pick(g.mha.W_query(g.x), golden["rows"], golden["cols"])) == "");
    g.mha.set_attention_path(AttentionPath::Exact);
    CHECK(difference(floats_of_hex(golden["out"]), pick(g.mha(g.x), golden["rows"], golden["cols"])) == "");
    const Tensor w = g.mha.attention_weights(g.x, golden["head"], 1024);
    std::vector<float> got;
    for (int64_t r : golden["weight_rows"])
        for (int64_t c : golden["weight_cols"]) got.push_back(w.at({0, r, c}));
    CHECK(difference(floats_of_hex(golden["weights"]), got) == "");
}

TEST_CASE("GPT-2 size: the fast path agrees with PyTorch within a size-scaled tolerance", "[fast][gpt2]") {
    Gpt2 g;
    const nlohmann::json& golden = gpt2();
    REQUIRE(attn::nn::uses_fast_attention(g.mha.attention_path, g.mha.dropout, 1024));
    const Tensor y = g.mha(g.x);
    const auto want = floats_of_hex(golden["out"]);
    const auto got = pick(y, golden["rows"], golden["cols"]);
    const auto [err, scale] = max_error(got, want);
    const double tol = 4.0 * kEps * (1024 + 768) * std::max(1.0, scale);
    INFO("selected elements: max |fast - torch| = " << err << ", tolerance " << tol);
    CHECK(err <= tol);
    // every row's sum (768 terms, compared in double)
    double worst = 0.0;
    const std::vector<float> values = y.to_vector();
    for (int64_t r = 0; r < 1024; ++r) {
        double sum = 0.0;
        for (int64_t c = 0; c < 768; ++c) sum += values[r * 768 + c];
        worst = std::max(worst, std::fabs(sum - std::stod(golden["row_sums"][r].get<std::string>())));
    }
    INFO("row sums: max |fast - torch| = " << worst);
    CHECK(worst <= 768 * tol);
}
#endif
