// Native benchmark of the fast path: MultiHeadAttention(768, 768, 1024, 0.0, 12) forward (GPT-2 size,
// causal, eval) at batch 1 and 2, GEMM 1024×768 @ 768×768, and this machine's FMA peak, timed with
// std::chrono. Not a test: `attn_bench` prints a table and JSON; `attn_bench --serve` answers one line of
// JSON per command read from stdin (scripts/bench.mjs drives it in rounds beside the other implementations).
//   commands: peak | peak-muladd | gemm | mha <batch> | first <batch> | quit
// One thread unless `--threads N` (before the other arguments) says how many the core may use.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/parallel.hpp"
#include "kernels/kernels.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

constexpr int64_t T = 1024, D = 768, HEADS = 12;

// FLOPs, counting a multiply-add as 2 and only the causal half of the scores and of the weighted sum.
double mha_flop(int64_t batch) {
    const double projections = 4.0 * 2.0 * batch * T * D * D;
    const double attention = 2.0 * 2.0 * batch * HEADS * (T * (T + 1) / 2.0) * (D / HEADS);
    return projections + attention;
}
constexpr double kGemmFlop = 2.0 * 1024 * 768 * 768;

// The FMA peak of one core: 12 independent chains a = a·m + c (AVX-512 where the CPU has it, else AVX2), in
// named variables so that they stay in registers; and the same chains as a separate multiply and add (the
// exact GEMM's arithmetic), for reference.
#define ATTN_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define ATTN_PEAK_LOOP(NAME, TARGET, V, SET1, STEP, ADD, LANES)                       \
    __attribute__((target(TARGET), noinline)) float NAME(int64_t n, float x) {      \
        ATTN_CHAINS(DECLARE)                                                         \
        const V m = SET1(0.999999f), c = SET1(1e-6f);                                \
        for (int64_t k = 0; k < n; ++k) { ATTN_CHAINS(STEP) }                        \
        V s = a0;                                                                    \
        ATTN_CHAINS(SUM)                                                             \
        float out[LANES];                                                            \
        std::memcpy(out, &s, sizeof out);                                            \
        return out[0];                                                               \
    }
#define DECLARE_512(i) __m512 a##i = _mm512_set1_ps(x * (i + 1));
#define DECLARE_256(i) __m256 a##i = _mm256_set1_ps(x * (i + 1));
#define FMA_512(i) a##i = _mm512_fmadd_ps(a##i, m, c);
#define FMA_256(i) a##i = _mm256_fmadd_ps(a##i, m, c);
#define MULADD_512(i) a##i = _mm512_add_ps(_mm512_mul_ps(a##i, m), c);
#define MULADD_256(i) a##i = _mm256_add_ps(_mm256_mul_ps(a##i, m), c);
#define SUM_512(i) s = _mm512_add_ps(s, a##i);
#define SUM_256(i) s = _mm256_add_ps(s, a##i);

#define DECLARE DECLARE_512
#define SUM SUM_512
ATTN_PEAK_LOOP(fma_loop_avx512, "avx512f,fma", __m512, _mm512_set1_ps, FMA_512, _mm512_add_ps, 16)
ATTN_PEAK_LOOP(muladd_loop_avx512, "avx512f", __m512, _mm512_set1_ps, MULADD_512, _mm512_add_ps, 16)
#undef DECLARE
#undef SUM
#define DECLARE DECLARE_256
#define SUM SUM_256
ATTN_PEAK_LOOP(fma_loop_avx2, "avx2,fma", __m256, _mm256_set1_ps, FMA_256, _mm256_add_ps, 8)
ATTN_PEAK_LOOP(muladd_loop_avx2, "avx2", __m256, _mm256_set1_ps, MULADD_256, _mm256_add_ps, 8)
#undef DECLARE
#undef SUM

struct Peak {
    double ms, gflops;
    const char* isa;
};

Peak peak(bool fused) {
    const bool avx512 = __builtin_cpu_supports("avx512f");
    const int64_t n = 4000000;
    const int lanes = avx512 ? 16 : 8;
    volatile float sink = 0;
    const auto t0 = Clock::now();
    if (fused) sink = avx512 ? fma_loop_avx512(n, 0.5f) : fma_loop_avx2(n, 0.5f);
    else sink = avx512 ? muladd_loop_avx512(n, 0.5f) : muladd_loop_avx2(n, 0.5f);
    const double ms = ms_since(t0);
    (void)sink;
    return {ms, 2.0 * lanes * 12 * static_cast<double>(n) / ms / 1e6, avx512 ? "avx512" : "avx2"};
}

