// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Paged decode attention: one query token per sequence, G = heads / kv_heads query heads per KV
// head. A block owns one (split, kv head, sequence): K and V of its token range are read once and
// serve all G query heads, so the kernel reads each KV byte once. Tiles of kTile tokens are
// gathered page by page into a cp.async ring `stages` deep (PageGather: the page numbers of a tile
// are read one tile before its copies are issued); each tile is
//   1. scores: thread (token pair, quarter of D) dots two K rows with the G queries held in
//      shared memory (fp32, pre-scaled by softmax scale * log2 e * the K scale);
//   2. online softmax: warp w owns heads w, w+4: running max m and sum l in registers;
//   3. P V: thread (8-element column chunk, token group) accumulates G x 8 fp32 in registers,
//      rescaled by the tile's exp2(m_old - m_new).
// With splits > 1 each split writes its unnormalised output, m and l; attention_decode_combine
// merges them. Tokens past a split's end are zero-filled (cp.async src-size 0) and masked.
#include "attention_prefill_kernel.cuh"
#include "pdl_launch.h"

#include <algorithm>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace kwb::cuda::decode {

constexpr int kThreads = 128;
constexpr int kTile = 64;
constexpr float kLog2e = 1.4426950408889634f;
constexpr int kMaxSplits = 256;

struct Params {
    const void* k_pool; // [pages][kv_heads][page_size][D] of T
    const void* v_pool;
    const int* page_table; // [batch][max_pages]
    const int* seq_len; // [batch]
    const __nv_bfloat16* q; // [batch][heads][D]
    const float* k_scale; // [kv_heads] (fp8; 1 for bf16)
    const float* v_scale;
    __nv_bfloat16* out; // [batch][heads][D] (splits == 1)
    float* o_part; // [batch][heads][splits][D] unnormalised (splits > 1)
    float* m_part; // [batch][heads][splits], log2 domain
    float* l_part;
    int kv_heads, page_size, max_pages, splits, stages;
    float scale_log2; // 1/sqrt(D) * log2 e
    // Set by a caller whose previous kernel (under PDL) writes only each sequence's newest K/V row
    // (position seq_len - 1) and q: tiny_llm's decode step, after the QKV GEMV. The lengths, the
    // page table and every older row are then final before this kernel starts, so a block looks its
    // pages up and puts its tiles in flight before pdl_wait, while that GEMV drains; after the wait
    // it reads q and the newest row afresh (EarlyStart). Without PDL it changes nothing.
    int early = 0;
};

// The copy and commit are the prefill kernel's (cp16 zero-fills past src_bytes); the wait takes
// a ring up to 6 deep (prefill's stops at 3).
using prefill::cp16;
using prefill::cp_commit;
constexpr int kMaxStages = 6;
__device__ __forceinline__ void cp_wait_stages(int pending)
{
    switch (pending) {
    case 0:
        asm volatile("cp.async.wait_group 0;\n" ::);
        break;
    case 1:
        asm volatile("cp.async.wait_group 1;\n" ::);
        break;
    case 2:
        asm volatile("cp.async.wait_group 2;\n" ::);
        break;
    case 3:
        asm volatile("cp.async.wait_group 3;\n" ::);
        break;
    default:
        asm volatile("cp.async.wait_group 4;\n" ::);
        break;
    }
}

// The split count of `splits = 0`, the one rule for the attention_decode workload and tiny_llm's
// steps: about `blocks_per_sm` blocks per SM in one wave, at least one tile per split, and the count
// normalised to the splits that get work (spans are whole tiles of the capacity). Two for the
// attention alone: that beat one block per SM (even with a deeper ring) and a second wave (its
// blocks' start-up latency in series) on the H200 at batch 1 (bench/results/2026-12-01-h200-splitkv).
// One inside tiny_llm's step, whose GEMV blocks share the SMs: 4 and 16 splits were 5-8% slower
// there (bench/results/2026-12-01-h200-early).
inline int auto_splits(int batch, int kv_heads, int capacity, int sms, int blocks_per_sm)
{
    const int tiles = std::max(1, (capacity + kTile - 1) / kTile);
    const int want = std::clamp(blocks_per_sm * sms / std::max(1, batch * kv_heads), 1, std::min(tiles, kMaxSplits));
    const int per = (tiles + want - 1) / want;
    return (tiles + per - 1) / per;
}

