// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/cupti_metrics.h"

#include <algorithm>

namespace kwb {
namespace {

double pct_of_active(const double* v, std::size_t count, std::size_t peak, std::size_t cycles)
{
    const double denominator = v[peak] * v[cycles];
    return denominator > 0 ? 100.0 * v[count] / denominator : 0.0;
}

} // namespace

std::array<double, kCuptiLanes.size()> cupti_lane_values(const double* v)
{
    std::array<double, kCuptiLanes.size()> out {};
    for (std::size_t i = 0; i < kCuptiLanes.size(); ++i) {
        const CuptiLane& l = kCuptiLanes[i];
        switch (l.formula) {
        case CuptiFormula::Direct:
            out[i] = v[l.a] * l.scale;
            break;
        case CuptiFormula::PctOfActive:
            out[i] = pct_of_active(v, l.a, l.b, l.c);
            break;
        case CuptiFormula::Busiest: {
            double busiest = 0;
            for (const auto& [count, peak] : kCuptiBusiestOf)
                busiest = std::max(busiest, pct_of_active(v, count, peak, l.c));
            // Of active cycles -> of elapsed ones; the active share crosses domains (see the
            // header), so it is capped at 1 rather than trusted past it.
            out[i] = busiest * std::clamp(v[l.a] / 100.0, 0.0, 1.0);
            break;
        }
        }
    }
    return out;
}

std::optional<std::size_t> cupti_collected_index(std::string_view expression)
{
    for (std::size_t i = 0; i < kCuptiCollected.size(); ++i)
        if (kCuptiCollected[i] == expression)
            return i;
    return std::nullopt;
}

std::string_view cupti_retired_reason(std::string_view lane)
{
    for (const auto& r : kCuptiRetiredLanes)
        if (r.lane == lane)
            return r.reason;
    return {};
}

} // namespace kwb
