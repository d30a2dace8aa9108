#pragma once
// Causal attention of one head on SIMD lanes, the fast path (attention_causal and its fused form;
// references in reference.cpp): scores and context with the GEMM's packed register block, an online
// softmax with the fast exp, and each tile's weights summed in a fixed tree of 16 lanes.
#include "simd_exp.hpp"
#include "simd_gemm.hpp"

namespace attn::kernels {
namespace {  // internal linkage: see simd_common.hpp

// The end of tile_sum: 16 lanes held as 16/W vectors meet in the tree lane x += lane x + w, w = 8, 4, 2, 1;
// the steps inside one vector run on its stored lanes.
template <class Arch>
float lane_tree(Vec<Arch>* acc) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    static_assert((kAttentionLanes / W) * W == kAttentionLanes, "16 lanes must be whole vectors");
    int64_t w = kAttentionLanes / 2;
    for (; w >= W; w /= 2)
        for (int64_t g = 0; g < w / W; ++g) acc[g] = acc[g] + acc[g + w / W];
    float lanes[W];
    acc[0].store_unaligned(lanes);
    for (; w >= 1; w /= 2)
        for (int64_t x = 0; x < w; ++x) lanes[x] = lanes[x] + lanes[x + w];
    return lanes[0];
}

// Causal attention of one head (kernels.hpp; the order is reference.cpp's). Per block of query rows and
// key tile: scores with the packed GEMM's register block against Kᵀ (keys in the lanes), then each row's
// online softmax step, then the context with the same block accumulating into the block's o. Fused: each
// term of both products is one FMA (attention_causal_fused).
//
// The operands are laid out the way packed_kernel streams them, so its k loop advances by constants (V8
// then unrolls it): the query block as slivers of MR rows, K and V per key tile as panels of NR columns,
// and the weights read in place (their row length, BC, is a constant). Keys past T and columns past d are
// zeros; the extra terms they add are +0·0 = +0, which leaves every running sum's bits as they were (o
// starts at +0 and is never −0).
// The sizes of attention_causal's buffers, in floats (each a whole number of 64-byte lines, so that every
// part stays aligned): per head, K and V packed by key tile; per block of queries, its scores, its running
// context and its packed queries.
template <class Arch>
struct AttentionSizes {
    static constexpr int MR = SmallBlocking<Arch>::MR;
    static constexpr int64_t NR = SmallBlocking<Arch>::NV * Vec<Arch>::size, BR = kAttentionRows,
                             BC = kAttentionKeys;
    static_assert(BC % NR == 0, "a key tile must be whole panels");
    static constexpr int64_t BRP = (BR + MR - 1) / MR * MR;  // the query block padded to whole slivers
    static int64_t tiles(int64_t T) { return (T + BC - 1) / BC; }
    static int64_t padded(int64_t d) { return (d + NR - 1) / NR * NR; }  // o's row length: d in whole panels
    static int64_t keys(int64_t T, int64_t d) { return tiles(T) * BC * d; }
    static int64_t keys_values(int64_t T, int64_t d) { return tiles(T) * BC * (d + padded(d)); }
    static int64_t scores() { return BRP * BC; }
    static int64_t context(int64_t d) { return BRP * padded(d); }
    static int64_t queries(int64_t d) { return BRP * d; }
};

// K and V of one head laid out for the key tiles, key by key (zeros past T): its column of Kᵀ panel j/NR in
// kp, and its row of each V panel in vp. The scalar reference of pack_keys_values.
template <int64_t NR, int64_t BC>
void pack_keys_values_scalar(const float* k, int64_t ldk, const float* v, int64_t ldv, int64_t T, int64_t d,
                             float* kp, float* vp) {
    const int64_t tiles = (T + BC - 1) / BC, dp = (d + NR - 1) / NR * NR;
    for (int64_t j = 0; j < tiles * BC; ++j) {
        const bool real = j < T;
        float* kdst = kp + (j / NR) * NR * d + j % NR;
        ATTN_SCALAR_LOOP
        for (int64_t c = 0; c < d; ++c) kdst[c * NR] = real ? k[j * ldk + c] : 0.0f;
        float* vdst = vp + (j / BC) * BC * dp + (j % BC) * NR;
        for (int64_t c0 = 0; c0 < dp; c0 += NR, vdst += BC * NR) {
            const int64_t n = real ? min_i64(NR, d - c0) : 0;
            for (int64_t x = 0; x < n; ++x) vdst[x] = v[j * ldv + c0 + x];
            for (int64_t x = n; x < NR; ++x) vdst[x] = 0.0f;
        }
    }
}

// pack_keys_values_scalar's layout: K's rows go 4 keys × 4 columns at a time through transpose_4x4 (4 keys
// of a panel sit side by side in each of its rows), V's rows are copied a vector at a time; the keys left
// (T mod 4, and past T) and K's last d mod 4 columns as the scalar reference copies them.
template <class Arch, int64_t NR, int64_t BC>
void pack_keys_values(const float* k, int64_t ldk, const float* v, int64_t ldv, int64_t T, int64_t d, float* kp,
                      float* vp) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    static_assert(NR % 4 == 0 && NR % W == 0 && BC % NR == 0, "a panel must be whole groups of 4 keys and vectors");
    const int64_t tiles = (T + BC - 1) / BC, dp = (d + NR - 1) / NR * NR, d4 = d / 4 * 4;
    int64_t j = 0;
    for (; j + 4 <= T; j += 4) {  // j mod 4 = 0, so the 4 keys share a panel
        float* kdst = kp + (j / NR) * NR * d + j % NR;
        for (int64_t c = 0; c < d4; c += 4) transpose_4x4(k + j * ldk + c, ldk, kdst + c * NR, NR);
        for (int64_t x = 0; x < 4; ++x) {
            ATTN_SCALAR_LOOP
            for (int64_t c = d4; c < d; ++c) kdst[c * NR + x] = k[(j + x) * ldk + c];
        }
    }
    for (int64_t jj = j; jj < tiles * BC; ++jj) {
        const bool real = jj < T;
        float* kdst = kp + (jj / NR) * NR * d + jj % NR;
        ATTN_SCALAR_LOOP
        for (int64_t c = 0; c < d; ++c) kdst[c * NR] = real ? k[jj * ldk + c] : 0.0f;
    }
    for (j = 0; j < tiles * BC; ++j) {
        const float* src = j < T ? v + j * ldv : v;
        float* vdst = vp + (j / BC) * BC * dp + (j % BC) * NR;
        const int64_t n = j < T ? d : 0;  // V's values in this key's row, then zeros to dp
        for (int64_t c0 = 0; c0 < dp; c0 += NR, vdst += BC * NR) {
            int64_t x = 0;
            for (; x + W <= n - c0 && x < NR; x += W) V::load_unaligned(src + c0 + x).store_unaligned(vdst + x);
            ATTN_SCALAR_LOOP
            for (; x < NR; ++x) vdst[x] = c0 + x < n ? src[c0 + x] : 0.0f;
        }
    }
}