// A block's token span [start, span_end): the splits cut the table's capacity (max_pages x
// page_size, which holds any of its sequences), not the sequence's length, so the first page
// lookups go out together with the length's load instead of after it; PageGather::clip applies
// the length. Spans are whole tiles; spans past the capacity are empty.
__device__ __forceinline__ int2 split_span(const Params& p, int split)
{
    const int cap = p.max_pages * p.page_size;
    int per = (cap + p.splits - 1) / p.splits;
    per = (per + kTile - 1) / kTile * kTile;
    const int start = split * per;
    return make_int2(start, min(cap, start + per));
}

// N consecutive elements of T at p (16-byte aligned for bf16 x 8, 8-byte for fp8 x 8) to fp32.
template<typename T, int N> __device__ __forceinline__ void load_floats(const T* p, float* f);
template<> __device__ __forceinline__ void load_floats<__nv_bfloat16, 8>(const __nv_bfloat16* p, float* f)
{
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    const auto* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 v = __bfloat1622float2(h[i]);
        f[2 * i] = v.x;
        f[2 * i + 1] = v.y;
    }
}
template<> __device__ __forceinline__ void load_floats<__nv_fp8_e4m3, 8>(const __nv_fp8_e4m3* p, float* f)
{
    const uint2 raw = *reinterpret_cast<const uint2*>(p);
    const auto* pairs = reinterpret_cast<const __nv_fp8x2_storage_t*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const __half2 h = __half2(__nv_cvt_fp8x2_to_halfraw2(pairs[i], __NV_E4M3));
        const float2 v = __half22float2(h);
        f[2 * i] = v.x;
        f[2 * i + 1] = v.y;
    }
}

// K and V rows unpadded and swizzled (PageGather): the score pass reads K by columns,
// eight rows at a time, which the swizzle spreads over the banks as padding would.
template<int D, typename T> struct Layout {
    static constexpr int kRowBytes = D * int(sizeof(T));
    static constexpr int kChunks = kRowBytes / 16; // 16-byte copies per row
    static constexpr int kKStride = kRowBytes;
    static constexpr int kVStride = kRowBytes;
    static constexpr int kStageBytes = kTile * (kKStride + kVStride);
};

