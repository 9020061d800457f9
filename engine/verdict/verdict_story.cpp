// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/verdict_story.h"

#include "study/gates.h"
#include "verdict/profile.h"
#include "verdict/wording.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {
namespace {

using wording::num;

std::string word_text(VerdictWord w)
{
    return std::string(to_string(w));
}

// The first reason of `reasons` containing `needle`, or empty.
std::string find_reason(const std::vector<std::string>& reasons, std::string_view needle)
{
    for (const auto& r : reasons)
        if (r.find(needle) != std::string::npos)
            return r;
    return {};
}

bool speedup_family(const Profile& p)
{
    return rule_family(p) == "speedup";
}

std::string license_line(const Profile& p)
{
    return speedup_family(p) ? fmt::format("license {}x", num(p.license_speedup))
                             : fmt::format("license {}%", num(p.license_pct));
}

std::string kill_line(const Profile& p)
{
    return speedup_family(p) ? fmt::format("kill {}x", num(p.kill_speedup)) : fmt::format("kill {}%", num(p.kill_pct));
}

std::string effect(const SampleVerdict& s)
{
    if (speedup_family(s.profile))
        return s.speedup ? fmt::format("speedup {}x", num(*s.speedup)) : std::string("the speedup");
    return s.delta_pct ? fmt::format("delta {}%", num(*s.delta_pct)) : std::string("delta");
}

NextStep add_runs(int per_arm, std::string why)
{
    NextStep n;
    n.kind = NextStepKind::AddRuns;
    n.runs_per_arm = per_arm;
    n.text = fmt::format("add runs: continue this experiment to {} runs per arm ({})", per_arm, why);
    n.action = fmt::format("Add runs to {} per arm", per_arm);
    return n;
}

NextStep steadier(const std::vector<std::string>& final_reasons)
{
    NextStep n;
    n.kind = NextStepKind::SteadierRuns;
    n.phase = 5;
    n.text = "make each run steadier: longer repetitions, more warm-up, or a quieter machine (more runs do not lower "
             "sigma%: it is the spread of single runs, not of the mean)";
    if (const auto busy = find_reason(final_reasons, "unstable on a busy machine"); !busy.empty())
        n.text += "; " + busy;
    n.action = "Edit the run plan (phase 5)";
    return n;
}

// The sample verdict's own story: the rule that matched decides.
void sample_story(const SampleVerdict& s, const FinalVerdict& f, VerdictStory& out)
{
    const Profile& p = s.profile;
    out.reason = s.reasons.empty() ? std::string() : s.reasons.front();
    const auto sigma_text = s.sigma_pct ? fmt::format("sigma {}%", num(*s.sigma_pct)) : std::string("sigma");
    switch (s.rule) {
    case 1: {
        const int need = std::max(p.min_n, s.runs_needed_per_arm.value_or(0));
        out.change = fmt::format("{} runs per arm or more would let the rules judge it", p.min_n);
        out.next = add_runs(need, fmt::format("the profile needs at least {}", p.min_n));
        return;
    }
    case 2:
        if (!s.sigma_pct) {
            out.change
                = fmt::format("a second run in each arm gives a sigma to judge; {} per arm is the minimum", p.min_n);
            out.next = add_runs(std::max(p.min_n, 2), "a single run has no spread");
            return;
        }
        out.change = fmt::format(
            "{} below {}% (steadier runs) would let the delta decide", sigma_text, num(p.unstable_sigma_pct));
        out.next = steadier(f.reasons);
        return;
    case 3: {
        std::string all;
        for (const auto& r : s.reasons)
            all += (all.empty() ? "" : "; ") + r;
        out.reason = all;
        out.change = "one mode per arm (the cause of the second found and removed, or each mode measured on its own)";
        out.next.kind = NextStepKind::CharacteriseModes;
        out.next.phase = 3;
        out.next.text = "characterise the modes: profile both arms (phase 3) to find what puts a run in one mode or "
                        "the other (clock states, placement, cache), then measure each mode on its own";
        out.next.action = "Profile the arms (phase 3)";
        return;
    }
    case 4:
        out.change = fmt::format("only a larger effect: |delta| must exceed the noise band ({} x {}), and more runs "
                                 "do not lower sigma%",
            num(p.noise_k), sigma_text);
        return;
    case 5:
        if (s.word == VerdictWord::License) {
            out.change = fmt::format("it holds while {} stays at or above {} with {} below {}% and no guard regresses",
                effect(s), license_line(p), sigma_text, num(p.max_sigma_pct));
            return;
        }
        // The strict profile's significance gate.
        out.change = "a 95% CI that clears the kill line and Welch p < 0.05, which more runs can give";
        out.next = s.runs_needed_per_arm
            ? add_runs(*s.runs_needed_per_arm, "the engine's estimate for the CI to clear its nearest threshold")
            : add_runs(static_cast<int>(2 * std::max(s.n_baseline(), s.n_treatment())),
                "no estimate from the CI: twice the runs");
        return;
    case 6:
        out.change = fmt::format("only another treatment: {} is below {}; more runs measure the same shortfall more "
                                 "precisely",
            effect(s), kill_line(p));
        return;
    case 7:
    default:
        if (s.sigma_pct && *s.sigma_pct >= p.max_sigma_pct) {
            out.change = fmt::format("{} below {}% would let {} license", sigma_text, num(p.max_sigma_pct), effect(s));
            out.next = steadier(f.reasons);
            return;
        }
        out.change
            = fmt::format("no run count changes the class: {} lies between {} and {}; only another treatment would",
                effect(s), kill_line(p), license_line(p));
        out.next.kind = NextStepKind::NoRunCount;
        out.next.text = fmt::format("no run count changes the class ({} is between {} and {}): change the treatment, "
                                    "or record this attempt as what it is",
            effect(s), kill_line(p), license_line(p));
        return;
    }
}

} // namespace

