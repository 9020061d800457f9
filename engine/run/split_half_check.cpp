// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/split_half_check.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace kwb {

std::pair<std::vector<double>, std::vector<double>> split_halves_of(
    const std::vector<double>& baseline, int k, std::uint64_t seed)
{
    const size_t n = baseline.size();
    std::vector<bool> in_first(n, false);
    if (k == 0) {
        for (size_t i = 0; i < n; i += 2)
            in_first[i] = true;
    } else {
        std::vector<size_t> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::mt19937_64 rng(seed + static_cast<std::uint64_t>(k));
        for (size_t i = n; i > 1; --i)
            std::swap(idx[i - 1], idx[rng() % i]); // no implementation-defined distribution
        for (size_t i = 0; i < n / 2; ++i)
            in_first[idx[i]] = true;
    }
    std::pair<std::vector<double>, std::vector<double>> halves;
    for (size_t i = 0; i < n; ++i)
        (in_first[i] ? halves.first : halves.second).push_back(baseline[i]);
    return halves;
}

std::optional<SplitHalfCheck> check_split_half(
    const std::vector<double>& baseline, int splits, const Profile& profile, std::uint64_t seed)
{
    if (splits <= 0 || baseline.size() < static_cast<size_t>(2 * std::max(profile.min_n, 1)))
        return std::nullopt;
    SplitHalfCheck aa;
    aa.splits = splits;
    aa.method = "baseline split against itself: interleaved halves first, then seeded random halvings; "
                "halves judged unpaired with the experiment's profile; any verdict but NOISE is a false alarm";
    for (int k = 0; k < splits; ++k) {
        const auto [a, b] = split_halves_of(baseline, k, seed);
        const SampleVerdict v = judge_samples(a, b, profile, false);
        aa.verdicts.emplace_back(to_string(v.word));
        if (v.word != VerdictWord::Noise)
            ++aa.false_alarms;
    }
    return aa;
}

} // namespace kwb
