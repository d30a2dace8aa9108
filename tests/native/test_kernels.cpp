// The kernel layer: every SIMD table against the scalar reference, bit for bit, over sizes that are not
// multiples of any vector width, plus EXP's and softmax's known vectors (torch-numerics.md §2).
// Inputs come from a fixed std::mt19937: these are self-consistency tests, not PyTorch numbers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "support.hpp"

using attn::kernels::Binary;
using attn::kernels::Table;
using attn::bits_of;
using test::difference;
using test::from_bits;
using test::hex;
using test::normal;
using test::same;
using test::simd_tables;

namespace {

std::vector<float> from_hex(std::initializer_list<uint32_t> list) {
    std::vector<float> v;
    for (uint32_t u : list) v.push_back(from_bits(u));
    return v;
}

const float inf = std::numeric_limits<float>::infinity();
const float qnan = std::numeric_limits<float>::quiet_NaN();


std::vector<float> uniform(std::mt19937& rng, size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

// Lengths around every vector width (4, 8, 16 lanes), the 8-lane softmax sum, and a few larger ones.
std::vector<int64_t> lengths() {
    std::vector<int64_t> n;
    for (int64_t i = 0; i <= 67; ++i) n.push_back(i);
    for (int64_t i : {130, 257, 1000, 4099}) n.push_back(i);
    return n;
}

// C = A·B with the given table, on strided buffers; the padding of C must come back untouched.
std::vector<float> run_matmul(const Table& t, const std::vector<float>& A, int64_t lda, const std::vector<float>& B,
                              int64_t ldb, int64_t ldc, int64_t M, int64_t N, int64_t K) {
    std::vector<float> C(static_cast<size_t>(M * ldc + 1), -12345.0f);
    t.matmul(A.data(), lda, B.data(), ldb, C.data(), ldc, M, N, K);
    return C;
}

// Every SIMD table against the reference for one shape; lda/ldb/ldc pad each row by the given amounts.
void check_matmul(std::mt19937& rng, int64_t M, int64_t N, int64_t K, int64_t pad_a = 0, int64_t pad_b = 0,
                  int64_t pad_c = 0) {
    const int64_t lda = K + pad_a, ldb = N + pad_b, ldc = N + pad_c;
    const auto A = normal(rng, static_cast<size_t>(M * lda + 1));
    const auto B = normal(rng, static_cast<size_t>(K * ldb + 1));
    const auto expected = run_matmul(attn::kernels::reference(), A, lda, B, ldb, ldc, M, N, K);
    for (const Table* t : simd_tables()) {
        INFO("table " << t->name << ", M=" << M << " N=" << N << " K=" << K << " lda=" << lda << " ldb=" << ldb
                      << " ldc=" << ldc);
        CHECK(difference(expected, run_matmul(*t, A, lda, B, ldb, ldc, M, N, K)) == "");
    }
}

std::vector<float> run_softmax(const Table& t, const std::vector<float>& x, int64_t rows, int64_t n) {
    std::vector<float> y(x.size(), -12345.0f);
    t.softmax_rows(x.data(), y.data(), rows, n);
    return y;
}

void check_softmax(const std::vector<float>& x, int64_t rows, int64_t n) {
    const auto expected = run_softmax(attn::kernels::reference(), x, rows, n);
    for (const Table* t : simd_tables()) {
        INFO("table " << t->name << ", rows=" << rows << " n=" << n);
        CHECK(difference(expected, run_softmax(*t, x, rows, n)) == "");
    }
}

std::vector<float> run_exp(const Table& t, const std::vector<float>& x) {
    std::vector<float> y(x.size(), -12345.0f);
    t.exp(x.data(), y.data(), static_cast<int64_t>(x.size()));
    return y;
}

// Inputs that exercise elementwise ops' corners: signed zeros, infinities and NaN among normal values.
std::vector<float> with_specials(std::mt19937& rng, size_t n) {
    auto v = normal(rng, n, 4.0f);
    const float specials[] = {0.0f, -0.0f, inf, -inf, qnan, 1e-40f, -3e38f};
    std::uniform_int_distribution<int> pick(0, 9);
    for (float& x : v)
        if (pick(rng) == 0) x = specials[pick(rng) % 7];
    return v;
}

const char* name_of(Binary op) {
    switch (op) {
        case Binary::Add: return "add";
        case Binary::Sub: return "sub";
        case Binary::Mul: return "mul";
        case Binary::Div: return "div";
    }
    return "?";
}

}  // namespace

TEST_CASE("kernel tables: the reference first, the widest one active", "[kernels]") {
    const auto tables = attn::kernels::available();
    REQUIRE(!tables.empty());
    CHECK(tables.front() == &attn::kernels::reference());
    CHECK(std::string(tables.front()->name) == "scalar");
    CHECK(&attn::kernels::active() == tables.back());
    for (const Table* t : tables) {
        INFO("table " << t->name);
        CHECK(t->matmul != nullptr);
        CHECK(t->softmax_rows != nullptr);
        CHECK(t->exp != nullptr);
        CHECK(t->binary != nullptr);
        CHECK(t->binary_scalar != nullptr);
        CHECK(t->masked_fill != nullptr);
    }
}

TEST_CASE("EXP: the test vectors of torch-numerics §2.1", "[kernels][exp]") {
    // exp of 0, -0.5, 1, 88, -100, -104.5, and two inputs where glibc's expf is one ulp off.
    const std::vector<float> x = {0.0f, -0.5f, 1.0f, 88.0f, -100.0f, -104.5f, from_bits(0xc0685832),
                                  from_bits(0xc04764e3)};
    const auto expected = from_hex({0x3f800000, 0x3f1b4598, 0x402df854, 0x7ef882b7, 0x0000001b, 0x00000000,
                                    0x3cd9232c, 0x3d35ad76});

    std::vector<float> got;
    for (float v : x) got.push_back(attn::kernels::exp_ref(v));
    CHECK(difference(expected, got) == "");

    // Every table, and each input at every position of a vector (the rest of the lanes busy with others).
    for (const Table* t : attn::kernels::available()) {
        INFO("table " << t->name);
        for (size_t shift = 0; shift < 16; ++shift) {
            std::vector<float> xs(x.size() + 16, 0.5f), want(x.size() + 16, attn::kernels::exp_ref(0.5f));
            for (size_t i = 0; i < x.size(); ++i) {
                xs[shift + i] = x[i];
                want[shift + i] = expected[i];
            }
            INFO("shift " << shift);
            CHECK(difference(want, run_exp(*t, xs)) == "");
        }
    }
}

TEST_CASE("EXP: special inputs", "[kernels][exp]") {
    using attn::kernels::exp_ref;
    CHECK(bits_of(exp_ref(-inf)) == 0u);
    CHECK(bits_of(exp_ref(inf)) == bits_of(inf));
    CHECK(bits_of(exp_ref(-0.0f)) == 0x3f800000u);
    CHECK(bits_of(exp_ref(100.0f)) == bits_of(inf));  // 88.7 < d ≤ 100 overflows in the scaling
    CHECK(bits_of(exp_ref(-87.5f)) == 0x006cb2bcu);    // subnormal results (real torch 1.13)
    CHECK(bits_of(exp_ref(-103.0f)) == 0x00000001u);
    CHECK(std::isnan(exp_ref(qnan)));
}

TEST_CASE("EXP: every table equals exp_ref over a sweep of float bit patterns", "[kernels][exp]") {
    // Every 509th bit pattern (NaNs, infinities, subnormals, both signs), then the neighbourhoods of the
    // edges: the cut-offs at -104 and 100, overflow near 88.72, the subnormal range, and 0.
    std::vector<float> x;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 509) x.push_back(from_bits(static_cast<uint32_t>(u)));
    for (float edge : {-104.0f, 100.0f, 88.72283f, -87.33655f, -103.28f, 0.0f, -0.0f, 0.34657359f, -0.34657359f})
        for (int32_t d = -3000; d <= 3000; ++d) x.push_back(from_bits(bits_of(edge) + static_cast<uint32_t>(d)));
    std::mt19937 rng(2024);
    const auto in_range = uniform(rng, 1 << 20, -105.0f, 101.0f);
    x.insert(x.end(), in_range.begin(), in_range.end());

