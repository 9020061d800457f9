// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Everything measured about a baseline/treatment pair before any rule is applied: the numbers the
// sample rules read and the evidence reported beside the verdict (spec/verdict.md). Computing it
// once keeps the rules a pure decision table over named numbers.

#include "stats/bimodality.h"
#include "stats/bootstrap.h"
#include "stats/descriptive.h"
#include "stats/hypothesis_tests.h"
#include "util/direction.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace kwb {

struct PairedEvidence {
    std::size_t n_pairs = 0;
    std::vector<double> delta_pct; // per pair, positive = better
    double mean_delta_pct = 0;
    std::optional<stats::Interval> ci95_delta_pct; // null with one pair
};

struct SampleEvidence {
    Direction direction = Direction::Lower;
    stats::ArmSummary baseline;
    stats::ArmSummary treatment;
    stats::Bimodality bimodal_baseline;
    stats::Bimodality bimodal_treatment;
    double delta_pct = 0; // of the means, positive = better
    std::optional<double> sigma_pct; // max(cv%_B, cv%_T); null when an arm has n = 1
    double speedup = 1;
    std::optional<stats::Interval> ci95_delta_pct;
    std::optional<double> p_welch;
    stats::MannWhitneyResult mannwhitney;
    std::optional<PairedEvidence> paired;
};

// Inputs must be valid (non-empty, finite, > 0; equal counts when paired).
SampleEvidence collect_evidence(
    const std::vector<double>& baseline, const std::vector<double>& treatment, Direction direction, bool paired);

// JSON helpers shared by the verdict objects: a finite number, or null.
nlohmann::json number_or_null(double x);
nlohmann::json number_or_null(const std::optional<double>& x);
nlohmann::json interval_or_null(const std::optional<stats::Interval>& ci);

// The "arms" entry of one arm.
nlohmann::json arm_to_json(const stats::ArmSummary& arm, const stats::Bimodality& bimodality);

} // namespace kwb
