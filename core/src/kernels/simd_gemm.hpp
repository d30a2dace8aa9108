#pragma once
// Matrix products on SIMD lanes: matmul, gemm and gemm_fused (references matmul, gemm, gemm_fused_ref in
// reference.cpp). A small driver reads A and B in place, a packed one serves large products; the sizes of
// the register blocks come from each simd_<arch>.cpp (Blocking, SmallBlocking).
#include <xmmintrin.h>  // transpose_4x4: SSE on x86, wasm SIMD128 through Emscripten

#include <array>
#include <utility>

#include "attn/parallel.hpp"
#include "simd_elementwise.hpp"

namespace attn::kernels {
namespace {  // internal linkage: see simd_common.hpp

// Matmul: C[M,N] = A[M,K] · B[K,N], every C[i][j] the running sum ((0 + a_i0·b_0j) + a_i1·b_1j) + …
//
// SIMD lanes hold neighbouring columns j, so each lane is one output's own running sum over k: broadcast
// a_ik, multiply by the row of B, add — a separate multiply and add, never an FMA. Any blocking of i, j
// and k keeps those sums exact, as long as each k block starts from the C that the previous one left.
//
// Two drivers share the register blocks:
//   small products (the chapter's, the attention tiles): A and B read in place (micro_kernel);
//   large ones (gemm): B packed into panels of NR columns and A into slivers of MR rows, so that the
//   micro-kernel streams both from contiguous memory (packed_kernel), with nn.Linear's bias added to
//   the finished sums.

// Register blocks: MR rows × NV vectors of columns, so MR·NV accumulators plus NV vectors of B, a
// broadcast of A and a product fit the arch's registers (each simd_<arch>.cpp gives its own, chosen by
// timing 1024×768 @ 768×768).
template <class Arch>
struct Blocking;

// The small driver's register blocks: the same unless the arch says otherwise (AVX-512 does, so that the
// attention tiles, 64 wide, split into whole blocks).
template <class Arch>
struct SmallBlocking : Blocking<Arch> {};

// Cache blocks of the packed driver, the same for every arch (multiples of every MR and NR): a packed
// B block of KC × NC floats (768 KB) stays in L2, and a packed A block of MC × KC (96 KB) beside it.
struct CacheBlocks {
    static constexpr int64_t KC = 256;
    static constexpr int64_t MC = 96;
    static constexpr int64_t NC = 768;
};

// C[mr, NV·W] (+)= A[mr, kc] · B[kc, NV·W], A and B read in place: the register block of the small driver.
// Starts from +0 (first k block) or from C.
template <class Arch, int MR, int NV>
void micro_kernel(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t kc,
                  bool from_zero) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    V acc[MR][NV];
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = from_zero ? V(0.0f) : V::load_unaligned(C + r * ldc + v * W);

    // One step of k per iteration, pointers advanced (see packed_kernel below).
    const float* a = A;
    const float* b = B;
    for (int64_t k = 0; k < kc; ++k, ++a, b += ldb) {
        V bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = V::load_unaligned(b + v * W);
        for (int r = 0; r < MR; ++r) {
            const V av(a[r * lda]);
            for (int v = 0; v < NV; ++v) acc[r][v] = acc[r][v] + av * bv[v];  // product rounded, then sum rounded
        }
    }

    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
}

using MicroKernel = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, bool);

// micro_kernel_table<Arch>(…)[(mr − 1)·NV + (nv − 1)]: every block shape, for the row and column edges.
template <class Arch, std::size_t... I>
constexpr std::array<MicroKernel, sizeof...(I)> micro_kernel_table(std::index_sequence<I...>) {
    constexpr int NV = SmallBlocking<Arch>::NV;
    return {&micro_kernel<Arch, static_cast<int>(I) / NV + 1, static_cast<int>(I) % NV + 1>...};
}