// The K and V gather of one kTile-token tile: thread tid copies 16-byte chunk tid % kChunks of
// tokens tid / kChunks + j * (kThreads / kChunks). The page numbers of a tile are fetched one
// tile before its copies are issued, so no table lookup stands between a tile's arrival and the
// next copy; page sizes are powers of two, so the page arithmetic is shifts. The first tile's
// lookups start in the constructor, over the block's span; clip() then cuts the span at the
// sequence's length. Tokens at or past `end` are zero-filled (cp.async src-size 0).
//
// Rows are stored unpadded and swizzled: chunk c of row t at chunk c ^ (t & 7) within its 128-byte
// half (64-byte rows: c ^ ((t >> 1) & 3), two rows to 128 bytes), which keeps reads of one chunk
// of 8 consecutive rows (ldmatrix, the simt score pass) free of bank conflicts, as padding would.
// Padding costs L2 traffic: a warp's copy of two rows into padded rows is not one contiguous
// 512-byte destination, the copy is split, and some sectors are fetched twice. ncu on the H200
// (32k, batch 1, mma): 24 sectors per copy instruction instead of 16, 6.3 M L2 sectors for 4.2 M
// of data, a third of them L2 hits; swizzled: 4.2 M, 0.2% hits, and the kernel 8% faster
// (bench/results/2026-12-01-h200-decode-swizzle).
template<int kChunks> struct PageGather {
    static constexpr int kSlots = kTile * kChunks / kThreads;
    static constexpr int kTokStride = kThreads / kChunks;
    static_assert(kSlots >= 1 && kTokStride * kChunks == kThreads, "a tile is whole rounds of the block");
    static_assert(kChunks >= 4 && kTokStride % 8 == 0, "a thread's rows share their swizzle");
    const int* table;
    std::size_t page_bytes, head_base, head_off;
    int shift, mask, row_bytes, start, end, tok0, chunk, dst_chunk_off;
    int page[kSlots];

    // Where chunk c of tile row t lies in its shared row, in 16-byte units.
    __device__ static __forceinline__ int dst_chunk(int c, int t)
    {
        if constexpr (kChunks >= 8)
            return c ^ (t & 7);
        else
            return c ^ ((t >> 1) & (kChunks - 1));
    }

    __device__ PageGather(const Params& p, const int* table_row, int kvh, int row_bytes_, int2 span)
        : table(table_row)
        , row_bytes(row_bytes_)
        , start(span.x)
        , end(span.y)
        , tok0(static_cast<int>(threadIdx.x) / kChunks)
        , chunk(static_cast<int>(threadIdx.x) % kChunks)
    {
        shift = __ffs(p.page_size) - 1;
        mask = p.page_size - 1;
        const std::size_t head_bytes = static_cast<std::size_t>(p.page_size) * row_bytes;
        page_bytes = head_bytes * p.kv_heads;
        head_base = head_bytes * kvh;
        head_off = head_base + static_cast<std::size_t>(chunk) * 16;
        dst_chunk_off = dst_chunk(chunk, tok0) * 16;
        fetch(0);
    }
    // The byte offset of token pos's row of this block's KV head in the pool (a table lookup).
    __device__ __forceinline__ std::size_t row_offset(int pos) const
    {
        return static_cast<std::size_t>(__ldg(table + (pos >> shift))) * page_bytes + head_base
            + static_cast<std::size_t>(pos & mask) * row_bytes;
    }
    // Ends the span at the sequence's length; returns its tile count.
    __device__ __forceinline__ int clip(int len)
    {
        end = min(end, len);
        return end > start ? (end - start + kTile - 1) / kTile : 0;
    }
    __device__ __forceinline__ void fetch(int tile)
    {
        const int base = start + tile * kTile + tok0;
#pragma unroll
        for (int j = 0; j < kSlots; ++j) {
            const int pos = base + j * kTokStride;
            page[j] = pos < end ? __ldg(table + (pos >> shift)) : -1;
        }
    }
    // Fills the ring: tiles 0 .. stages - 2 in flight, one commit group each (empty past the end).
    template<typename Load> __device__ __forceinline__ void prime(int tiles, int stages, Load&& load_tile)
    {
        for (int s = 0; s < stages - 1; ++s) {
            if (s < tiles) {
                load_tile(s, s);
                fetch(s + 1);
            }
            cp_commit();
        }
    }
    // At the top of tile `tile`: waits for it to land, then puts tile + stages - 1 in flight in the
    // slot the previous tile used (the barrier says every warp is done with that slot).
    template<typename Load> __device__ __forceinline__ void advance(int tile, int tiles, int stages, Load&& load_tile)
    {
        cp_wait_stages(stages - 2);
        __syncthreads();
        const int next = tile + stages - 1;
        if (next < tiles) {
            load_tile(next, next % stages);
            fetch(next + 1);
        }
        cp_commit();
    }
    // Copies the tile whose pages fetch() read last: token t's chunk to k_s + t * k_stride and
    // v_s + t * v_stride (bytes), at its swizzled place in the row.
    __device__ __forceinline__ void issue(int tile, unsigned char* k_s, int k_stride, unsigned char* v_s, int v_stride,
        const unsigned char* k_pool, const unsigned char* v_pool) const
    {
        const int base = start + tile * kTile + tok0;
#pragma unroll
        for (int j = 0; j < kSlots; ++j) {
            const int t = tok0 + j * kTokStride, pos = base + j * kTokStride;
            const bool valid = pos < end && page[j] >= 0; // fetch(0) ran before clip()
            const std::size_t off = valid ? static_cast<std::size_t>(page[j]) * page_bytes + head_off
                    + static_cast<std::size_t>(pos & mask) * row_bytes
                                          : 0;
            cp16(k_s + t * k_stride + dst_chunk_off, k_pool + off, valid ? 16 : 0);
            cp16(v_s + t * v_stride + dst_chunk_off, v_pool + off, valid ? 16 : 0);
        }
    }
};

