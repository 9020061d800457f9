// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The sample rules of spec/verdict.md as a decision over already collected evidence. judge_samples()
// (verdict.h) is collect_evidence() + decide_sample() + the JSON of `kwb verdict --json`.

#include "verdict/evidence.h"
#include "verdict/verdict.h"

namespace kwb {

struct SampleDecision {
    VerdictWord word = VerdictWord::Inconclusive;
    int rule = 0; // the rule that matched, 1-7
    bool strict_gate_failed = false; // strict: rule 5 matched but the CI or Welch's p did not hold
    std::vector<std::string> reasons;
};

SampleDecision decide_sample(const SampleEvidence& evidence, const Profile& profile);

// The typed sample verdict of evidence judged by a decision.
SampleVerdict make_sample_verdict(const SampleEvidence& evidence, SampleDecision decision, const Profile& profile);

// The `kwb verdict --json` object for evidence judged by a decision: to_json(make_sample_verdict()).
nlohmann::json sample_verdict_json(
    const SampleEvidence& evidence, const SampleDecision& decision, const Profile& profile);

} // namespace kwb