// One block of query rows, i0 to i0 + BR (or T), of one head: every key tile up to the diagonal against the
// packed K and V, into out's rows. s, o and qp: the block's scores, context and packed queries.
template <class Arch, bool Fused>
void attend_query_block(const float* q, int64_t ldq, const float* kp, const float* vp, float* out, int64_t ldo,
                        int64_t T, int64_t d, float scale, int64_t i0, float* s, float* o, float* qp) {
    using V = Vec<Arch>;
    using Bk = SmallBlocking<Arch>;
    constexpr int MR = Bk::MR;
    constexpr int64_t W = V::size, NR = Bk::NV * W, BR = kAttentionRows, BC = kAttentionKeys;
    const float neg_inf = bits_to_float(0xff800000);
    const int64_t dp = AttentionSizes<Arch>::padded(d);
    alignas(64) float m[BR], m_new[BR], alpha[BR];  // per row of the block: the max so far, the new one
    float l[BR];
    const V scale_v(scale), neg_inf_v(neg_inf);
    // x / scale is x · (1/scale), bit for bit, when scale is a power of two (head_dim 4, 16, 64, 256…): the
    // quotient and the product are the same real number, rounded once.
    const float inverse = 1.0f / scale;
    const bool divide = !(inverse * scale == 1.0f && (bits_of(scale) & 0x7fffffu) == 0);
    const V inverse_v(inverse);

    const int64_t br = min_i64(BR, T - i0);
    const int64_t slivers = (br + MR - 1) / MR;
    pack_a<MR>(q + i0 * ldq, ldq, br, d, qp);
    for (int64_t x = 0; x < slivers * MR * dp; ++x) o[x] = 0.0f;
    for (int64_t r = 0; r < BR; ++r) {  // rows past br stay finite: their alphas are computed, never used
        m[r] = r < br ? neg_inf : 0.0f;
        m_new[r] = 0.0f;
        l[r] = 0.0f;
    }
    for (int64_t j0 = 0; j0 < i0 + br; j0 += BC) {
        const int64_t jn = min_i64(BC, T - j0);
        // pass 1: scores, s = (Q Kᵀ) / scale, then -inf above the diagonal and past T
        const float* ktile = kp + (j0 / BC) * BC * d;
        for (int64_t p = 0; p < BC / NR; ++p)
            for (int64_t x = 0; x < slivers; ++x)
                packed_kernel<Arch, MR, Bk::NV, Fused>(qp + x * d * MR, ktile + p * d * NR, d,
                                                       s + x * MR * BC + p * NR, BC, true, nullptr);
        for (int64_t r = 0; r < br; ++r) {
            float* sr = s + r * BC;
            V row_max = neg_inf_v;
            for (int64_t t = 0; t < BC; t += W) {
                const V x = divide ? V::load_aligned(sr + t) / scale_v : V::load_aligned(sr + t) * inverse_v;
                x.store_aligned(sr + t);
                row_max = xsimd::max(row_max, x);
            }
            const int64_t visible = min_i64(jn, i0 + r - j0 + 1);  // keys j ≤ i inside T
            if (visible < BC) {  // a tile on the diagonal, or the last one
                for (int64_t t = visible < 0 ? 0 : visible; t < BC; ++t) sr[t] = neg_inf;
                row_max = neg_inf_v;
                for (int64_t t = 0; t < BC; t += W) row_max = xsimd::max(row_max, V::load_aligned(sr + t));
            }
            // the row max is exact whatever the order of its comparisons
            float lanes[W];
            row_max.store_unaligned(lanes);
            float tile_max = neg_inf;
            for (int64_t x_ = 0; x_ < W; ++x_) tile_max = lanes[x_] > tile_max ? lanes[x_] : tile_max;
            m_new[r] = tile_max > m[r] ? tile_max : m[r];
        }
        // pass 2: weights. First every row's alpha = E(m − m'), W rows at a time (1 while m' is -inf)...
        for (int64_t r = 0; r < br; r += W)
            exp_fast_vec<Arch>(V::load_aligned(m + r) - V::load_aligned(m_new + r)).store_aligned(alpha + r);
        for (int64_t r = 0; r < br; ++r) {
            float* sr = s + r * BC;
            if (m_new[r] == neg_inf) {
                alpha[r] = 1.0f;
                for (int64_t t = 0; t < BC; ++t) sr[t] = 0.0f;
                l[r] = l[r] * alpha[r] + 0.0f;
            } else {
                // ... then p = E(s − m'), summed as it is made into the tile's 16 lanes (tile_sum's order)
                constexpr int64_t G = kAttentionLanes / W;
                const V mv(m_new[r]);
                V acc[G];
                for (int64_t t = 0; t < BC; t += W) {
                    const V p = exp_fast_nonpositive<Arch>(V::load_aligned(sr + t) - mv);
                    p.store_aligned(sr + t);
                    const int64_t g = (t / W) % G;
                    acc[g] = t < kAttentionLanes ? p : acc[g] + p;
                }
                l[r] = l[r] * alpha[r] + lane_tree<Arch>(acc);
            }
            m[r] = m_new[r];
            // pass 3, first half: o = o · alpha (o · 1 is o: nothing to do)
            if (alpha[r] != 1.0f) {
                float* orow = o + r * dp;
                const V av(alpha[r]);
                for (int64_t c = 0; c < dp; c += W) (V::load_aligned(orow + c) * av).store_aligned(orow + c);
            }
        }
        // pass 3: o += P · V over the tile's keys, in order (P's rows read in place: rows past br hold
        // the +0 scores of zero queries)
        const float* vtile = vp + (j0 / BC) * BC * dp;
        for (int64_t p = 0; p < dp / NR; ++p)
            for (int64_t x = 0; x < slivers; ++x)
                packed_kernel<Arch, MR, Bk::NV, Fused, BC, 1>(s + x * MR * BC, vtile + p * BC * NR, BC,
                                                              o + x * MR * dp + p * NR, dp, false, nullptr);
    }
    for (int64_t r = 0; r < br; ++r) {
        const float* orow = o + r * dp;
        float* dst = out + (i0 + r) * ldo;
        const V lv(l[r]);
        int64_t c = 0;
        for (; c + W <= d; c += W) (V::load_aligned(orow + c) / lv).store_unaligned(dst + c);
        for (; c < d; ++c) dst[c] = orow[c] / l[r];
    }
}