// The small driver: C[M,N] = A·B, or C += A·B when `accumulate` (each sum carries on from C's value).
template <class Arch>
void matmul_small(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t M,
                  int64_t N, int64_t K, bool accumulate) {
    using Bk = SmallBlocking<Arch>;
    constexpr int64_t W = Vec<Arch>::size;
    constexpr int64_t KC = CacheBlocks::KC, NC = 512;
    static constexpr auto micro = micro_kernel_table<Arch>(std::make_index_sequence<Bk::MR * Bk::NV>{});
    const int64_t Nv = N / W * W;  // columns covered by whole vectors

    if (K == 0) {
        if (!accumulate)
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = 0.0f;
        return;
    }

    for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t kc = min_i64(KC, K - k0);
        for (int64_t j0 = 0; j0 < Nv; j0 += NC) {
            const int64_t j1 = min_i64(j0 + NC, Nv);
            for (int64_t i = 0; i < M; i += Bk::MR) {
                const int64_t mr = min_i64(Bk::MR, M - i);
                for (int64_t j = j0; j < j1; j += Bk::NV * W) {
                    const int64_t nv = min_i64(Bk::NV, (j1 - j) / W);
                    micro[(mr - 1) * Bk::NV + (nv - 1)](A + i * lda + k0, lda, B + k0 * ldb + j, ldb, C + i * ldc + j,
                                                        ldc, kc, k0 == 0 && !accumulate);
                }
            }
        }
    }

    // The last N mod W columns: the reference's running sum.
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = Nv; j < N; ++j) {
            float acc = accumulate ? C[i * ldc + j] : 0.0f;
            for (int64_t k = 0; k < K; ++k) acc = acc + A[i * lda + k] * B[k * ldb + j];
            C[i * ldc + j] = acc;
        }
}

template <class Arch>
void matmul(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t M, int64_t N,
            int64_t K) {
    matmul_small<Arch>(A, lda, B, ldb, C, ldc, M, N, K, false);
}

// C[MR, NR] (+)= Ap · Bp over kc: Ap is [kc][MR] (a sliver of A, k-major), Bp is [kc][NR] (a panel of B).
// Starts from +0 or from C; with `bias`, the finished sums get + bias[j] before they are stored.
// Fused: each term is one FMA (gemm_fused), else a multiply then an add (gemm, PyTorch's order).
//
// A's element (r, k) sits at Ap[r·RS + k·KS]: a sliver by default (RS = 1, KS = MR), or, with RS = row
// length and KS = 1, MR rows of a matrix whose row length is known at compile time, read in place.
template <class Arch, int MR, int NV, bool Fused, int64_t RS = 1, int64_t KS = MR>
void packed_kernel(const float* Ap, const float* Bp, int64_t kc, float* C, int64_t ldc, bool from_zero,
                   const float* bias) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size, NR = NV * W;
    V acc[MR][NV];
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = from_zero ? V(0.0f) : V::load_unaligned(C + r * ldc + v * W);

    // One step of k per iteration: NV vectors of B, MR broadcasts of A, pointers advanced by constants. (Unrolled
    // by hand, clang hoists every step's loads to the top and V8 then spills registers; V8 unrolls it itself.)
    const float* a = Ap;
    const float* b = Bp;
    for (int64_t k = 0; k < kc; ++k, a += KS, b += NR) {
        V bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = V::load_aligned(b + v * W);
        for (int r = 0; r < MR; ++r) {
            const V av(a[r * RS]);
            for (int v = 0; v < NV; ++v) {
                if constexpr (Fused) acc[r][v] = Fma<Arch>{}(av, bv[v], acc[r][v]);
                else acc[r][v] = acc[r][v] + av * bv[v];  // product rounded, then sum rounded
            }
        }
    }

    if (bias)
        for (int v = 0; v < NV; ++v) {
            const V bv = V::load_unaligned(bias + v * W);
            for (int r = 0; r < MR; ++r) acc[r][v] = acc[r][v] + bv;
        }
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
}

// dst[c·ldd + r] = src[r·lds + c] for r, c < 4: a 4 × 4 block transposed in registers (4 loads, 8 shuffles,
// 4 stores instead of 16 scalar loads and stores). SSE's 128-bit shuffles on every arch: Emscripten maps them
// onto wasm SIMD128 shuffles, which V8 compiles back to unpcklps/movlhps; AVX encodes them with VEX.
ATTN_INLINE void transpose_4x4(const float* src, int64_t lds, float* dst, int64_t ldd) {
    __m128 r0 = _mm_loadu_ps(src), r1 = _mm_loadu_ps(src + lds);
    __m128 r2 = _mm_loadu_ps(src + 2 * lds), r3 = _mm_loadu_ps(src + 3 * lds);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(dst, r0);
    _mm_storeu_ps(dst + ldd, r1);
    _mm_storeu_ps(dst + 2 * ldd, r2);
    _mm_storeu_ps(dst + 3 * ldd, r3);
}

