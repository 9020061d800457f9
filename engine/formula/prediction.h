// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "formula/formula.h"
#include "study/study.h"

#include <optional>
#include <vector>

// The study's prediction (methodology phase 4) evaluated: the formula over the study's variables
// (formula/formula_variables.h), the predicted delta% and the speedup it means. The predicted
// value stored in a study is never typed: refresh_prediction() is its one owner, called on load,
// on save, by `kwb predict` and by the formula page whenever the formula or a variable changes.
namespace kwb {

struct PredictionResult {
    FormulaEvaluation evaluation; // the formula's value, or where it went wrong
    std::vector<FormulaVariable> variables; // every variable the formula could use
    Direction direction = Direction::Lower; // the target metric's
    std::optional<double> delta_pct; // the formula's value: predicted improvement, positive = better
    std::optional<double> speedup; // what that delta means as a ratio, null where it has none
};

PredictionResult evaluate_prediction(const Study& study);

// Sets study.prediction.predicted_delta_pct to the formula's value, or null when the formula is
// empty or does not evaluate. Returns the evaluation.
PredictionResult refresh_prediction(Study& study);

// delta% -> speedup, per spec/verdict.md's definitions: lower is better, delta = 100 (B - T) / B,
// so speedup B / T = 1 / (1 - delta / 100); higher is better, delta = 100 (T - B) / B, so
// T / B = 1 + delta / 100. Null when the delta leaves no positive finite ratio (a lower-is-better
// delta of 100% or more, a higher-is-better one of -100% or less).
std::optional<double> speedup_from_delta(double delta_pct, Direction direction);

} // namespace kwb