template <class Arch, bool Fused = false>
void attention_causal(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv,
                      float* out, int64_t ldo, int64_t T, int64_t d, float scale) {
    using S = AttentionSizes<Arch>;
    if (T <= 0 || d <= 0) return;
    Scratch buffer(S::scores() + S::context(d) + S::keys_values(T, d) + S::queries(d));
    float* s = buffer.data();  // the tile of scores, then of weights, as rows of BC (read in place by pass 3)
    float* o = s + S::scores();  // the block's running context, rows of dp
    float* kp = o + S::context(d);  // per tile, Kᵀ as panels [BC/NR][d][NR]
    float* vp = kp + S::keys(T, d);  // per tile, V as panels [dp/NR][BC][NR]
    float* qp = vp + S::keys_values(T, d) - S::keys(T, d);  // the query block packed as slivers [BRP/MR][d][MR]
    pack_keys_values<Arch, S::NR, S::BC>(k, ldk, v, ldv, T, d, kp, vp);
    for (int64_t i0 = 0; i0 < T; i0 += S::BR)
        attend_query_block<Arch, Fused>(q, ldq, kp, vp, out, ldo, T, d, scale, i0, s, o, qp);
}

// From this much work (heads × T² × d) the heads' attention is split over the threads.
constexpr int64_t kParallelAttentionWork = int64_t{1} << 20;