    const auto expected = run_exp(attn::kernels::reference(), x);
    for (const Table* t : simd_tables()) {
        INFO("table " << t->name << ", " << x.size() << " inputs");
        CHECK(difference(expected, run_exp(*t, x)) == "");
    }
}

TEST_CASE("EXP: every length, unaligned", "[kernels][exp]") {
    std::mt19937 rng(7);
    for (int64_t n : lengths()) {
        const auto x = uniform(rng, static_cast<size_t>(n) + 1, -110.0f, 110.0f);
        std::vector<float> want(x.size() + 1, 0.0f), got(x.size() + 1, 0.0f);
        attn::kernels::reference().exp(x.data() + 1, want.data() + 1, n);  // offset by one float: unaligned
        for (const Table* t : simd_tables()) {
            INFO("table " << t->name << ", n=" << n);
            std::fill(got.begin(), got.end(), 0.0f);
            t->exp(x.data() + 1, got.data() + 1, n);
            CHECK(difference(want, got) == "");
        }
    }
}

// Every one of the 2^32 inputs, every table: a few minutes. Run with `attn_native_tests "[exhaustive]"`.
TEST_CASE("EXP: every table equals exp_ref on all 2^32 inputs", "[.][exhaustive]") {
    const auto tables = simd_tables();
    const int64_t chunk = 1 << 22;
    std::vector<float> x(chunk), want(chunk), got(chunk);
    std::vector<uint64_t> mismatches(tables.size(), 0);
    std::vector<std::string> first(tables.size());
    for (uint64_t start = 0; start < (uint64_t{1} << 32); start += chunk) {
        for (int64_t i = 0; i < chunk; ++i) x[i] = from_bits(static_cast<uint32_t>(start + i));
        attn::kernels::reference().exp(x.data(), want.data(), chunk);
        for (size_t t = 0; t < tables.size(); ++t) {
            tables[t]->exp(x.data(), got.data(), chunk);
            for (int64_t i = 0; i < chunk; ++i)
                if (!same(want[i], got[i]) && mismatches[t]++ == 0)
                    first[t] = hex(x[i]) + ": expected " + hex(want[i]) + ", got " + hex(got[i]);
        }
    }
    for (size_t t = 0; t < tables.size(); ++t) {
        INFO("table " << tables[t]->name << ", first mismatch " << first[t]);
        CHECK(mismatches[t] == 0);
    }
}

