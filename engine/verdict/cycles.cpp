// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/cycles.h"

#include "study/arm_roles.h"
#include "study/lane_window.h"
#include "verdict/verdict.h"
#include "verdict/wording.h"

#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace kwb {
namespace {

using wording::num;

const SamplerLane* pm_clock_lane(const Experiment& e)
{
    for (const auto& l : e.lanes)
        if (l.name == kPmClockLane && !l.values.empty() && lane_in_time_order(l))
            return &l;
    return nullptr;
}

bool usable(double x)
{
    return std::isfinite(x) && x > 0;
}

// The lane's mean over [t0, t1]; when no reading fell inside (a repetition shorter than the
// sampling interval), the mean of the nearest usable reading on each side.
std::optional<double> lane_mean(const SamplerLane& lane, double t0, double t1)
{
    const LaneSpan span = readings_within(lane, t0, t1);
    double sum = 0;
    int n = 0;
    for (std::size_t i = span.begin; i < span.end; ++i)
        if (usable(lane.values[i]))
            sum += lane.values[i], ++n;
    if (n > 0)
        return sum / n;
    std::optional<double> before, after;
    for (std::size_t i = span.begin; i-- > 0 && !before;)
        if (usable(lane.values[i]))
            before = lane.values[i];
    for (std::size_t i = span.end; i < lane.values.size() && !after; ++i)
        if (usable(lane.values[i]))
            after = lane.values[i];
    if (before && after)
        return (*before + *after) / 2;
    return before ? before : after;
}

struct Clocked {
    std::vector<double> values, clocks;
};

// The judged, usable target values of one arm (as judge_target takes them) and each one's clock
// from `source`; nullopt when any lacks one.
std::optional<Clocked> clocked(const Experiment& e, const std::string& arm, const SamplerLane* pm)
{
    Clocked out;
    for (const Sample* s : judged_samples(e, arm, e.metric)) {
        const double v = s->metrics.at(e.metric);
        if (!usable(v))
            continue;
        std::optional<double> clock;
        if (pm) {
            if (s->t_s)
                clock = lane_mean(*pm, *s->t_s, *s->t_s + s->duration_s);
        } else {
            clock = s->clock_mhz;
        }
        if (!clock || !usable(*clock))
            return std::nullopt;
        out.values.push_back(v);
        out.clocks.push_back(*clock);
    }
    return out;
}

double mean(const std::vector<double>& v)
{
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

bool beyond_noise(const SampleVerdict& v, const Profile& p)
{
    return v.delta_pct && v.sigma_pct && std::fabs(*v.delta_pct) > p.noise_k * *v.sigma_pct;
}

bool decisive(VerdictWord w)
{
    return w != VerdictWord::Inconclusive;
}

std::string interval_text(const std::optional<DeltaInterval>& ci)
{
    return ci ? fmt::format("95% CI {}% .. {}%", num((*ci)[0]), num((*ci)[1])) : std::string("no CI");
}

} // namespace

std::optional<CyclesArms> cycles_arms(const Experiment& e, Direction direction)
{
    if (e.backend == "cpu")
        return std::nullopt;
    const AbArms ab = ab_arms(e);
    if (!ab)
        return std::nullopt;
    // CUPTI's clock where it covers every judged repetition, else NVML's; never a mix.
    const SamplerLane* pm = pm_clock_lane(e);
    std::optional<Clocked> b, t;
    if (pm) {
        b = clocked(e, ab.baseline->name, pm);
        t = clocked(e, ab.treatment->name, pm);
    }
    const bool from_pm = b && t;
    if (!from_pm) {
        b = clocked(e, ab.baseline->name, nullptr);
        t = clocked(e, ab.treatment->name, nullptr);
    }
    if (!b || !t || b->values.empty() || t->values.empty())
        return std::nullopt;
    CyclesArms a;
    a.clock_source = from_pm ? "cupti_sm_clock" : "nvml_sm_clock";
    if (!from_pm)
        a.caveat = fmt::format("NVML's SM clock reads high under tensor load ({})",
            pm ? "CUPTI PM sampling did not cover every repetition" : "no CUPTI PM sampling ran");
    const auto convert = [direction](const Clocked& c) {
        std::vector<double> out;
        for (size_t i = 0; i < c.values.size(); ++i)
            out.push_back(direction == Direction::Lower ? c.values[i] * c.clocks[i] : c.values[i] / c.clocks[i]);
        return out;
    };
    a.baseline = convert(*b);
    a.treatment = convert(*t);
    a.clock_baseline_mhz = mean(b->clocks);
    a.clock_treatment_mhz = mean(t->clocks);
    return a;
}

CyclesComparison judge_cycles(
    const CyclesArms& a, const SampleVerdict& wall, const Profile& profile, std::vector<std::string>& reasons)
{
    const bool paired = wall.paired.has_value() && a.baseline.size() == a.treatment.size();
    const SampleVerdict c = judge_samples(a.baseline, a.treatment, profile, paired);
    CyclesComparison out;
    out.clock_source = a.clock_source;
    out.caveat = a.caveat;
    out.word = c.word;
    out.delta_pct = c.delta_pct;
    out.sigma_pct = c.sigma_pct;
    out.ci95_delta_pct = c.ci95_delta_pct;
    out.clock_baseline_mhz = a.clock_baseline_mhz;
    out.clock_treatment_mhz = a.clock_treatment_mhz;
    out.n_baseline = a.baseline.size();
    out.n_treatment = a.treatment.size();

    const std::string clocks = fmt::format("the baseline ran at {} MHz, the treatment at {} MHz",
        num(a.clock_baseline_mhz.value_or(0)), num(a.clock_treatment_mhz.value_or(0)));
    reasons.push_back(fmt::format("in cycles ({} x its mean SM clock, from {}): delta {}% ({}), {}; {}{}",
        profile.direction == Direction::Lower ? "each repetition's time" : "each repetition's rate divided by",
        a.clock_source == "cupti_sm_clock" ? "CUPTI PM sampling's sm_clock" : "NVML", num(c.delta_pct.value_or(0)),
        interval_text(c.ci95_delta_pct), to_string(c.word), clocks, a.caveat.empty() ? "" : "; " + a.caveat));

    if (!wall.delta_pct || !c.delta_pct)
        return out;
    const double dw = *wall.delta_pct, dc = *c.delta_pct;
    const bool opposite
        = ((dw < 0 && dc > 0) || (dw > 0 && dc < 0)) && beyond_noise(wall, profile) && beyond_noise(c, profile);
    const bool other_class = decisive(wall.word) && decisive(c.word) && wall.word != c.word;
    out.disagrees = opposite || other_class;
    if (!out.disagrees)
        return out;
    std::string why;
    if (dc > dw)
        why = dw < 0 && dc > 0 ? "faster per cycle, throttled more" : "better per cycle than per second: clocked lower";
    else
        why = dw > 0 && dc < 0 ? "slower per cycle, clocked higher" : "worse per cycle than per second: clocked higher";
    reasons.push_back(fmt::format("wall time and cycles disagree: {} ({} by wall time at {}%, {} in cycles at {}%; "
                                  "{}); the wall-time verdict stands, the clock a kernel gets being real for its user",
        why, to_string(wall.word), num(dw), to_string(c.word), num(dc), clocks));
    return out;
}

} // namespace kwb