// The GPT-2-size module and its input, built once per batch size.
struct Model {
    explicit Model(int64_t batch) : mha((attn::manual_seed(123), D), D, T, 0.0, HEADS) {
        mha.eval();
        x = attn::rand({batch, T, D});
    }
    attn::nn::MultiHeadAttention mha;
    attn::Tensor x;
};

struct Gemm {
    Gemm() : a(attn::rand({1024, 768})), b(attn::rand({768, 768})) {}
    attn::Tensor a, b;
};

double time_mha(Model& m) {
    const auto t0 = Clock::now();
    const attn::Tensor y = m.mha(m.x);
    return ms_since(t0);
}

double time_gemm(Gemm& g) {
    const auto t0 = Clock::now();
    const attn::Tensor c = attn::matmul(g.a, g.b);
    return ms_since(t0);
}

std::string json_result(double ms, double flop) {
    std::ostringstream out;
    out << "{\"ms\":" << ms << ",\"gflops\":" << flop / ms / 1e6 << "}";
    return out.str();
}

int serve() {
    std::unique_ptr<Model> models[3];
    Gemm gemm;
    std::string line;
    std::cout << "{\"ready\":true,\"kernels\":\"" << attn::kernels::active().name
              << "\",\"threads\":" << attn::get_num_threads() << "}" << std::endl;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        int64_t batch = 1;
        in >> cmd >> batch;
        if (cmd == "quit") break;
        if (cmd == "peak" || cmd == "peak-muladd") {
            const Peak p = peak(cmd == "peak");
            std::cout << "{\"ms\":" << p.ms << ",\"gflops\":" << p.gflops << ",\"isa\":\"" << p.isa << "\"}" << std::endl;
        } else if (cmd == "gemm") {
            std::cout << json_result(time_gemm(gemm), kGemmFlop) << std::endl;
        } else if ((cmd == "mha" || cmd == "first") && (batch == 1 || batch == 2)) {
            if (cmd == "first" || !models[batch]) models[batch] = std::make_unique<Model>(batch);
            std::cout << json_result(time_mha(*models[batch]), mha_flop(batch)) << std::endl;
        } else {
            std::cout << "{\"error\":\"unknown command\"}" << std::endl;
        }
    }
    return 0;
}

struct Stats {
    double median, min, max;
};
Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
    attn::set_num_threads(1);
    if (argc > 2 && std::strcmp(argv[1], "--threads") == 0) {
        attn::set_num_threads(std::max(1, std::atoi(argv[2])));
        argc -= 2;
        argv += 2;
    }
    if (argc > 1 && std::strcmp(argv[1], "--serve") == 0) return serve();
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;

    Model one(1), two(2);
    Gemm gemm;
    const double first1 = time_mha(one);
    std::vector<double> p, pm, g, m1, m2;
    for (int r = 0; r < rounds; ++r) {  // each round runs every case once, so they share the machine's state
        p.push_back(peak(true).gflops);
        pm.push_back(peak(false).gflops);
        g.push_back(time_gemm(gemm));
        m1.push_back(time_mha(one));
        m2.push_back(time_mha(two));
    }
    const Stats sp = stats(p), spm = stats(pm), sg = stats(g), s1 = stats(m1), s2 = stats(m2);
    std::printf("attn_bench: kernels %s, %lld thread(s), %d rounds, medians (min..max)\n", attn::kernels::active().name,
                static_cast<long long>(attn::get_num_threads()), rounds);
    std::printf("  FMA peak        %7.1f GFLOP/s   (mul+add peak %.1f)\n", sp.median, spm.median);
    std::printf("  GEMM 1024x768x768 %7.2f ms (%.2f..%.2f)  %6.1f GFLOP/s  %5.1f%% of FMA peak\n", sg.median, sg.min,
                sg.max, kGemmFlop / sg.median / 1e6, 100.0 * kGemmFlop / sg.median / 1e6 / sp.median);
    std::printf("  MHA B=1         %7.2f ms (%.2f..%.2f)  %6.1f GFLOP/s  first call %.2f ms\n", s1.median, s1.min,
                s1.max, mha_flop(1) / s1.median / 1e6, first1);
    std::printf("  MHA B=2         %7.2f ms (%.2f..%.2f)  %6.1f GFLOP/s  B=2 / B=1 = %.2f\n", s2.median, s2.min, s2.max,
                mha_flop(2) / s2.median / 1e6, s2.median / s1.median);
    std::printf("{\"kernels\":\"%s\",\"peak_gflops\":%.2f,\"peak_muladd_gflops\":%.2f,\"gemm_ms\":%.3f,"
                "\"mha_b1_ms\":%.3f,\"mha_b2_ms\":%.3f,\"mha_b1_first_ms\":%.3f}\n",
                attn::kernels::active().name, sp.median, spm.median, sg.median, s1.median, s2.median, first1);
    return 0;
}
