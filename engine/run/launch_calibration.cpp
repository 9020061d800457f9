// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/launch_calibration.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

// One repetition's length in ms: what the workload timed (CUDA events, summed iterations),
// else the wall clock around it.
// nullopt when the run's stop request cut the repetition short: nothing to calibrate on.
std::optional<double> repetition_ms(PreparedWorkload& w, const std::function<double()>& clock_s)
{
    const double t0 = clock_s();
    const RepetitionResult r = w.run_once();
    const double wall_ms = (clock_s() - t0) * 1e3;
    // A failed repetition (a worker arm's fault) measured nothing: the arm fails here, before the
    // timed order, rather than being calibrated on an error's wall time.
    if (r.failed)
        throw WorkloadError(fmt::format("calibrating the launches per repetition: {}", r.error));
    if (r.interrupted)
        return std::nullopt;
    if (r.total_ms && *r.total_ms > 0)
        return *r.total_ms;
    if (!r.iterations.empty()) {
        double sum = 0;
        for (double x : r.iterations)
            sum += std::isfinite(x) ? x : 0;
        if (sum > 0)
            return sum;
    }
    return wall_ms;
}

} // namespace

std::optional<LaunchCalibration> calibrate_launches(const std::vector<PreparedWorkload*>& arms, double min_rep_ms,
    const std::function<double()>& clock_s, int max_launches)
{
    LaunchCalibration result;
    std::vector<int> counts;
    for (auto* arm : arms) {
        int n = 1;
        double ms = 0;
        // Each step aims 10% past the target from the time per launch measured so far; a
        // handful of steps suffice (the first launch may be slow: a cold cache, a lazy load).
        for (int step = 0; step < 12; ++step) {
            if (!arm->set_launches(n))
                return std::nullopt;
            const auto measured = repetition_ms(*arm, clock_s);
            if (!measured)
                return std::nullopt; // stopped: no count is recorded
            ms = *measured;
            if (ms >= min_rep_ms || n >= max_launches)
                break;
            const double per_launch = std::max(ms / n, 1e-6);
            const double wanted = std::ceil(1.1 * min_rep_ms / per_launch);
            n = static_cast<int>(std::min<double>(max_launches, std::max<double>(wanted, n + 1.0)));
        }
        counts.push_back(n);
        result.rep_ms.push_back(ms);
    }
    result.launches = counts.empty() ? 1 : *std::max_element(counts.begin(), counts.end());
    for (auto* arm : arms)
        arm->set_launches(result.launches);
    return result;
}

} // namespace kwb