// Ap[s][k][r] = A[(s·MR + r)·lda + k] for the mc × kc block: slivers of MR rows, k-major; rows past mc are 0.
// The scalar reference of pack_a (a test compares the two).
template <int MR>
void pack_a_scalar(const float* A, int64_t lda, int64_t mc, int64_t kc, float* Ap) {
    for (int64_t s = 0; s * MR < mc; ++s) {
        float* out = Ap + s * kc * MR;
        for (int r = 0; r < MR; ++r) {
            const int64_t row = s * MR + r;
            if (row < mc) {
                const float* a = A + row * lda;
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * MR + r] = a[k];
            } else {
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * MR + r] = 0.0f;
            }
        }
    }
}

// One panel of W interleaved lanes: out[k·W + j] = src[j·stride + k] for the n ≤ W sources j (each kc values
// long) and 0 for j ≥ n, 4 sources × 4 steps of k at a time through transpose_4x4; the last n mod 4 sources and
// kc mod 4 steps one value at a time. pack_a's rows of A and pack_b's columns of a transposed B are such sources.
template <int64_t W>
void pack_transposed_panel(const float* src, int64_t stride, int64_t n, int64_t kc, float* out) {
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        int64_t k = 0;
        for (; k + 4 <= kc; k += 4) transpose_4x4(src + j * stride + k, stride, out + k * W + j, W);
        ATTN_SCALAR_LOOP
        for (; k < kc; ++k)
            for (int64_t x = 0; x < 4; ++x) out[k * W + j + x] = src[(j + x) * stride + k];
    }
    for (; j < n; ++j) {
        ATTN_SCALAR_LOOP
        for (int64_t k = 0; k < kc; ++k) out[k * W + j] = src[j * stride + k];
    }
    for (; j < W; ++j) {
        ATTN_SCALAR_LOOP
        for (int64_t k = 0; k < kc; ++k) out[k * W + j] = 0.0f;
    }
}

// pack_a_scalar's copy, each panel of MR rows through pack_transposed_panel.
template <int MR>
void pack_a(const float* A, int64_t lda, int64_t mc, int64_t kc, float* Ap) {
    for (int64_t s = 0; s * MR < mc; ++s)
        pack_transposed_panel<MR>(A + s * MR * lda, lda, min_i64(MR, mc - s * MR), kc, Ap + s * kc * MR);
}

// Bp[p][k][c] = B[k·rsb + (p·NR + c)·csb] for the kc × nc block: panels of NR columns; columns past nc are 0.
// The scalar reference of pack_b.
template <int64_t NR>
void pack_b_scalar(const float* B, int64_t rsb, int64_t csb, int64_t kc, int64_t nc, float* Bp) {
    for (int64_t p = 0; p * NR < nc; ++p) {
        float* out = Bp + p * kc * NR;
        const int64_t cols = min_i64(NR, nc - p * NR);
        const float* b = B + p * NR * csb;
        if (csb == 1) {  // rows of B are contiguous
            for (int64_t k = 0; k < kc; ++k) {
                for (int64_t c = 0; c < cols; ++c) out[k * NR + c] = b[k * rsb + c];
                for (int64_t c = cols; c < NR; ++c) out[k * NR + c] = 0.0f;
            }
        } else {  // columns of B are contiguous when rsb = 1 (a transposed weight): read along them
            for (int64_t c = 0; c < cols; ++c) {
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * NR + c] = b[k * rsb + c * csb];
            }
            for (int64_t c = cols; c < NR; ++c) {
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * NR + c] = 0.0f;
            }
        }
    }
}

// pack_b_scalar's copy; a transposed B (rsb = 1: nn.Linear's W.T) goes through pack_transposed_panel, a panel
// of NR columns at a time.
template <int64_t NR>
void pack_b(const float* B, int64_t rsb, int64_t csb, int64_t kc, int64_t nc, float* Bp) {
    static_assert(NR % 4 == 0, "a panel must be whole groups of 4 columns");
    if (csb == 1 || rsb != 1) return pack_b_scalar<NR>(B, rsb, csb, kc, nc, Bp);
    for (int64_t p = 0; p * NR < nc; ++p)
        pack_transposed_panel<NR>(B + p * NR * csb, csb, min_i64(NR, nc - p * NR), kc, Bp + p * kc * NR);
}

// Below this many multiply-adds (or with too few rows to fill the register block), packing costs more
// than it saves: the small driver runs instead. The bits are the same either way.
constexpr int64_t kPackedMinWork = int64_t{1} << 18;

// From this many multiply-adds a packed product is split over the threads (attn::set_num_threads): below
// it, waking them costs more than it saves.
constexpr int64_t kParallelMinWork = int64_t{1} << 20;