TEST_CASE("matmul: every table equals the reference", "[kernels][matmul]") {
    std::mt19937 rng(42);
    SECTION("every column count N") {
        for (int64_t N : lengths())
            if (N <= 1000) check_matmul(rng, 5, N, 19);
    }
    SECTION("every row count M") {
        for (int64_t M = 0; M <= 17; ++M) check_matmul(rng, M, 37, 11);
    }
    SECTION("every depth K, including several k blocks") {
        for (int64_t K : lengths()) check_matmul(rng, 3, 21, K);
        check_matmul(rng, 7, 45, 600);
    }
    SECTION("odd shapes, several column panels") {
        check_matmul(rng, 67, 130, 257);
        check_matmul(rng, 13, 1029, 513);
        check_matmul(rng, 1, 1, 1);
        check_matmul(rng, 0, 0, 0);
        check_matmul(rng, 9, 0, 5);
        check_matmul(rng, 9, 33, 0);  // K = 0: zeros
    }
    SECTION("strided A, B and C") {
        check_matmul(rng, 7, 29, 31, 3, 5, 7);
        check_matmul(rng, 6, 64, 300, 1, 16, 2);
        check_matmul(rng, 11, 67, 9, 13, 1, 1);
    }
}

TEST_CASE("matmul: K = 0 gives +0", "[kernels][matmul]") {
    for (const Table* t : attn::kernels::available()) {
        INFO("table " << t->name);
        const std::vector<float> none(1);
        const auto C = run_matmul(*t, none, 0, none, 19, 19, 3, 19, 0);
        const std::vector<float> zeros(3 * 19, 0.0f);
        CHECK(difference(zeros, std::vector<float>(C.begin(), C.begin() + 3 * 19)) == "");
    }
}

TEST_CASE("matmul: a product and a sum round separately (no FMA)", "[kernels][matmul]") {
    // (a·a rounds to 1 + 2^-11) - (1 + 2^-11) = 0 exactly, where an FMA would keep 2^-24.
    const float a = 1.0f + std::ldexp(1.0f, -12);
    const float b = 1.0f + std::ldexp(1.0f, -11);
    const int64_t N = 67;
    const std::vector<float> A = {1.0f, a};
    std::vector<float> B(2 * N);
    for (int64_t j = 0; j < N; ++j) {
        B[j] = -b;     // k = 0: 0 + 1·(-b)
        B[N + j] = a;  // k = 1: -b + a·a
    }
    for (const Table* t : attn::kernels::available()) {
        INFO("table " << t->name);
        const auto C = run_matmul(*t, A, 2, B, N, N, 1, N, 2);
        CHECK(difference(std::vector<float>(N, 0.0f), std::vector<float>(C.begin(), C.begin() + N)) == "");
    }
}

