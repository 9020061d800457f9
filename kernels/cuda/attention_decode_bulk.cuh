// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `kv_copy=bulk` of the tensor-core decode (sm_90): the tile gather with TMA bulk copies instead of
// cp.async. Thread t owns row t % 64 of a tile, of K (t < 64) or V: one cp.async.bulk of the whole
// row (D x 2 bytes) from its page, landing in the same padded shared layout the cp.async gather
// fills, so the kernel's compute is unchanged. Each ring slot has an mbarrier: every thread
// arrives once per use, announcing its row's bytes, and the slot's phase completes when all have
// arrived and the bytes have landed. The copies go through the TMA unit, not the load-store path,
// so a block's bytes in flight no longer ride on per-thread copy instructions.
//
// Rows past the span's end are zero-filled with ordinary stores (a P of 0 must not meet a NaN).
// Those, and EarlyStart's newest row, are only ever written in a block's last tile, whose slot no
// bulk copy refills, so no generic write precedes an async-proxy write to the same bytes.
#include "attention_decode_kernel.cuh"

#include <cstdint>

namespace kwb::cuda::decode {

namespace bulk {

__device__ __forceinline__ unsigned shared_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void init(std::uint64_t* bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void arrive_expect(std::uint64_t* bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_addr(bar)), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void arrive(std::uint64_t* bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_addr(bar)) : "memory");
}
__device__ __forceinline__ void copy(void* dst, const void* src, unsigned bytes, std::uint64_t* bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     shared_addr(dst)),
                 "l"(src), "r"(bytes), "r"(shared_addr(bar))
                 : "memory");
}
__device__ __forceinline__ bool try_wait(std::uint64_t* bar, unsigned parity)
{
    unsigned done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_addr(bar)), "r"(parity)
        : "memory");
    return done != 0;
}
#else // the plugin also builds for sm_80 / sm_89; the workload refuses kv_copy=bulk there
__device__ __forceinline__ void init(std::uint64_t*, int)
{
    __trap();
}
__device__ __forceinline__ void fence_init()
{
}
__device__ __forceinline__ void arrive_expect(std::uint64_t*, unsigned)
{
    __trap();
}
__device__ __forceinline__ void arrive(std::uint64_t*)
{
    __trap();
}
__device__ __forceinline__ void copy(void*, const void*, unsigned, std::uint64_t*)
{
    __trap();
}
__device__ __forceinline__ bool try_wait(std::uint64_t*, unsigned)
{
    return true;
}
#endif

} // namespace bulk

// PageGather's interface (clip, prime, advance, issue, row_offset) over bulk row copies. `bars`
// holds one mbarrier per ring slot (kMaxStages of them, in static shared memory).
template<int kRowBytes> struct BulkGather {
    static_assert(kThreads == 2 * kTile, "one K or V row per thread per tile");
    static_assert(kRowBytes % 16 == 0, "bulk copies move whole 16-byte units");
    const int* table;
    std::uint64_t* bars;
    std::size_t page_bytes, head_base;
    int shift, mask, start, end, row, page;
    bool is_v;

    __device__ BulkGather(const Params& p, const int* table_row, int kvh, int2 span, std::uint64_t* bars_)
        : table(table_row)
        , bars(bars_)
        , start(span.x)
        , end(span.y)
        , row(static_cast<int>(threadIdx.x) % kTile)
        , is_v(static_cast<int>(threadIdx.x) >= kTile)
    {
        shift = __ffs(p.page_size) - 1;
        mask = p.page_size - 1;
        const std::size_t head_bytes = static_cast<std::size_t>(p.page_size) * kRowBytes;
        page_bytes = head_bytes * p.kv_heads;
        head_base = head_bytes * kvh;
        if (threadIdx.x == 0) {
            for (int s = 0; s < p.stages; ++s)
                bulk::init(bars + s, kThreads);
            bulk::fence_init();
        }
        __syncthreads();
        fetch(0);
    }
    __device__ __forceinline__ int clip(int len)
    {
        end = min(end, len);
        return end > start ? (end - start + kTile - 1) / kTile : 0;
    }
    __device__ __forceinline__ void fetch(int tile)
    {
        const int pos = start + tile * kTile + row;
        page = pos < end ? __ldg(table + (pos >> shift)) : -1;
    }
    __device__ __forceinline__ std::size_t row_offset(int pos) const
    {
        return static_cast<std::size_t>(__ldg(table + (pos >> shift))) * page_bytes + head_base
            + static_cast<std::size_t>(pos & mask) * kRowBytes;
    }
    template<typename Load> __device__ __forceinline__ void prime(int tiles, int stages, Load&& load_tile)
    {
        for (int s = 0; s < stages - 1 && s < tiles; ++s) {
            load_tile(s, s);
            fetch(s + 1);
        }
    }
    // At the top of tile `tile`: waits for its slot's phase, then refills the slot the previous tile
    // used (the barrier says every warp is done with it).
    template<typename Load> __device__ __forceinline__ void advance(int tile, int tiles, int stages, Load&& load_tile)
    {
        const int slot = tile % stages;
        while (!bulk::try_wait(bars + slot, static_cast<unsigned>(tile / stages) & 1u)) { }
        __syncthreads();
        const int next = tile + stages - 1;
        if (next < tiles) {
            load_tile(next, next % stages);
            fetch(next + 1);
        }
    }
    __device__ __forceinline__ void issue(int tile, int slot, unsigned char* k_s, int k_stride, unsigned char* v_s,
        int v_stride, const unsigned char* k_pool, const unsigned char* v_pool) const
    {
        const int pos = start + tile * kTile + row;
        unsigned char* dst = is_v ? v_s + row * v_stride : k_s + row * k_stride;
        std::uint64_t* bar = bars + slot;
        if (pos < end && page >= 0) { // fetch(0) ran before clip()
            const std::size_t off = static_cast<std::size_t>(page) * page_bytes + head_base
                + static_cast<std::size_t>(pos & mask) * kRowBytes;
            bulk::arrive_expect(bar, kRowBytes);
            bulk::copy(dst, (is_v ? v_pool : k_pool) + off, kRowBytes, bar);
        } else {
#pragma unroll
            for (int c = 0; c < kRowBytes / 16; ++c)
                reinterpret_cast<uint4*>(dst)[c] = make_uint4(0, 0, 0, 0);
            bulk::arrive(bar);
        }
    }
};

} // namespace kwb::cuda::decode
