// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/gpu_sharing.h"

#include "study/lane_window.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {
namespace {

const SamplerLane* process_lane(const Experiment& e)
{
    for (const auto& l : e.lanes)
        if (l.name == kOtherGpuProcessesLane && !l.values.empty() && lane_in_time_order(l))
            return &l;
    return nullptr;
}

bool judged(const Sample& s)
{
    return !s.warmup && !s.discarded;
}

// The readings during [t0, t1]; when none fell inside, the nearest one before and after it.
bool shared_during(const SamplerLane& lane, double t0, double t1)
{
    const LaneSpan span = readings_within(lane, t0, t1);
    if (!span.empty())
        return std::any_of(lane.values.begin() + static_cast<std::ptrdiff_t>(span.begin),
            lane.values.begin() + static_cast<std::ptrdiff_t>(span.end), [](double v) { return v > 0; });
    const bool before = span.begin > 0 && lane.values[span.begin - 1] > 0;
    const bool after = span.end < lane.values.size() && lane.values[span.end] > 0;
    return before || after;
}

} // namespace

std::vector<bool> shared_repetitions(const Experiment& e)
{
    const SamplerLane* lane = process_lane(e);
    if (!lane)
        return {};
    bool ever = false;
    for (double v : lane->values)
        ever = ever || v > 0;
    std::vector<bool> out(e.samples.size(), false);
    for (size_t i = 0; i < e.samples.size(); ++i) {
        const Sample& s = e.samples[i];
        if (!judged(s) || !ever)
            continue;
        // A study older than the repetitions' start times cannot place them on the lane: when the
        // lane saw another process at all, each counts as shared rather than as clean.
        out[i] = s.t_s ? shared_during(*lane, *s.t_s, *s.t_s + s.duration_s) : true;
    }
    return out;
}

std::optional<GpuSharingSummary> gpu_sharing_evidence(const Experiment& e)
{
    const auto shared = shared_repetitions(e);
    if (shared.empty())
        return std::nullopt;
    GpuSharingSummary g;
    g.source = "NVML's list of compute processes on the GPU, other than kwb's own and those it started";
    for (size_t i = 0; i < e.samples.size(); ++i) {
        if (!judged(e.samples[i]))
            continue;
        ++g.repetitions;
        if (shared[i]) {
            ++g.shared;
            g.positions.push_back(e.samples[i].position);
        }
    }
    return g;
}

void apply_gpu_sharing(FinalVerdict& f, const GpuSharingSummary& g)
{
    f.gpu_sharing = g;
    if (g.shared == 0)
        return;
    f.word = VerdictWord::Inconclusive;
    f.reasons.push_back(fmt::format("INCONCLUSIVE: another process used the GPU in {} of {} repetitions (measured "
                                    "from {}): its work was timed with the kernel's; rerun with the GPU to itself",
        g.shared, g.repetitions, g.source));
}

} // namespace kwb
