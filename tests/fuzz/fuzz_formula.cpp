// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: the formula parser (engine/formula, muParser underneath). Any text must evaluate to
// a finite value or come back as a FormulaError whose offset lies inside the formula; it must never
// throw, crash or read outside the text. The names helpers must turn any text into a name the
// parser accepts.
#include "formula/formula.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    static const std::vector<kwb::FormulaVariable> variables = {
        {"baseline_block", 128, "baseline arm", ""},
        {"treatment_block", 64, "treatment arm", ""},
        {"smem_per_sm", 233472, "hardware", "bytes"},
        {"sm_count", 132, "hardware", ""},
        {"x", 0.5, "study", ""},
        {"zero", 0, "study", ""},
    };
    const kwb::FormulaEvaluation e = kwb::evaluate_formula(text, variables);
    if (e.ok() == e.error.has_value())
        std::abort(); // exactly one of value and error
    if (e.error && e.error->offset > static_cast<int>(text.size()))
        std::abort(); // the error points inside the formula (or at its end)
    if (e.error)
        (void)e.error->text();
    const std::string name = kwb::to_formula_name(text);
    if (name.size() < 200 && kwb::is_formula_name(name) && !kwb::evaluate_formula(name, {{name, 1, "study", ""}}).ok())
        std::abort(); // a name the parser accepts, given a value, evaluates
    return 0;
}