TEST_CASE("softmax_rows: the vectors of torch-numerics §2.5", "[kernels][softmax]") {
    const auto masked = std::vector<float>{0.5f, -inf, 0.25f, -inf};
    const auto masked_want = from_hex({0x3f0feacd, 0x00000000, 0x3ee02a68, 0x00000000});
    const auto scores = from_hex({0x3f745390, 0x3fbf5c2a, 0x3fbcd9e9, 0x3f57e910, 0x3f34fdf4, 0x3f8b126f});
    const auto scores_want = from_hex({0x3e0ddf6a, 0x3e7399c7, 0x3e6edf63, 0x3dfdef4d, 0x3ddd8e74, 0x3e21e889});
    for (const Table* t : attn::kernels::available()) {
        INFO("table " << t->name);
        CHECK(difference(masked_want, run_softmax(*t, masked, 1, 4)) == "");
        CHECK(difference(scores_want, run_softmax(*t, scores, 1, 6)) == "");
        const auto all_masked = run_softmax(*t, {-inf, -inf}, 1, 2);
        CHECK(std::isnan(all_masked[0]));
        CHECK(std::isnan(all_masked[1]));
    }
}

TEST_CASE("softmax_rows: every table equals the reference", "[kernels][softmax]") {
    std::mt19937 rng(3);
    SECTION("every row length") {
        for (int64_t n : lengths()) check_softmax(normal(rng, static_cast<size_t>(3 * n), 3.0f), 3, n);
    }
    SECTION("wide ranges: underflow to subnormals and zeros") {
        for (int64_t n : {5, 8, 17, 64, 67, 257}) check_softmax(uniform(rng, static_cast<size_t>(4 * n), -120.0f, 5.0f), 4, n);
    }
    SECTION("masked rows: -inf entries, an all -inf row, NaN and +inf") {
        for (int64_t n : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 67, 130}) {
            const int64_t rows = 7;
            auto x = normal(rng, static_cast<size_t>(rows * n), 2.0f);
            for (int64_t j = 0; j < n; ++j) {
                if (j > 0 && j % 3 != 1) x[0 * n + j] = -inf;  // row 0: causal-style mask
                x[1 * n + j] = -inf;                           // row 1: all -inf → NaN
            }
            x[2 * n + n / 2] = qnan;  // row 2: one NaN
            x[3 * n + n - 1] = inf;  // row 3: one +inf
            x[4 * n + 0] = 1000.0f;  // row 4: one entry dominates; the rest give exact zeros
            x[6 * n + n - 1] = from_bits(0x7fc00001);  // row 6: two different NaNs
            x[6 * n + n / 3] = from_bits(0xffc00002);
            check_softmax(x, rows, n);
        }
    }
    SECTION("many short rows") {
        check_softmax(normal(rng, 1000 * 6, 1.0f), 1000, 6);
        check_softmax(normal(rng, 0, 1.0f), 5, 0);
    }
}

TEST_CASE("binary, binary_scalar, masked_fill: every table equals the reference", "[kernels][elementwise]") {
    std::mt19937 rng(11);
    const auto& ref = attn::kernels::reference();
    for (int64_t n : lengths()) {
        const auto a = with_specials(rng, static_cast<size_t>(n) + 1);
        const auto b = with_specials(rng, static_cast<size_t>(n) + 1);
        std::vector<float> mask(static_cast<size_t>(n) + 1);
        const float mask_values[] = {0.0f, -0.0f, 1.0f, qnan, 0.5f};
        std::uniform_int_distribution<int> pick(0, 4);
        for (float& m : mask) m = mask_values[pick(rng)];

        // Offset by one float, so the vectors are unaligned.
        const float* pa = a.data() + 1;
        const float* pb = b.data() + 1;
        std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
        for (const Table* t : simd_tables()) {
            INFO("table " << t->name << ", n=" << n);
            for (Binary op : {Binary::Add, Binary::Sub, Binary::Mul, Binary::Div}) {
                INFO("op " << name_of(op));
                ref.binary(op, pa, pb, want.data(), n);
                t->binary(op, pa, pb, got.data(), n);
                CHECK(difference(want, got) == "");
                for (float s : {0.7071068f, -3.0f, 0.0f}) {
                    INFO("scalar " << hex(s));
                    ref.binary_scalar(op, pa, s, want.data(), n);
                    t->binary_scalar(op, pa, s, got.data(), n);
                    CHECK(difference(want, got) == "");
                }
            }
            ref.masked_fill(pa, mask.data() + 1, -inf, want.data(), n);
            t->masked_fill(pa, mask.data() + 1, -inf, got.data(), n);
            CHECK(difference(want, got) == "");
        }
    }
}