std::string_view to_string(NextStepKind kind)
{
    switch (kind) {
    case NextStepKind::None:
        return "none";
    case NextStepKind::AddRuns:
        return "add-runs";
    case NextStepKind::SteadierRuns:
        return "steadier-runs";
    case NextStepKind::NoRunCount:
        return "no-run-count";
    case NextStepKind::CharacteriseModes:
        return "characterise-modes";
    case NextStepKind::FillGate:
        return "fill-gate";
    case NextStepKind::QuieterMachine:
        return "quieter-machine";
    case NextStepKind::Reprofile:
        return "reprofile";
    }
    return "none";
}

VerdictStory verdict_story(const FinalVerdict& f, const SampleVerdict& s)
{
    VerdictStory out;
    out.word = f.word;
    out.numbers_word = s.word;
    out.numbers_alone = fmt::format("the numbers alone: {}", word_text(s.word));
    if (s.word != f.word && !s.reasons.empty())
        out.numbers_alone += fmt::format(" ({})", s.reasons.front());

    // The study-level rules, the last applied first: each overrides what came before it.
    if (f.word == VerdictWord::Inconclusive && f.gpu_sharing && f.gpu_sharing->shared > 0) {
        const auto& g = *f.gpu_sharing;
        out.reason = find_reason(f.reasons, "another process used the GPU");
        out.change = "the same runs with the GPU to themselves";
        out.next.kind = NextStepKind::QuieterMachine;
        out.next.text = fmt::format("rerun on a quieter machine: another process had work on the GPU in {} of {} "
                                    "repetitions ({})",
            g.shared, g.repetitions, g.source);
        out.next.action = "New attempt (on a quieter GPU)";
        return out;
    }
    if (f.word == VerdictWord::Inconclusive
        && std::find(f.flags.begin(), f.flags.end(), "speed of light") != f.flags.end()) {
        out.reason = find_reason(f.reasons, "cannot have done its work");
        out.change = "arms whose measured rate stays under the hardware's roof";
        out.next.kind = NextStepKind::Reprofile;
        out.next.phase = 3;
        out.next.text = "re-profile: an arm ran faster than the hardware allows, so it skipped work or declares the "
                        "wrong bytes or FLOPs; check it on phase 3";
        out.next.action = "Re-profile (phase 3)";
        return out;
    }
    const bool guard_kill = f.word == VerdictWord::Kill
        && std::any_of(f.guards.begin(), f.guards.end(), [](const GuardVerdict& g) { return g.regressed; });
    if (guard_kill) {
        out.reason = find_reason(f.reasons, "guard regressed");
        out.change = "a treatment that keeps every guard within its tolerance";
        return out;
    }
    if (f.word == VerdictWord::Inconclusive && s.word == VerdictWord::License && !f.tradeoff_named) {
        out.reason = tradeoff_gate_reason();
        out.change = "naming what the treatment gave up (phase 7) makes it LICENSE";
        out.next.kind = NextStepKind::FillGate;
        out.next.phase = 7;
        out.next.text = "name a tradeoff on phase 7: a license says what it sacrificed";
        out.next.action = "Name a tradeoff (phase 7)";
        return out;
    }
    if (f.word != s.word) {
        // Another study-level rule (a command arm's controls) put its reason first.
        out.reason = f.reasons.empty() ? std::string() : f.reasons.front();
        out.change = "arms whose controls match (phase 5)";
        if (f.word == VerdictWord::Inconclusive) {
            out.next.kind = NextStepKind::FillGate;
            out.next.phase = 5;
            out.next.text = "fix the matched controls on the A/B page (phase 5), then run a new attempt";
            out.next.action = "Open the A/B (phase 5)";
        }
        return out;
    }
    sample_story(s, f, out);
    return out;
}

std::vector<std::string> story_lines(const VerdictStory& story)
{
    std::vector<std::string> lines;
    lines.push_back(fmt::format("{}: {}", word_text(story.word), story.reason));
    if (!story.change.empty())
        lines.push_back("what would change it: " + story.change);
    if (story.next.kind != NextStepKind::None && !story.next.text.empty())
        lines.push_back("next step: " + story.next.text);
    lines.push_back(story.numbers_alone);
    return lines;
}

} // namespace kwb
