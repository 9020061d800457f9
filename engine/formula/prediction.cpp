// SPDX-License-Identifier: GPL-3.0-or-later
#include "formula/prediction.h"

#include "formula/formula_variables.h"

#include <cmath>

namespace kwb {

std::optional<double> speedup_from_delta(double delta_pct, Direction direction)
{
    const double ratio = direction == Direction::Lower ? 1.0 / (1.0 - delta_pct / 100.0) : 1.0 + delta_pct / 100.0;
    if (!(ratio > 0) || !std::isfinite(ratio) || (direction == Direction::Lower && delta_pct >= 100.0))
        return std::nullopt;
    return ratio;
}

PredictionResult evaluate_prediction(const Study& study)
{
    PredictionResult r;
    r.variables = formula_variables(study);
    r.direction = study.target.direction;
    r.evaluation = evaluate_formula(study.prediction.formula, r.variables);
    r.delta_pct = r.evaluation.value;
    if (r.delta_pct)
        r.speedup = speedup_from_delta(*r.delta_pct, r.direction);
    return r;
}

PredictionResult refresh_prediction(Study& study)
{
    PredictionResult r = evaluate_prediction(study);
    study.prediction.predicted_delta_pct = r.delta_pct;
    return r;
}

} // namespace kwb
