// The thread pool (attn/parallel.hpp): the packed GEMM, the heads' attention and MultiHeadAttention give the
// same bits on 1, 2, 3 and 8 threads, at sizes that cross every tile edge (rows past the threads' 48-row
// blocks, columns past a 768-column block, k past a 256-term block, T past the 64-query blocks); and the
// checks on set_num_threads. Each case also checks that the threaded split was taken.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/parallel.hpp"
#include "kernels/kernels.hpp"
#include "support.hpp"

using attn::Tensor;
using attn::kernels::Table;
using test::difference;
using test::normal;

namespace {

constexpr int64_t kThreadCounts[] = {2, 3, 8};

// Sets the number of threads for a scope, then puts back what was there.
class ThreadsFor {
public:
    explicit ThreadsFor(int64_t n) : before_(attn::get_num_threads()) { attn::set_num_threads(n); }
    ~ThreadsFor() { attn::set_num_threads(before_); }
    ThreadsFor(const ThreadsFor&) = delete;
    ThreadsFor& operator=(const ThreadsFor&) = delete;

private:
    int64_t before_;
};

// compute() on one thread, then on each of kThreadCounts: the same bits, the work split between threads.
template <class Compute>
void check_same_bits(Compute compute) {
    std::vector<float> one;
    {
        ThreadsFor threads(1);
        const int64_t runs = attn::parallel::split_runs();
        one = compute();
        CHECK(attn::parallel::split_runs() == runs);  // one thread: the pool stays out
    }
    for (const int64_t n : kThreadCounts) {
        INFO(n << " threads");
        ThreadsFor threads(n);
        const int64_t runs = attn::parallel::split_runs();
        CHECK(difference(one, compute()) == "");
        CHECK(attn::parallel::split_runs() > runs);
    }
}

struct GemmCase {
    int64_t M, N, K;
    bool transposed, bias;
};

}  // namespace

TEST_CASE("set_num_threads takes 1 to 256 threads and names anything else", "[threads]") {
    const int64_t before = attn::get_num_threads();
    CHECK(before >= 1);
    for (const int64_t bad : {int64_t{0}, int64_t{-1}, int64_t{257}}) {
        INFO(bad);
        CHECK_THROWS_MATCHES(attn::set_num_threads(bad), attn::Error,
                             Catch::Matchers::Message("set_num_threads: the number of threads must be an integer "
                                                      "from 1 to 256, got " +
                                                      std::to_string(bad)));
    }
    CHECK(attn::get_num_threads() == before);  // unchanged by a refusal
    {
        ThreadsFor threads(3);
        CHECK(attn::get_num_threads() == 3);
    }
    CHECK(attn::get_num_threads() == before);
    CHECK(attn::has_threads());
}

TEST_CASE("the packed GEMM has the same bits on 1, 2, 3 and 8 threads", "[threads][gemm]") {
    std::mt19937 rng(24);
    // 301 rows: six 48-row blocks and a 13-row one; 770 columns: a 768-column block and 2; K 517: three k
    // blocks, the last of 5 terms. nn.Linear's W.T (transposed) with a bias, and a plain B.
    for (const GemmCase& c : {GemmCase{301, 200, 517, true, true}, GemmCase{130, 96, 96, true, true},
                              GemmCase{97, 770, 260, false, false}, GemmCase{50, 131, 300, false, true}}) {
        INFO("M=" << c.M << " N=" << c.N << " K=" << c.K << (c.transposed ? " B transposed" : ""));
        const auto A = normal(rng, static_cast<size_t>(c.M * c.K));
        const auto B = normal(rng, static_cast<size_t>(c.K * c.N));
        const auto bias = normal(rng, static_cast<size_t>(c.N));
        const int64_t rsb = c.transposed ? 1 : c.N, csb = c.transposed ? c.K : 1;
        for (const Table* t : test::simd_tables()) {
            for (const bool fused : {false, true}) {
                const auto gemm = fused ? t->gemm_fused : t->gemm;
                if (!gemm) continue;
                INFO(t->name << (fused ? " gemm_fused" : " gemm"));
                check_same_bits([&] {
                    std::vector<float> C(static_cast<size_t>(c.M * c.N), -1.0f);
                    gemm(A.data(), c.K, B.data(), rsb, csb, c.bias ? bias.data() : nullptr, C.data(), c.N, c.M, c.N,
                         c.K);
                    return C;
                });
            }
        }
    }
}

TEST_CASE("the heads' attention has the same bits on 1, 2, 3 and 8 threads as attention_causal", "[threads][fast]") {
    std::mt19937 rng(7);
    struct Case {
        int64_t batch, T, heads, d;
    };
    // 130 tokens: two whole query blocks and 2 rows; d 8 and 36 (not whole panels); two batch entries.
    for (const Case& c : {Case{2, 130, 12, 8}, Case{1, 200, 3, 36}}) {
        INFO("batch=" << c.batch << " T=" << c.T << " heads=" << c.heads << " d=" << c.d);
        const size_t n = static_cast<size_t>(c.batch * c.T * c.heads * c.d);
        const auto q = normal(rng, n), k = normal(rng, n), v = normal(rng, n);
        const float scale = 2.8284271f;
        const int64_t width = c.heads * c.d;
        for (const Table* t : test::simd_tables()) {
            for (const bool fused : {false, true}) {
                const auto head = fused ? t->attention_causal_fused : t->attention_causal;
                if (!head) continue;
                INFO(t->name << (fused ? " fused" : ""));
                // the single-thread kernel, head by head
                std::vector<float> each(n, -1.0f);
                for (int64_t b = 0; b < c.batch; ++b)
                    for (int64_t h = 0; h < c.heads; ++h) {
                        const int64_t at = b * c.T * width + h * c.d;
                        head(q.data() + at, width, k.data() + at, width, v.data() + at, width, each.data() + at, width,
                             c.T, c.d, scale);
                    }
                const auto heads = [&] {
                    std::vector<float> out(n, -1.0f);
                    t->attention_causal_heads(q.data(), k.data(), v.data(), out.data(), c.batch, c.T, c.heads, c.d,
                                              scale, fused);
                    return out;
                };
                {
                    ThreadsFor threads(1);
                    CHECK(difference(each, heads()) == "");
                }
                check_same_bits(heads);
            }
        }
    }
}

TEST_CASE("MultiHeadAttention has the same bits on 1, 2, 3 and 8 threads", "[threads][modules]") {
    attn::manual_seed(123);
    attn::nn::MultiHeadAttention mha(96, 96, 130, 0.0, 12, true);
    const Tensor x = attn::rand({2, 130, 96});
    for (const auto path : {attn::nn::AttentionPath::Fast, attn::nn::AttentionPath::Exact}) {
        INFO(attn::nn::attention_path_name(path));
        mha.set_attention_path(path);
        check_same_bits([&] { return mha(x).to_vector(); });
    }
}
