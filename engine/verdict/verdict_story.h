// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The verdict as one story: the one word a study answers with (the final verdict), the one reason
// that decided it, what would change it, and, as a secondary line, what the numbers alone said
// (the sample verdict). Every place that shows a verdict to a person asks this one function: the
// Results and Verdict pages, every report format and `kwb run`'s summary print the same sentences,
// so a badge never sits beside a line that argues for another word.
//
// The next step of an INCONCLUSIVE follows the rule that decided it (docs/verdict.md, "The next
// step"): too few runs or strict's not-significant -> more runs (the engine's estimate); sigma too
// high -> longer repetitions, more warm-up or a quieter machine (more runs do not lower sigma%);
// a delta between kill and license -> no run count changes the class; bimodal -> characterise the
// modes; a gate -> the page that fills it; another process on the GPU -> a quieter machine.

#include "verdict/verdict_types.h"

#include <optional>
#include <string>
#include <string_view>

namespace kwb {

enum class NextStepKind {
    None, // a LICENSE, KILL or NOISE: nothing to do for this verdict
    AddRuns, // continue the same experiment to `runs_per_arm` (kwb run --continue)
    SteadierRuns, // longer repetitions, more warm-up, a quieter machine (phase 5's plan)
    NoRunCount, // the class will not change with more runs: only another treatment would
    CharacteriseModes, // bimodal: find what the two modes are (phase 3's profile)
    FillGate, // a gate the verdict needs: the page (phase) that fills it
    QuieterMachine, // another process shared the device: rerun with it to itself
    Reprofile, // the speed-of-light guard: an arm did less work than declared (phase 3)
};

// "add-runs", "steadier-runs", "no-run-count", "characterise-modes", "fill-gate",
// "quieter-machine", "reprofile", "none": the JSON and stream word.
std::string_view to_string(NextStepKind kind);

struct NextStep {
    NextStepKind kind = NextStepKind::None;
    std::string text; // one sentence for people
    std::string action; // a button's label ("Add runs to 21 per arm"); empty: nothing to press
    std::optional<int> runs_per_arm; // AddRuns: the total per arm to continue to
    int phase = 0; // FillGate, CharacteriseModes, SteadierRuns, Reprofile: the methodology page (1-8)
};

struct VerdictStory {
    VerdictWord word = VerdictWord::Inconclusive; // the badge: the final verdict
    std::string reason; // the one reason that decided it
    std::string change; // what would change it
    VerdictWord numbers_word = VerdictWord::Inconclusive; // the sample verdict
    std::string numbers_alone; // "the numbers alone: LICENSE (delta 39.1% >= license 10% ...)"
    NextStep next;
};

// From a study's final verdict and the sample verdict it was made from.
VerdictStory verdict_story(const FinalVerdict& final, const SampleVerdict& sample);

// The story as the lines every text output prints, in this order: "<WORD>: <reason>", "what would
// change it: ...", "next step: ..." (INCONCLUSIVE only), "the numbers alone: ...".
std::vector<std::string> story_lines(const VerdictStory& story);

} // namespace kwb
