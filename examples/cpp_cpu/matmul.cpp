// SPDX-License-Identifier: GPL-3.0-or-later
// A tiled float32 matmul on the CPU, C = A * B, as a kwb worker through include/kwb/worker.h
// (built without CUDA: steady_clock timing). `block` is the tile edge; `variant=wrong` skips the
// last K tile, so every element is written but wrong and the reference says so. CI drives it.
//
//     g++ -std=c++17 -O2 -I include examples/cpp_cpu/matmul.cpp -o matmul
#include <algorithm>
#include <cstdio>
#include <kwb/worker.h>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct State {
    std::vector<float> a, b, c;
    int n = 0;
    int block = 0;
    bool wrong = false;
};

void setup(State& s, const kwb::worker::Params& p, std::uint64_t seed)
{
    const auto n = p.integer("n");
    if (n <= 0 || n > 8192)
        throw std::invalid_argument("n must be in 1..8192, got " + std::to_string(n));
    s.n = static_cast<int>(n);
    s.block = static_cast<int>(p.integer("block"));
    s.wrong = p.string("variant") == "wrong";
    // A print is harmless: serve() pointed stdout at stderr before the first request.
    std::printf("cpp matmul: n=%d block=%d variant=%s seed=%llu\n", s.n, s.block, p.string("variant").c_str(),
        static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal;
    const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    s.a.resize(count);
    s.b.resize(count);
    s.c.assign(count, 0.0f);
    for (auto& v : s.a)
        v = normal(rng);
    for (auto& v : s.b)
        v = normal(rng);
}

void run(State& s)
{
    const int n = s.n, bs = s.block;
    const int k_end = s.wrong ? std::max(n - bs, 0) : n;
    std::fill(s.c.begin(), s.c.end(), 0.0f);
    for (int i0 = 0; i0 < n; i0 += bs)
        for (int k0 = 0; k0 < k_end; k0 += bs)
            for (int j0 = 0; j0 < n; j0 += bs)
                for (int i = i0; i < std::min(i0 + bs, n); ++i)
                    for (int k = k0; k < std::min(k0 + bs, k_end); ++k) {
                        const float aik = s.a[static_cast<std::size_t>(i) * n + k];
                        float* crow = &s.c[static_cast<std::size_t>(i) * n];
                        const float* brow = &s.b[static_cast<std::size_t>(k) * n];
                        for (int j = j0; j < std::min(j0 + bs, n); ++j)
                            crow[j] += aik * brow[j];
                    }
}

std::vector<float> reference(State& s)
{
    const auto n = static_cast<std::size_t>(s.n);
    std::vector<float> c(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double acc = 0;
            for (std::size_t k = 0; k < n; ++k)
                acc += static_cast<double>(s.a[i * n + k]) * s.b[k * n + j];
            c[i * n + j] = static_cast<float>(acc);
        }
    return c;
}

} // namespace

int main(int argc, char** argv)
{
    kwb::worker::Kernel<State> k;
    k.name = "cpp-tiled-matmul";
    k.params = {{"n", 256, {}, "matrix size (n x n, float32)"},
        {"block", 64, {1, 2, 4, 8, 16, 32, 64, 128, 256}, "tile edge"},
        {"variant", "blocked", {"blocked", "wrong"},
            "wrong: skips the last K tile (a wrong result for the check to catch)"}};
    k.setup = setup;
    k.run = run;
    k.output = [](State& s) { return kwb::worker::host_output(s.c.data(), s.c.size()); };
    k.reference = reference;
    k.flop_per_launch = [](const kwb::worker::Params& p) {
        const double n = static_cast<double>(p.integer("n"));
        return 2.0 * n * n * n;
    };
    k.bytes_per_launch = [](const kwb::worker::Params& p) {
        const double n = static_cast<double>(p.integer("n"));
        return 3.0 * 4.0 * n * n;
    };
    k.tolerance = 1e-4;
    return kwb::worker::serve(k, argc, argv);
}
