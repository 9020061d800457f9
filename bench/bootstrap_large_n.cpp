// SPDX-License-Identifier: GPL-3.0-or-later
// How far the large-n interval of bootstrap_delta_ci (resampled means drawn from their
// central-limit law) is from the exact 10,000-resample bootstrap, and how long each takes.
// Usage: bootstrap_large_n N [REPEATS] [fast] (fast: time the large-n interval only). Data: log-normal run times (right
// tail, like real ones), baseline mean ~10 ms, treatment ~5% faster, seeded.
#include "stats/bootstrap.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 1;
    const bool fast_only = argc > 3 && std::string(argv[3]) == "fast";
    for (int r = 0; r < repeats; ++r) {
        std::mt19937_64 rng(1234 + static_cast<unsigned>(r));
        std::lognormal_distribution<double> base(std::log(10.0), 0.3), treat(std::log(9.5), 0.3);
        std::vector<double> b(n), t(n);
        for (auto& v : b)
            v = base(rng);
        for (auto& v : t)
            v = treat(rng);
        using clock = std::chrono::steady_clock;
        const auto t0 = clock::now();
        const auto fast = kwb::stats::bootstrap_delta_ci(b, t, kwb::Direction::Lower);
        const auto t1 = clock::now();
        const auto exact = fast_only ? fast : kwb::stats::bootstrap_delta_ci_exact(b, t, kwb::Direction::Lower);
        const auto t2 = clock::now();
        std::printf("{\"n\": %zu, \"repeat\": %d, \"fast\": [%.5f, %.5f], \"exact\": [%.5f, %.5f], "
                    "\"max_diff_points\": %.5f, \"fast_s\": %.3f, \"exact_s\": %.3f}\n",
            n, r, (*fast)[0], (*fast)[1], (*exact)[0], (*exact)[1],
            std::max(std::abs((*fast)[0] - (*exact)[0]), std::abs((*fast)[1] - (*exact)[1])),
            std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
        std::fflush(stdout);
    }
    return 0;
}