// Byte `byte` of tile row `row` as Gather stores it in shared memory.
template<typename Gather> __device__ __forceinline__ int stored_byte(int byte, int row)
{
    return Gather::dst_chunk(byte >> 4, row) * 16 + (byte & 15);
}

// What `early` (Params) changes in a block's start. Before pdl_wait: the length through L2 (never
// a stale L1 line: the lengths change between steps). After it: the newest token's K and V chunk
// of threads 0 .. kChunks - 1 when this block's span holds it (put() overwrites the ring's stale
// copy of that row once its tile has landed), and the length again, which confirm() compares at
// the block's end, off the critical path: a caller breaking the contract traps instead of
// attending to a wrong span.
template<int kChunks> struct EarlyStart {
    int last = -1; // the newest position, or -1 (not early, or not in this block's span)
    int len_after = -1;
    uint4 k {}, v {};

    __device__ static int length(const Params& p, int b) { return p.early ? __ldcg(p.seq_len + b) : p.seq_len[b]; }
    template<typename Gather>
    __device__ void wait(
        const Params& p, int b, int len, const Gather& g, const unsigned char* k_pool, const unsigned char* v_pool)
    {
        if (!p.early)
            return;
        pdl_wait();
        len_after = __ldcg(p.seq_len + b);
        if (len - 1 < g.start || len - 1 >= g.end)
            return;
        last = len - 1;
        if (static_cast<int>(threadIdx.x) < kChunks) {
            const std::size_t off = g.row_offset(last) + threadIdx.x * 16;
            k = __ldcg(reinterpret_cast<const uint4*>(k_pool + off));
            v = __ldcg(reinterpret_cast<const uint4*>(v_pool + off));
        }
    }
    __device__ __forceinline__ void confirm(const Params& p, int len) const
    {
        if (p.early && len_after != len)
            __trap();
    }
    // At tile `tile` (landed, after PageGather::advance), with the stage's K and V rows laid out as
    // Gather stores them.
    template<typename Gather>
    __device__ __forceinline__ void put(
        int tile, int start, unsigned char* k_s, int k_stride, unsigned char* v_s, int v_stride) const
    {
        const int t = last - (start + tile * kTile);
        if (last < 0 || t < 0 || t >= kTile)
            return;
        if (static_cast<int>(threadIdx.x) < kChunks) {
            const int at = Gather::dst_chunk(static_cast<int>(threadIdx.x), t) * 16;
            *reinterpret_cast<uint4*>(k_s + t * k_stride + at) = k;
            *reinterpret_cast<uint4*>(v_s + t * v_stride + at) = v;
        }
        __syncthreads();
    }
};

// Dynamic shared memory of one block: the ring, then q, partial scores, probabilities, rescales;
// the final cross-group reduction reuses the ring.
template<int D, int G, typename T> __host__ __device__ constexpr int extras_bytes()
{
    return G * D * 4 + 4 * G * kTile * 4 + G * kTile * 4 + 3 * G * 4;
}
template<int D, int G, typename T> __host__ __device__ constexpr int reduce_bytes()
{
    return (kThreads / (D / 8)) * G * D * 4;
}
template<int D, int G, typename T> int smem_bytes(int stages)
{
    const int ring = stages * Layout<D, T>::kStageBytes;
    const int red = reduce_bytes<D, G, T>();
    return (ring > red ? ring : red) + extras_bytes<D, G, T>();
}

