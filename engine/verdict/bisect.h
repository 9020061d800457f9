// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <string>
#include <vector>

// `kwb bisect`'s rules (docs/git-arms.md): one interleaved A/B of a candidate commit against the
// good commit per step, called through the one regression rule (verdict/regression.h, the guard
// rule of spec/verdict.md, no tolerance): a regression marks the candidate bad; NOISE, or a delta
// that is not a regression, marks it good; INCONCLUSIVE is run again once with more runs, then the
// search stops and reports the range left. Every step is an experiment of the study, id "bisect-N".
namespace kwb {

inline constexpr const char* kBisectPrefix = "bisect-";

enum class StepOutcome { Bad, Good, Inconclusive };
std::string_view to_string(StepOutcome o);

struct StepCall {
    StepOutcome outcome = StepOutcome::Inconclusive;
    std::string reason; // "regression: delta -212% beyond the noise band 2.1%"
};

// The call of a judged step (its sample verdict); Inconclusive when it has none.
StepCall call_bisect_step(const Experiment& step);

// The binary search over `commits` (good's descendants up to bad, oldest first, bad last): `lo` is
// the last known good (-1: the good commit itself), `hi` the first known bad (bad: the last).
struct BisectSearch {
    std::vector<std::string> commits;
    int lo = -1;
    int hi = -1;

    explicit BisectSearch(std::vector<std::string> c)
        : commits(std::move(c))
        , lo(-1)
        , hi(static_cast<int>(commits.size()) - 1)
    {
    }
    bool done() const { return hi - lo <= 1; }
    int next() const { return lo + (hi - lo) / 2; }
    void mark(int index, StepOutcome o)
    {
        if (o == StepOutcome::Bad)
            hi = index;
        else if (o == StepOutcome::Good)
            lo = index;
    }
};

// The path the study holds: its bisect steps in order, each with its candidate commit and its call.
struct BisectPathRow {
    std::string experiment;
    std::string good_sha, candidate_sha;
    StepCall call;
};
std::vector<BisectPathRow> bisect_path(const Study& study);

} // namespace kwb
