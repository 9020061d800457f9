// SPDX-License-Identifier: GPL-3.0-or-later
// An out-of-place float32 matrix transpose on the GPU as a kwb worker (include/kwb/worker.h,
// CUDA events, cold L2 flush). `impl=naive` reads rows and writes columns (strided stores);
// `impl=smem` stages a tile in shared memory (padded against bank conflicts) so both the loads
// and the stores are coalesced. `tile` is the tile edge of the smem kernel.
//
//     nvcc -O3 -arch=sm_90 -I include examples/cuda_cpp/transpose.cu -o transpose
#include <cstdint>
#include <kwb/worker.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kRows = 8; // threads per block in y: each thread moves tile/kRows elements

__global__ void fill_inputs(float* x, std::size_t count, std::uint64_t seed)
{
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i >= count)
        return;
    // splitmix64 of (seed, index): seeded, reproducible, no curand needed.
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x[i] = static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f; // uniform in [-1, 1)
}

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n)
        out[static_cast<std::size_t>(x) * n + y] = in[static_cast<std::size_t>(y) * n + x];
}

template<int Tile> __global__ void transpose_smem(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[Tile][Tile + 1];
    int x = blockIdx.x * Tile + threadIdx.x;
    int y = blockIdx.y * Tile + threadIdx.y;
    for (int j = 0; j < Tile; j += kRows)
        if (x < n && y + j < n)
            tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::size_t>(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * Tile + threadIdx.x;
    y = blockIdx.x * Tile + threadIdx.y;
    for (int j = 0; j < Tile; j += kRows)
        if (x < n && y + j < n)
            out[static_cast<std::size_t>(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

struct State {
    float* in = nullptr;
    float* out = nullptr;
    int n = 0;
    int tile = 32;
    bool naive = false;
    State() = default;
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State()
    {
        cudaFree(in);
        cudaFree(out);
    }
    std::size_t count() const { return static_cast<std::size_t>(n) * static_cast<std::size_t>(n); }
};

void setup(State& s, const kwb::worker::Params& p, std::uint64_t seed)
{
    const auto n = p.integer("n");
    if (n <= 0 || n > 65536)
        throw std::invalid_argument("n must be in 1..65536, got " + std::to_string(n));
    s.n = static_cast<int>(n);
    s.tile = static_cast<int>(p.integer("tile"));
    s.naive = p.string("impl") == "naive";
    KWB_CUDA_CHECK(cudaMalloc(&s.in, s.count() * sizeof(float)));
    KWB_CUDA_CHECK(cudaMalloc(&s.out, s.count() * sizeof(float)));
    const unsigned blocks = static_cast<unsigned>((s.count() + 255) / 256);
    fill_inputs<<<blocks, 256>>>(s.in, s.count(), seed);
    KWB_CUDA_CHECK(cudaGetLastError());
    KWB_CUDA_CHECK(cudaMemset(s.out, 0, s.count() * sizeof(float)));
}

void run(State& s)
{
    // The legacy default stream: the helper's timing events are recorded there.
    if (s.naive) {
        const dim3 block(32, kRows);
        const dim3 grid((s.n + 31) / 32, (s.n + kRows - 1) / kRows);
        transpose_naive<<<grid, block>>>(s.in, s.out, s.n);
    } else {
        const dim3 block(s.tile, kRows);
        const dim3 grid((s.n + s.tile - 1) / s.tile, (s.n + s.tile - 1) / s.tile);
        if (s.tile == 16)
            transpose_smem<16><<<grid, block>>>(s.in, s.out, s.n);
        else if (s.tile == 32)
            transpose_smem<32><<<grid, block>>>(s.in, s.out, s.n);
        else
            transpose_smem<64><<<grid, block>>>(s.in, s.out, s.n);
    }
}

std::vector<float> reference(State& s)
{
    std::vector<float> in(s.count()), out(s.count());
    KWB_CUDA_CHECK(cudaMemcpy(in.data(), s.in, in.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const auto n = static_cast<std::size_t>(s.n);
    for (std::size_t y = 0; y < n; ++y)
        for (std::size_t x = 0; x < n; ++x)
            out[x * n + y] = in[y * n + x];
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    kwb::worker::Kernel<State> k;
    k.name = "cuda-transpose";
    k.params = {{"n", 8192, {}, "matrix size (n x n, float32)"},
        {"impl", "smem", {"naive", "smem"}, "naive: strided stores; smem: a shared-memory tile"},
        {"tile", 32, {16, 32, 64}, "tile edge of impl=smem (threads per block: tile x 8)"}};
    k.setup = setup;
    k.run = run;
    k.output = [](State& s) { return kwb::worker::device_output(s.out, s.count()); };
    k.reference = reference;
    k.flop_per_launch = [](const kwb::worker::Params&) { return 0.0; };
    k.bytes_per_launch = [](const kwb::worker::Params& p) {
        const double n = static_cast<double>(p.integer("n"));
        return 2.0 * 4.0 * n * n; // each element read once and written once
    };
    k.tolerance = 0; // a transpose moves values: they must be exact
    return kwb::worker::serve(k, argc, argv);
}
