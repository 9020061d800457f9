// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/gpu_sharing.h"

#include <fmt/format.h>
#include <limits>

namespace kwb {
namespace {

const SamplerLane* process_lane(const Experiment& e)
{
    for (const auto& l : e.lanes)
        if (l.name == kOtherGpuProcessesLane && !l.values.empty() && l.values.size() == l.t_s.size())
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
    bool inside = false, shared_inside = false;
    double before_t = -std::numeric_limits<double>::infinity(), after_t = std::numeric_limits<double>::infinity();
    double before_v = 0, after_v = 0;
    for (size_t i = 0; i < lane.t_s.size(); ++i) {
        const double t = lane.t_s[i], v = lane.values[i];
        if (t >= t0 && t <= t1) {
            inside = true;
            shared_inside = shared_inside || v > 0;
        } else if (t < t0 && t >= before_t) {
            before_t = t;
            before_v = v;
        } else if (t > t1 && t < after_t) {
            after_t = t;
            after_v = v;
        }
    }
    return inside ? shared_inside : (before_v > 0 || after_v > 0);
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
