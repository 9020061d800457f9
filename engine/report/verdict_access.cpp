// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/verdict_access.h"

#include "verdict/verdict.h"

namespace kwb::report {

// The stored verdicts are typed (verdict/verdict_types.h): read them as they are, never back out
// of their JSON form.
StoredVerdict sample_verdict_of(const Experiment& e)
{
    StoredVerdict v;
    if (!e.verdict)
        return v;
    const SampleVerdict& s = *e.verdict;
    v.present = true;
    v.word = std::string(to_string(s.word));
    v.reasons = s.reasons;
    v.profile = profile_to_json(s.profile);
    if (s.rule > 0)
        v.rule = s.rule;
    if (s.runs_needed_per_arm)
        v.runs_needed_per_arm = *s.runs_needed_per_arm;
    v.runs_needed_threshold_pct = s.runs_needed_threshold_pct;
    return v;
}

StoredVerdict final_verdict_of(const Experiment& e)
{
    StoredVerdict v;
    if (!e.final_verdict)
        return v;
    const FinalVerdict& f = *e.final_verdict;
    v.present = true;
    v.word = std::string(to_string(f.word));
    v.reasons = f.reasons;
    v.profile = profile_to_json(f.profile);
    v.sample_word = std::string(to_string(f.sample_word));
    v.flags = f.flags;
    v.predicted_delta_pct = f.predicted_delta_pct;
    v.measured_delta_pct = f.measured_delta_pct;
    v.tradeoff_named = f.tradeoff_named;
    v.gpu_sharing = to_json(f.gpu_sharing);
    v.cycles = to_json(f.cycles);
    for (const auto& g : f.guards) {
        StoredGuard s;
        s.metric = g.metric;
        s.verdict = g.word ? std::string(to_string(*g.word)) : std::string();
        s.assessed = g.assessed;
        s.regressed = g.regressed;
        s.delta_pct = g.delta_pct;
        s.sigma_pct = g.sigma_pct;
        if (g.ci95_delta_pct)
            s.ci95_delta_pct = *g.ci95_delta_pct;
        s.reasons = g.reasons;
        v.guards.push_back(std::move(s));
    }
    return v;
}

bool judged_paired(const Experiment& e)
{
    return e.verdict && e.verdict->paired.has_value();
}

} // namespace kwb::report