// The packing copies of the packed GEMM and of the attention (4 × 4 transposes) against their scalar
// references, byte for byte over the whole buffer: every value, every zero of the padding, and nothing written
// past it (both start from the same NaN pattern). The headers' SSE shuffles need an x86 compiler.
#if defined(__SSE__)
#include "kernels/simd_attention.hpp"

namespace {

// A buffer of n floats that no copy writes by chance: a NaN payload per position.
std::vector<float> poisoned(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = from_bits(0x7fc00000u | static_cast<uint32_t>(i & 0x3fffff));
    return v;
}

template <int MR>
void check_pack_a(const std::vector<float>& A, int64_t lda, int64_t mc, int64_t kc) {
    const size_t n = static_cast<size_t>((mc + MR - 1) / MR * MR * kc + 8);
    auto want = poisoned(n), got = poisoned(n);
    attn::kernels::pack_a_scalar<MR>(A.data(), lda, mc, kc, want.data());
    attn::kernels::pack_a<MR>(A.data(), lda, mc, kc, got.data());
    INFO("pack_a MR=" << MR << " mc=" << mc << " kc=" << kc << " lda=" << lda);
    CHECK(std::memcmp(want.data(), got.data(), n * sizeof(float)) == 0);
}

template <int64_t NR>
void check_pack_b(const std::vector<float>& B, int64_t rsb, int64_t csb, int64_t kc, int64_t nc) {
    const size_t n = static_cast<size_t>((nc + NR - 1) / NR * NR * kc + 8);
    auto want = poisoned(n), got = poisoned(n);
    attn::kernels::pack_b_scalar<NR>(B.data(), rsb, csb, kc, nc, want.data());
    attn::kernels::pack_b<NR>(B.data(), rsb, csb, kc, nc, got.data());
    INFO("pack_b NR=" << NR << " kc=" << kc << " nc=" << nc << " rsb=" << rsb << " csb=" << csb);
    CHECK(std::memcmp(want.data(), got.data(), n * sizeof(float)) == 0);
}

template <int64_t NR>
void check_pack_keys_values(const std::vector<float>& k, const std::vector<float>& v, int64_t ld, int64_t T,
                            int64_t d) {
    constexpr int64_t BC = attn::kernels::kAttentionKeys;
    const int64_t keys = (T + BC - 1) / BC * BC, dp = (d + NR - 1) / NR * NR;
    const size_t n = static_cast<size_t>(keys * (d + dp) + 8);
    auto want = poisoned(n), got = poisoned(n);
    attn::kernels::pack_keys_values_scalar<NR, BC>(k.data(), ld, v.data(), ld, T, d, want.data(),
                                                   want.data() + keys * d);
    attn::kernels::pack_keys_values<xsimd::sse2, NR, BC>(k.data(), ld, v.data(), ld, T, d, got.data(),
                                                         got.data() + keys * d);
    INFO("pack_keys_values NR=" << NR << " T=" << T << " d=" << d << " ld=" << ld);
    CHECK(std::memcmp(want.data(), got.data(), n * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("packing with 4 x 4 transposes copies exactly what the scalar packing copies", "[kernels][pack]") {
    std::mt19937 rng(12);
    const auto values = normal(rng, 300 * 300);
    // Sizes around the groups of 4, the register blocks (MR 4, 6, 8; NR 8, 16, 48) and a k block (256).
    for (int64_t mc : {1, 3, 4, 5, 7, 8, 13, 96})
        for (int64_t kc : {1, 3, 4, 7, 256}) {
            check_pack_a<4>(values, kc + 3, mc, kc);
            check_pack_a<6>(values, kc + 3, mc, kc);
            check_pack_a<8>(values, kc, mc, kc);
        }
    for (int64_t nc : {1, 5, 8, 13, 16, 47, 48, 100})
        for (int64_t kc : {1, 3, 4, 7, 256}) {
            check_pack_b<8>(values, 1, kc + 1, kc, nc);  // transposed: columns contiguous
            check_pack_b<16>(values, 1, kc + 1, kc, nc);
            check_pack_b<48>(values, 1, kc, kc, nc);
            check_pack_b<8>(values, nc + 2, 1, kc, nc);  // rows contiguous
        }
    for (int64_t T : {1, 3, 4, 5, 63, 64, 65, 130})
        for (int64_t d : {1, 3, 4, 5, 8, 21, 64}) {
            check_pack_keys_values<8>(values, values, 3 * d + 1, T, d);
            check_pack_keys_values<16>(values, values, d, T, d);
        }
}
#endif
