// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The verdict engine's public face: the one place the GUI, `kwb verdict`, `kwb run` and the
// reports get a verdict from. The rules themselves are spec/verdict.md (version 1).

#include "study/study.h"
#include "util/direction.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kwb {

// A threshold profile. `name` is "generic", "strict", "speedup", or "custom" once any number was
// overridden, in which case `base` names the profile it started from.
struct Profile {
    std::string name = "generic";
    std::string base;
    Direction direction = Direction::Lower;
    int min_n = 3;
    double license_pct = 10;
    double kill_pct = 5;
    double max_sigma_pct = 5;
    double unstable_sigma_pct = 10;
    double noise_k = 2;
    double license_speedup = 5.0;   // speedup profile only
    double kill_speedup = 2.0;      // speedup profile only
};

// Throws std::invalid_argument("unknown profile \"x\" (expected generic, strict or speedup)").
Profile make_profile(std::string_view name, Direction direction);
// Overrides by key ("min_n", "license_pct", ...); any override turns the name into "custom".
// Throws std::invalid_argument naming an unknown key or a bad value.
Profile apply_overrides(Profile profile, const nlohmann::json& overrides);
// The "profile" object of the verdict JSON.
nlohmann::json profile_to_json(const Profile& profile);

// The sample verdict of spec/verdict.md: `word` is LICENSE, KILL, NOISE or INCONCLUSIVE;
// `json` is exactly the object `kwb verdict --json` prints.
struct SampleVerdict {
    std::string word;
    std::vector<std::string> reasons;
    nlohmann::json json;
};

// Inputs must already be valid (non-empty, finite, > 0; equal counts when paired).
SampleVerdict judge_samples(const std::vector<double>& baseline, const std::vector<double>& treatment,
                            const Profile& profile, bool paired);

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
    std::optional<AaCalibration> aa;   // cited in the reasons when present
};

// The study-level rules applied after the sample verdict: guards, tradeoff gate, prediction
// check. `json` carries {"verdict", "reasons", "flags", "sample_verdict", "guards", ...}.
struct FinalVerdict {
    std::string word;
    std::vector<std::string> reasons;
    std::vector<std::string> flags;   // prediction-check flags: "sign mismatch", "magnitude off"
    nlohmann::json json;
};

FinalVerdict apply_study_rules(const SampleVerdict& sample, const StudyRulesInput& input, const Profile& profile);

} // namespace kwb
