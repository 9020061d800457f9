// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger/change_points.h"

#include "verdict/verdict.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace kwb::ledger {

std::vector<ChangePoint> find_change_points(
    const std::vector<double>& values, const Profile& profile, const ChangePointOptions& options)
{
    if (options.window < 2)
        throw std::invalid_argument("change points: the window needs at least 2 points");
    if (!(options.alpha > 0 && options.alpha < 1))
        throw std::invalid_argument("change points: alpha must lie between 0 and 1");
    const auto w = static_cast<std::size_t>(options.window);
    std::vector<ChangePoint> candidates;
    for (std::size_t i = w; i + w <= values.size(); ++i) {
        const std::vector<double> before(
            values.begin() + static_cast<long>(i - w), values.begin() + static_cast<long>(i));
        const std::vector<double> after(
            values.begin() + static_cast<long>(i), values.begin() + static_cast<long>(i + w));
        const SampleVerdict v = judge_samples(before, after, profile, false);
        if (v.rule <= 4 || !v.p_welch || !v.delta_pct || *v.p_welch >= options.alpha)
            continue;
        ChangePoint c;
        c.index = i;
        c.delta_pct = *v.delta_pct;
        c.sigma_pct = v.sigma_pct.value_or(0.0);
        c.p_welch = *v.p_welch;
        c.word = std::string(to_string(v.word));
        c.regression = c.delta_pct < 0;
        candidates.push_back(c);
    }
    std::stable_sort(candidates.begin(), candidates.end(),
        [](const ChangePoint& a, const ChangePoint& b) { return a.p_welch < b.p_welch; });
    std::vector<ChangePoint> kept;
    for (const auto& c : candidates) {
        const bool near = std::any_of(kept.begin(), kept.end(),
            [&](const ChangePoint& k) { return (k.index > c.index ? k.index - c.index : c.index - k.index) < w; });
        if (!near)
            kept.push_back(c);
    }
    std::sort(kept.begin(), kept.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
    return kept;
}

std::string describe_method(const Profile& profile, const ChangePointOptions& options)
{
    return fmt::format(
        "change points: sliding windows of {} points each side, judged by the verdict engine (rules 1-4: "
        "min_n {}, sigma% <= {}, not bimodal, |delta%| > {} x sigma%) and Welch p < {}",
        options.window, profile.min_n, profile.unstable_sigma_pct, profile.noise_k, options.alpha);
}

} // namespace kwb::ledger
