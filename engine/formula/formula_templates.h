// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "formula/formula.h"
#include "study/study.h"

#include <string>
#include <vector>

// Starting points for the prediction formula (methodology phase 4), each a muParser expression of
// the predicted delta% (positive = better, for a time) over hardware constants and a few named
// inputs with example values. The engineer replaces the inputs with the kernel's own numbers.
namespace kwb {

struct FormulaTemplate {
    std::string id; // "occupancy-smem"
    std::string title; // "Occupancy from shared memory per block"
    std::string assumption; // the model behind it in one sentence, so its limits are visible
    std::string formula;
    std::vector<FormulaVariable> inputs; // names it needs beyond hardware constants, with example values
    std::vector<std::string> hardware; // hardware constants it needs
};

const std::vector<FormulaTemplate>& formula_templates();
const FormulaTemplate* find_formula_template(const std::string& id);

// Puts the template's formula into the study, adds each of its inputs the formula could not
// otherwise see (not typed yet, not an arm parameter or hardware constant) with its example
// value, and recomputes the prediction. Values the engineer already typed are kept.
void apply_formula_template(Study& study, const FormulaTemplate& t);

} // namespace kwb