template<int D, int G, typename T> __global__ void __launch_bounds__(kThreads) decode_kernel(const Params p)
{
    using L = Layout<D, T>;
    constexpr int kDQ = D / 4; // dims per thread in the score pass
    constexpr int kCV = D / 8; // 8-element chunks per row in the P V pass
    constexpr int kGroups = kThreads / kCV; // token groups in the P V pass
    constexpr int kHeadsPerWarp = (G + 3) / 4;
    extern __shared__ __align__(16) unsigned char smem[];

    if (!p.early)
        pdl_wait();
    pdl_trigger();
    const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z;
    const int heads = p.kv_heads * G;
    const int len = EarlyStart<L::kChunks>::length(p, b);

    const int ring_bytes = max(p.stages * L::kStageBytes, reduce_bytes<D, G, T>());
    float* q_s = reinterpret_cast<float*>(smem + ring_bytes); // [G][D]
    float* s_part = q_s + G * D; // [4][G][kTile]
    float* p_s = s_part + 4 * G * kTile; // [G][kTile]
    float* alpha_s = p_s + G * kTile; // [G]
    float* m_s = alpha_s + G;
    float* l_s = m_s + G;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const auto* kp = static_cast<const unsigned char*>(p.k_pool);
    const auto* vp = static_cast<const unsigned char*>(p.v_pool);
    using Gather = PageGather<L::kChunks>;
    Gather gather(p, p.page_table + static_cast<std::size_t>(b) * p.max_pages, kvh, L::kRowBytes, split_span(p, split));
    const int tiles = gather.clip(len);
    const int start = gather.start, end = gather.end;
    auto load_tile = [&](int tile, int stage) {
        unsigned char* ks = smem + stage * L::kStageBytes;
        gather.issue(tile, ks, L::kKStride, ks + kTile * L::kKStride, L::kVStride, kp, vp);
    };
    // The ring is primed before q is read, so q's load overlaps the first tiles' flight instead
    // of adding a round trip to the block's start (the first tile's barrier publishes q_s).
    gather.prime(tiles, p.stages, load_tile);
    EarlyStart<L::kChunks> early;
    early.wait(p, b, len, gather, kp, vp);
    const float qscale = p.scale_log2 * p.k_scale[kvh];
    for (int i = tid; i < G * D; i += kThreads)
        q_s[i] = __bfloat162float(p.q[(static_cast<std::size_t>(b) * heads + kvh * G) * D + i]) * qscale;

    float m_reg[kHeadsPerWarp], l_reg[kHeadsPerWarp];
#pragma unroll
    for (int h = 0; h < kHeadsPerWarp; ++h)
        m_reg[h] = -INFINITY, l_reg[h] = 0.f;
    float acc[G][8];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int e = 0; e < 8; ++e)
            acc[g][e] = 0.f;
    const int pv_chunk = tid % kCV, pv_group = tid / kCV;

    for (int tile = 0; tile < tiles; ++tile) {
        gather.advance(tile, tiles, p.stages, load_tile);
        unsigned char* stage = smem + (tile % p.stages) * L::kStageBytes;
        early.template put<Gather>(tile, start, stage, L::kKStride, stage + kTile * L::kKStride, L::kVStride);

        const unsigned char* ks = stage;
        const unsigned char* vs = ks + kTile * L::kKStride;
        // 1. scores, partial over a quarter of D
        {
            const int d0 = warp * kDQ;
            float s0[G], s1[G];
#pragma unroll
            for (int g = 0; g < G; ++g)
                s0[g] = s1[g] = 0.f;
#pragma unroll
            for (int d = 0; d < kDQ; d += 8) {
                float k0[8], k1[8];
                // Rows lane and lane + 32 share their swizzle.
                const int at = stored_byte<Gather>((d0 + d) * int(sizeof(T)), lane);
                load_floats<T, 8>(reinterpret_cast<const T*>(ks + lane * L::kKStride + at), k0);
                load_floats<T, 8>(reinterpret_cast<const T*>(ks + (lane + 32) * L::kKStride + at), k1);
#pragma unroll
                for (int g = 0; g < G; ++g) {
                    const float4 qa = *reinterpret_cast<const float4*>(q_s + g * D + d0 + d);
                    const float4 qb = *reinterpret_cast<const float4*>(q_s + g * D + d0 + d + 4);
                    const float qv[8] = {qa.x, qa.y, qa.z, qa.w, qb.x, qb.y, qb.z, qb.w};
#pragma unroll
                    for (int e = 0; e < 8; ++e) {
                        s0[g] = fmaf(qv[e], k0[e], s0[g]);
                        s1[g] = fmaf(qv[e], k1[e], s1[g]);
                    }
                }
            }
#pragma unroll
            for (int g = 0; g < G; ++g) {
                s_part[(warp * G + g) * kTile + lane] = s0[g];
                s_part[(warp * G + g) * kTile + lane + 32] = s1[g];
            }
        }
        __syncthreads();
        // 2. online softmax: warp w owns heads w, w + 4
        {
            const int valid = min(kTile, end - (start + tile * kTile));
#pragma unroll
            for (int h = 0; h < kHeadsPerWarp; ++h) {
                const int g = warp + 4 * h;
                if (g < G) {
                    float s[2];
#pragma unroll
                    for (int k = 0; k < 2; ++k) {
                        const int t = lane + 32 * k;
                        s[k] = t < valid ? s_part[(0 * G + g) * kTile + t] + s_part[(1 * G + g) * kTile + t]
                                + s_part[(2 * G + g) * kTile + t] + s_part[(3 * G + g) * kTile + t]
                                         : -INFINITY;
                    }
                    float mx = fmaxf(s[0], s[1]);
#pragma unroll
                    for (int o = 16; o > 0; o >>= 1)
                        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
                    const float m_new = fmaxf(m_reg[h], mx);
                    const float p0 = exp2f(s[0] - m_new), p1 = exp2f(s[1] - m_new);
                    float sum = p0 + p1;
#pragma unroll
                    for (int o = 16; o > 0; o >>= 1)
                        sum += __shfl_xor_sync(0xffffffffu, sum, o);
                    const float alpha = exp2f(m_reg[h] - m_new);
                    l_reg[h] = l_reg[h] * alpha + sum;
                    m_reg[h] = m_new;
                    p_s[g * kTile + lane] = p0;
                    p_s[g * kTile + lane + 32] = p1;
                    if (lane == 0)
                        alpha_s[g] = alpha;
                }
            }
        }
        __syncthreads();
        // 3. P V
        {
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const float a = alpha_s[g];
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    acc[g][e] *= a;
            }
#pragma unroll 4
            for (int t = pv_group; t < kTile; t += kGroups) {
                float v[8];
                load_floats<T, 8>(reinterpret_cast<const T*>(
                                      vs + t * L::kVStride + stored_byte<Gather>(pv_chunk * 8 * int(sizeof(T)), t)),
                    v);
#pragma unroll
                for (int g = 0; g < G; ++g) {
                    const float pr = p_s[g * kTile + t];
#pragma unroll
                    for (int e = 0; e < 8; ++e)
                        acc[g][e] = fmaf(pr, v[e], acc[g][e]);
                }
            }
        }
    }

    early.confirm(p, len);
    // Merge the token groups' accumulators through shared memory (the ring is free now).
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    float* red = reinterpret_cast<float*>(smem); // [kGroups][G][D]
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int e = 0; e < 8; ++e)
            red[(pv_group * G + g) * D + pv_chunk * 8 + e] = acc[g][e];
