// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The verdict engine's public face: the one place the GUI, `kwb verdict`, `kwb run` and the
// reports get a verdict from. The rules themselves are spec/verdict.md (version 1).

#include "study/study.h"
#include "util/direction.h"
#include "verdict/cycles.h"
#include "verdict/verdict_json.h"
#include "verdict/verdict_types.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kwb {

// Throws std::invalid_argument("unknown profile \"x\" (expected generic, strict or speedup)").
Profile make_profile(std::string_view name, Direction direction);
// Overrides by key ("min_n", "license_pct", ...); any override turns the name into "custom".
// Throws std::invalid_argument naming an unknown key or a bad value.
Profile apply_overrides(Profile profile, const nlohmann::json& overrides);
// The "profile" object of the verdict JSON.
nlohmann::json profile_to_json(const Profile& profile);

// The sample verdict of spec/verdict.md (verdict_types.h); to_json() of it is exactly the object
// `kwb verdict --json` prints.
// Inputs must already be valid (non-empty, finite, > 0; equal counts when paired).
SampleVerdict judge_samples(
    const std::vector<double>& baseline, const std::vector<double>& treatment, const Profile& profile, bool paired);

// One guard metric of a study: it must not regress while the target improves.
struct GuardArms {
    std::string metric;
    Direction direction = Direction::Lower;
    std::vector<double> baseline;
    std::vector<double> treatment;
    double tolerance_pct = 0;
};

struct StudyRulesInput {
    std::vector<GuardArms> guards;
    std::vector<Tradeoff> tradeoffs;
    std::optional<double> predicted_delta_pct;
    std::optional<SplitHalfCheck> split_half; // cited in the reasons when present
    std::optional<GpuSharingSummary> gpu_sharing; // verdict/gpu_sharing.h; null: no process list
    std::optional<CyclesArms> cycles; // verdict/cycles.h; null: no clock
};

// The study-level rules applied after the sample verdict: guards, tradeoff gate, prediction
// check; the split-half stability check cited when present; the comparison in cycles cited
// beside the verdict; another process on the GPU makes it INCONCLUSIVE (last: it overrides all).
FinalVerdict apply_study_rules(const SampleVerdict& sample, const StudyRulesInput& input, const Profile& profile);

} // namespace kwb