// The threads' share of a packed product: blocks of this many rows of C (a multiple of every MR), each
// computed whole by one thread. Fixed, so that no sum depends on the number of threads.
constexpr int64_t kParallelRows = 48;

// One block of C, mc rows × nc columns at C, for one k block of kc terms: A's rows packed into Ap, then
// every register block against the packed panels of B (Bp, as pack_b leaves them). `first`: the sums start
// from +0; `last`: the bias (if any) is added to the finished sums. tile and tile_bias: MR × NR and NR floats.
template <class Arch, bool Fused>
void gemm_block(const float* A, int64_t lda, const float* Bp, const float* bias, float* C, int64_t ldc, int64_t mc,
                int64_t nc, int64_t kc, bool first, bool last, float* Ap, float* tile, float* tile_bias) {
    using Bk = Blocking<Arch>;
    constexpr int MR = Bk::MR;
    constexpr int64_t W = Vec<Arch>::size, NR = Bk::NV * W;
    pack_a<MR>(A, lda, mc, kc, Ap);
    for (int64_t jr = 0; jr < nc; jr += NR) {
        const int64_t nr = min_i64(NR, nc - jr);
        const float* bias_j = last && bias ? bias + jr : nullptr;
        if (bias_j && nr < NR) {
            for (int64_t c = 0; c < NR; ++c) tile_bias[c] = c < nr ? bias_j[c] : 0.0f;
            bias_j = tile_bias;
        }
        const float* panel = Bp + (jr / NR) * kc * NR;
        for (int64_t ir = 0; ir < mc; ir += MR) {
            const int64_t mr = min_i64(MR, mc - ir);
            float* c = C + ir * ldc + jr;
            const float* sliver = Ap + (ir / MR) * kc * MR;
            if (mr == MR && nr == NR) {
                packed_kernel<Arch, MR, Bk::NV, Fused>(sliver, panel, kc, c, ldc, first, bias_j);
                continue;
            }
            // An edge block runs whole on a copy; only its valid part goes back to C.
            if (!first)
                for (int64_t r = 0; r < mr; ++r)
                    for (int64_t x = 0; x < nr; ++x) tile[r * NR + x] = c[r * ldc + x];
            packed_kernel<Arch, MR, Bk::NV, Fused>(sliver, panel, kc, tile, NR, first, bias_j);
            for (int64_t r = 0; r < mr; ++r)
                for (int64_t x = 0; x < nr; ++x) c[r * ldc + x] = tile[r * NR + x];
        }
    }
}

// The packed product on several threads, one column block of NC at a time: first B's block is packed (its
// k blocks and groups of panels are the tasks), then blocks of kParallelRows rows of C are the tasks, each
// running gemm's loops over the k blocks (same k blocks, same register blocks: gemm's bits). Accumulate: the
// first k block starts from C's values instead of +0 (gemm_accumulate).
template <class Arch, bool Fused, bool Accumulate>
void gemm_parallel(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias, float* C,
                   int64_t ldc, int64_t M, int64_t N, int64_t K) {
    using CB = CacheBlocks;
    constexpr int MR = Blocking<Arch>::MR;
    constexpr int64_t W = Vec<Arch>::size, NR = Blocking<Arch>::NV * W;
    static_assert(kParallelRows % MR == 0, "a row block must be whole slivers");
    constexpr int64_t kPackPanels = 16;  // panels of B per packing task
    const int64_t k_blocks = (K + CB::KC - 1) / CB::KC;
    const int64_t block_floats = min_i64(CB::KC, K) * ((min_i64(CB::NC, N) + NR - 1) / NR * NR);
    Scratch packed(k_blocks * block_floats);

    struct Job {
        const float *A, *B, *bias;
        float *C, *Bp;
        int64_t lda, rsb, csb, ldc, M, K, jc, nc, k_blocks, block_floats, pack_groups;
    } job{A, B, bias, C, packed.data(), lda, rsb, csb, ldc, M, K, 0, 0, k_blocks, block_floats, 0};

    for (int64_t jc = 0; jc < N; jc += CB::NC) {
        job.jc = jc;
        job.nc = min_i64(CB::NC, N - jc);
        const int64_t panels = (job.nc + NR - 1) / NR;
        job.pack_groups = (panels + kPackPanels - 1) / kPackPanels;
        // pass 1: pack B[:, jc : jc + nc], task = (k block, group of panels)
        attn::parallel::run_tasks(
            k_blocks * job.pack_groups,
            [](void* context, int64_t task) {
                const Job& j = *static_cast<const Job*>(context);
                const int64_t pc = task / j.pack_groups * CB::KC, group = task % j.pack_groups;
                const int64_t kc = min_i64(CB::KC, j.K - pc), col = group * kPackPanels * NR;
                const int64_t cols = min_i64(kPackPanels * NR, j.nc - col);
                pack_b<NR>(j.B + pc * j.rsb + (j.jc + col) * j.csb, j.rsb, j.csb, kc, cols,
                           j.Bp + (pc / CB::KC) * j.block_floats + col * kc);
            },
            &job);
        // pass 2: C's row blocks, each over every k block in order
        attn::parallel::run_tasks(
            (job.M + kParallelRows - 1) / kParallelRows,
            [](void* context, int64_t task) {
                const Job& j = *static_cast<const Job*>(context);
                const int64_t ic = task * kParallelRows, mc = min_i64(kParallelRows, j.M - ic);
                Scratch buffer(CB::KC * kParallelRows + MR * NR + NR);
                float* Ap = buffer.data();
                float* tile = Ap + CB::KC * kParallelRows;
                for (int64_t pc = 0; pc < j.K; pc += CB::KC) {
                    const int64_t kc = min_i64(CB::KC, j.K - pc);
                    gemm_block<Arch, Fused>(j.A + ic * j.lda + pc, j.lda, j.Bp + (pc / CB::KC) * j.block_floats,
                                            j.bias ? j.bias + j.jc : nullptr, j.C + ic * j.ldc + j.jc, j.ldc, mc,
                                            j.nc, kc, pc == 0 && !Accumulate, pc + kc == j.K, Ap, tile, tile + MR * NR);
                }
            },
            &job);
    }
}