// attention_causal of every head of q, k, v [batch, T, heads·d] into out (kernels.hpp). On one thread, head
// after head. On several, per batch entry: the heads' K and V packed (a task per head), then the tasks
// (head, query block), longest first (a block's work grows with its index), each one attend_query_block as
// attention_causal runs it: the same bits on any number of threads.
template <class Arch, bool Fused>
void attention_heads(const float* q, const float* k, const float* v, float* out, int64_t batch, int64_t T,
                     int64_t heads, int64_t d, float scale) {
    using S = AttentionSizes<Arch>;
    const int64_t width = heads * d;
    if (T <= 0 || d <= 0) return;
    if (attn::get_num_threads() <= 1 || heads * T * T * d < kParallelAttentionWork) {
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t h = 0; h < heads; ++h) {
                const int64_t at = b * T * width + h * d;
                attention_causal<Arch, Fused>(q + at, width, k + at, width, v + at, width, out + at, width, T, d,
                                              scale);
            }
        return;
    }
    Scratch packed(heads * S::keys_values(T, d));
    struct Job {
        const float *q, *k, *v;
        float *out, *packed;
        int64_t T, d, heads, width, blocks;
        float scale;
    } job{nullptr, nullptr, nullptr, nullptr, packed.data(), T, d, heads, width, (T + S::BR - 1) / S::BR, scale};
    for (int64_t b = 0; b < batch; ++b) {
        job.q = q + b * T * width;
        job.k = k + b * T * width;
        job.v = v + b * T * width;
        job.out = out + b * T * width;
        attn::parallel::run_tasks(
            heads,
            [](void* context, int64_t h) {
                const Job& j = *static_cast<const Job*>(context);
                float* kp = j.packed + h * S::keys_values(j.T, j.d);
                pack_keys_values<Arch, S::NR, S::BC>(j.k + h * j.d, j.width, j.v + h * j.d, j.width, j.T, j.d, kp,
                                                     kp + S::keys(j.T, j.d));
            },
            &job);
        attn::parallel::run_tasks(
            heads * job.blocks,
            [](void* context, int64_t task) {
                const Job& j = *static_cast<const Job*>(context);
                const int64_t h = task % j.heads, i0 = (j.blocks - 1 - task / j.heads) * S::BR;
                const float* kp = j.packed + h * S::keys_values(j.T, j.d);
                Scratch buffer(S::scores() + S::context(j.d) + S::queries(j.d));
                float* s = buffer.data();
                float* o = s + S::scores();
                attend_query_block<Arch, Fused>(j.q + h * j.d, j.width, kp, kp + S::keys(j.T, j.d),
                                                j.out + h * j.d, j.width, j.T, j.d, j.scale, i0, s, o,
                                                o + S::context(j.d));
            },
            &job);
    }
}

}  // namespace
}  // namespace attn::kernels
