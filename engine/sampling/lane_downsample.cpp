// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/lane_downsample.h"

#include <algorithm>

namespace kwb {

void downsample_min_max(SamplerLane& lane, size_t target)
{
    const size_t n = std::min(lane.t_s.size(), lane.values.size());
    target = std::max<size_t>(target, 2);
    if (n <= target)
        return;
    const size_t buckets = target / 2;
    SamplerLane out {lane.name, lane.unit, {}, {}};
    out.t_s.reserve(target);
    out.values.reserve(target);
    for (size_t b = 0; b < buckets; ++b) {
        const size_t begin = b * n / buckets;
        const size_t end = (b + 1) * n / buckets;
        if (begin >= end)
            continue;
        size_t lo = begin, hi = begin;
        for (size_t i = begin; i < end; ++i) {
            if (lane.values[i] < lane.values[lo])
                lo = i;
            if (lane.values[i] > lane.values[hi])
                hi = i;
        }
        const size_t first = std::min(lo, hi), second = std::max(lo, hi);
        out.t_s.push_back(lane.t_s[first]);
        out.values.push_back(lane.values[first]);
        if (second != first) {
            out.t_s.push_back(lane.t_s[second]);
            out.values.push_back(lane.values[second]);
        }
    }
    lane = std::move(out);
}

void append_bounded(SamplerLane& lane, double t_s, double value, size_t max_points)
{
    lane.t_s.push_back(t_s);
    lane.values.push_back(value);
    if (lane.t_s.size() > max_points)
        downsample_min_max(lane, max_points / 2);
}

} // namespace kwb