// gemm; with Accumulate, gemm_accumulate: every sum carries on from C's value instead of +0 (same blocks, so
// the same steps after that start).
template <class Arch, bool Fused = false, bool Accumulate = false>
void gemm(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias, float* C,
          int64_t ldc, int64_t M, int64_t N, int64_t K) {
    using Bk = Blocking<Arch>;
    using CB = CacheBlocks;
    constexpr int MR = Bk::MR;
    constexpr int64_t W = Vec<Arch>::size, NR = Bk::NV * W;
    if (M == 0 || N == 0) return;

    if (K == 0 || (!Fused && csb == 1 && (M < 2 * MR || N < NR || M * N * K < kPackedMinWork))) {
        matmul_small<Arch>(A, lda, B, rsb, C, ldc, M, N, K, Accumulate);
        if (bias) {
            for (int64_t i = 0; i < M; ++i) binary<Arch>(Binary::Add, C + i * ldc, bias, C + i * ldc, N);
        }
        return;
    }
    if (M > kParallelRows && M * N * K >= kParallelMinWork && attn::get_num_threads() > 1) {
        gemm_parallel<Arch, Fused, Accumulate>(A, lda, B, rsb, csb, bias, C, ldc, M, N, K);
        return;
    }

    // Packing buffers (the B panels are loaded aligned).
    Scratch buffer(CB::KC * (CB::NC + CB::MC) + MR * NR + NR);
    float* Bp = buffer.data();
    float* Ap = Bp + CB::KC * CB::NC;
    float* tile = Ap + CB::KC * CB::MC;  // an edge block, MR × NR
    float* tile_bias = tile + MR * NR;

    for (int64_t jc = 0; jc < N; jc += CB::NC) {
        const int64_t nc = min_i64(CB::NC, N - jc);
        for (int64_t pc = 0; pc < K; pc += CB::KC) {
            const int64_t kc = min_i64(CB::KC, K - pc);
            pack_b<NR>(B + pc * rsb + jc * csb, rsb, csb, kc, nc, Bp);
            for (int64_t ic = 0; ic < M; ic += CB::MC) {
                const int64_t mc = min_i64(CB::MC, M - ic);
                gemm_block<Arch, Fused>(A + ic * lda + pc, lda, Bp, bias ? bias + jc : nullptr, C + ic * ldc + jc, ldc,
                                        mc, nc, kc, pc == 0 && !Accumulate, pc + kc == K, Ap, tile, tile_bias);
            }
        }
    }
}

// C[M,N] += A·B as gemm_accumulate's running sums from C's values (B by strides, as gemm).
template <class Arch>
void gemm_accumulate(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, float* C, int64_t ldc,
                     int64_t M, int64_t N, int64_t K) {
    gemm<Arch, false, true>(A, lda, B, rsb, csb, nullptr, C, ldc, M, N, K);
}

}  // namespace
}  // namespace attn::kernels
