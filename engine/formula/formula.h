// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Formula evaluation on muParser (methodology phase 4: "predicted delta from hardware x workload
// constants, with magnitude; no formula, no run"). A formula is one muParser expression over named
// variables; besides muParser's built-ins (min, max, sqrt, ln, ...) it may call floor() and ceil(),
// which occupancy arithmetic needs. An error names the bad token and where it starts, so an
// editor can put the cursor on it and `kwb predict` can name the position.
namespace kwb {

// One named number a formula may use, and where it came from (shown beside it in the editor).
struct FormulaVariable {
    std::string name;
    double value = 0;
    std::string source; // "study" (typed by the engineer), "hardware", "baseline arm", "treatment arm"
    std::string note; // unit or origin in words, e.g. "bytes, NVIDIA H200 (device sheet)"
};

struct FormulaError {
    std::string message; // plain words, without the position
    int offset = -1; // 0-based index of the bad token's first character; -1 when no token is at fault
    std::string token; // the bad token, when there is one

    // 1-based column for people ("position 5"), 0 when no token is at fault.
    int position() const { return offset < 0 ? 0 : offset + 1; }
    // "position 5 ('foo'): unknown name 'foo'", or the message alone without a position.
    std::string text() const;
};

struct FormulaEvaluation {
    std::optional<double> value; // set when the formula evaluated to a finite number
    std::optional<FormulaError> error; // set otherwise
    std::vector<std::string> used; // variables the formula refers to, sorted
    bool ok() const { return value.has_value(); }
};

// Evaluates `formula` with `variables` (a later variable of the same name replaces an earlier one,
// so callers list defaults first and the engineer's own values last). Never throws for a bad
// formula: the error is in the result. An empty formula is an error at position 1.
FormulaEvaluation evaluate_formula(const std::string& formula, const std::vector<FormulaVariable>& variables);

// Whether muParser accepts `name` as a variable: letters, digits and '_', not starting with a
// digit, at most 100 characters (muParser's limit), and not one of its built-in function names or
// constants.
bool is_formula_name(std::string_view name);

// A name muParser accepts made from any text: other characters become '_', a leading digit gets a
// '_' in front ("block-M" -> "block_M", "2stage" -> "_2stage"); cut to muParser's 100 characters.
std::string to_formula_name(std::string_view text);

} // namespace kwb