#pragma unroll
    for (int h = 0; h < kHeadsPerWarp; ++h) {
        const int g = warp + 4 * h;
        if (g < G && lane == 0) {
            m_s[g] = m_reg[h];
            l_s[g] = l_reg[h];
        }
    }
    __syncthreads();
    const float vscale = p.v_scale[kvh];
    for (int i = tid; i < G * D; i += kThreads) {
        const int g = i / D, d = i % D;
        float o = 0.f;
#pragma unroll 4
        for (int grp = 0; grp < kGroups; ++grp)
            o += red[(grp * G + g) * D + d];
        const std::size_t row = static_cast<std::size_t>(b) * heads + kvh * G + g;
        if (p.splits == 1)
            p.out[row * D + d] = __float2bfloat16(o * vscale / l_s[g]);
        else {
            p.o_part[(row * p.splits + split) * D + d] = o * vscale;
            if (d == 0) {
                p.m_part[row * p.splits + split] = m_s[g];
                p.l_part[row * p.splits + split] = l_s[g];
            }
        }
    }
}

// One block of D threads per (sequence, head) merges the splits' (o, m, l): warp w takes splits w,
// w + D/32, ... eight at a time, each lane D/32 adjacent dims, and loads a batch's o, m and l
// together, folding it into the warp's running (max, sum, o) as the kernels fold tiles; the warps
// then meet in shared memory. Up to 8 x D/32 splits cost one dependent round trip, where a loop
// over the splits per thread paid one per few splits. Empty splits carry m = -inf, l = 0.
template<int D> __global__ void __launch_bounds__(D) decode_combine(const Params p)
{
    constexpr int kWarps = D / 32, kPer = D / 32, kBatch = 8;
    __shared__ float m_s[kWarps], l_s[kWarps];
    __shared__ float o_s[kWarps][D];
    pdl_wait();
    pdl_trigger();
    const std::size_t row = blockIdx.x;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, splits = p.splits;
    const float* m = p.m_part + row * splits;
    const float* l = p.l_part + row * splits;
    const float* part = p.o_part + row * splits * D + lane * kPer;

    float run_m = -INFINITY, run_l = 0.f, acc[kPer] = {};
    for (int s0 = warp; s0 < splits; s0 += kBatch * kWarps) {
        float ms[kBatch], ls[kBatch], v[kBatch][kPer];
#pragma unroll
        for (int i = 0; i < kBatch; ++i) {
            const int s = s0 + i * kWarps;
            const bool ok = s < splits;
            ms[i] = ok ? m[s] : -INFINITY;
            ls[i] = ok ? l[s] : 0.f;
            const float* src = part + static_cast<std::size_t>(ok ? s : 0) * D;
            if constexpr (kPer == 4) {
                const float4 x = ok ? *reinterpret_cast<const float4*>(src) : make_float4(0.f, 0.f, 0.f, 0.f);
                v[i][0] = x.x, v[i][1] = x.y, v[i][2] = x.z, v[i][3] = x.w;
            } else {
                const float2 x = ok ? *reinterpret_cast<const float2*>(src) : make_float2(0.f, 0.f);
                v[i][0] = x.x, v[i][1] = x.y;
            }
        }
        float mx = run_m;
#pragma unroll
        for (int i = 0; i < kBatch; ++i)
            mx = fmaxf(mx, ms[i]);
        if (mx == -INFINITY) // only empty splits so far
            continue;
        const float a = exp2f(run_m - mx);
        run_l *= a;
#pragma unroll
        for (int e = 0; e < kPer; ++e)
            acc[e] *= a;
#pragma unroll
        for (int i = 0; i < kBatch; ++i) {
            const float w = exp2f(ms[i] - mx);
            run_l = fmaf(ls[i], w, run_l);
#pragma unroll
            for (int e = 0; e < kPer; ++e)
                acc[e] = fmaf(w, v[i][e], acc[e]);
        }
        run_m = mx;
    }
    if (lane == 0)
        m_s[warp] = run_m, l_s[warp] = run_l;
#pragma unroll
    for (int e = 0; e < kPer; ++e)
        o_s[warp][lane * kPer + e] = acc[e];
    __syncthreads();
    float mx = m_s[0];
#pragma unroll
    for (int w = 1; w < kWarps; ++w)
        mx = fmaxf(mx, m_s[w]);
    float total = 0.f, o = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        const float wt = m_s[w] == -INFINITY ? 0.f : exp2f(m_s[w] - mx);
        total = fmaf(l_s[w], wt, total);
        o = fmaf(o_s[w][tid], wt, o);
    }
    p.out[row * D + tid] = __float2bfloat16(o / total);
}

} // namespace kwb::cuda::decode
