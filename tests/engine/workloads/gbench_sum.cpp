// SPDX-License-Identifier: GPL-3.0-or-later
// A real Google Benchmark binary for the command workload's test: BM_Sum adds 64 Ki floats, in
// the variant SUM_VARIANT names (plain: one accumulator, split: four), so the two arms of a study
// run the same benchmark name with different code.
#include <benchmark/benchmark.h>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

namespace {

void BM_Sum(benchmark::State& state)
{
    const char* v = std::getenv("SUM_VARIANT");
    const bool split = v && std::strcmp(v, "split") == 0;
    std::vector<float> x(65536, 1.0f);
    for (auto _ : state) {
        float s = 0;
        if (split) {
            float a = 0, b = 0, c = 0, d = 0;
            for (size_t i = 0; i < x.size(); i += 4) {
                a += x[i];
                b += x[i + 1];
                c += x[i + 2];
                d += x[i + 3];
            }
            s = a + b + c + d;
        } else {
            for (float f : x)
                s += f;
        }
        benchmark::DoNotOptimize(s);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(x.size()));
}
BENCHMARK(BM_Sum);

} // namespace

BENCHMARK_MAIN();
