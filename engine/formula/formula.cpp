// SPDX-License-Identifier: GPL-3.0-or-later
#include "formula/formula.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <muParser.h>

namespace kwb {
namespace {

double floor_of(double x)
{
    return std::floor(x);
}
double ceil_of(double x)
{
    return std::ceil(x);
}

// muParser's built-in functions and constants, plus the two this module adds: a variable may
// not take one of these names.
constexpr std::array kReservedNames
    = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "log2", "log10",
        "log", "ln", "exp", "sqrt", "sign", "rint", "abs", "min", "max", "sum", "avg", "floor", "ceil", "_pi", "_e"};

// Plain words for the errors an engineer typing a formula meets; muParser's own text (which
// counts positions from 0) for the rest.
std::string describe(const mu::Parser::exception_type& e)
{
    const std::string token = e.GetToken();
    switch (e.GetCode()) {
    case mu::ecUNASSIGNABLE_TOKEN:
        return fmt::format("unknown name '{}' (not a variable of this study nor a function)", token);
    case mu::ecUNEXPECTED_EOF:
        return "the formula ends too early (an operator or argument is missing)";
    case mu::ecMISSING_PARENS:
        return "a '(' is never closed";
    case mu::ecUNEXPECTED_PARENS:
        return fmt::format("unexpected '{}'", token);
    case mu::ecUNEXPECTED_OPERATOR:
        return fmt::format("unexpected operator '{}'", token);
    case mu::ecUNEXPECTED_VAL:
        return fmt::format("unexpected number '{}' (an operator is missing before it?)", token);
    case mu::ecUNEXPECTED_VAR:
        return fmt::format("unexpected variable '{}' (an operator is missing before it?)", token);
    case mu::ecUNEXPECTED_FUN:
        return fmt::format("unexpected function '{}' (an operator is missing before it?)", token);
    case mu::ecUNEXPECTED_ARG_SEP:
        return "unexpected ',' (outside a function's arguments)";
    case mu::ecTOO_MANY_PARAMS:
        return fmt::format("too many arguments for '{}'", token);
    case mu::ecTOO_FEW_PARAMS:
        return fmt::format("too few arguments for '{}'", token);
    case mu::ecUNEXPECTED_STR:
    case mu::ecUNTERMINATED_STRING:
    case mu::ecSTR_RESULT:
        return "strings have no place in a formula";
    case mu::ecEXPRESSION_TOO_LONG:
        return "the formula is too long";
    case mu::ecINVALID_CHARACTERS_FOUND:
        return "the formula holds characters that are not printable";
    default:
        return e.GetMsg();
    }
}

// The first ',' outside any parentheses: where a formula giving several values goes wrong.
int top_level_comma(const std::string& formula)
{
    int depth = 0;
    for (size_t i = 0; i < formula.size(); ++i) {
        const char c = formula[i];
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (c == ',' && depth == 0)
            return static_cast<int>(i);
    }
    return -1;
}

// Where `name` first stands as a whole name in the formula (not inside a longer one), or -1.
int name_offset(const std::string& formula, const std::string& name)
{
    const auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (auto at = formula.find(name); at != std::string::npos; at = formula.find(name, at + 1)) {
        const size_t end = at + name.size();
        if ((at == 0 || !is_name_char(formula[at - 1])) && (end == formula.size() || !is_name_char(formula[end])))
            return static_cast<int>(at);
    }
    return -1;
}

} // namespace

std::string FormulaError::text() const
{
    if (offset < 0)
        return message;
    return token.empty() ? fmt::format("position {}: {}", position(), message)
                         : fmt::format("position {} ('{}'): {}", position(), token, message);
}

bool is_formula_name(std::string_view name)
{
    // muParser refuses longer identifiers ("Identifier too long"); found by fuzz_formula.
    if (name.empty() || name.size() > static_cast<std::size_t>(mu::MaxLenIdentifier)
        || std::isdigit(static_cast<unsigned char>(name.front())))
        return false;
    if (!std::all_of(
            name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        return false;
    return std::find(kReservedNames.begin(), kReservedNames.end(), name) == kReservedNames.end();
}

std::string to_formula_name(std::string_view text)
{
    std::string name;
    for (char c : text)
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())))
        name.insert(name.begin(), '_');
    // At most muParser's identifier length, leaving room for the reserved-word suffix.
    if (name.size() >= static_cast<std::size_t>(mu::MaxLenIdentifier))
        name.resize(static_cast<std::size_t>(mu::MaxLenIdentifier) - 1);
    if (!is_formula_name(name))
        name += '_'; // a reserved word ("min") becomes "min_"
    return name;
}

FormulaEvaluation evaluate_formula(const std::string& formula, const std::vector<FormulaVariable>& variables)
{
    FormulaEvaluation result;
    const auto fail = [&](std::string message, int offset, std::string token = {}) {
        // muParser puts errors found at the end one past it ("1+", "(1+2"): point at the last
        // character instead, with no token (the one muParser names is not in the text).
        const int end = static_cast<int>(formula.size());
        if (offset >= end) {
            offset = std::max(end - 1, 0);
            token.clear();
        }
        result.error = FormulaError {std::move(message), offset, std::move(token)};
        return result;
    };
    if (formula.find_first_not_of(" \t\r\n") == std::string::npos)
        return fail("the formula is empty (phase 4: no formula, no run)", 0);

    // The last definition of a name wins; values live in a map so their addresses stay put.
    std::map<std::string, double> values;
    for (const auto& v : variables) {
        if (!is_formula_name(v.name))
            return fail(fmt::format("variable '{}' has a name muParser does not accept (letters, digits and '_', "
                                    "not starting with a digit, not a function name)",
                            v.name),
                -1);
        values[v.name] = v.value;
    }

    mu::Parser parser;
    try {
        parser.DefineFun("floor", floor_of);
        parser.DefineFun("ceil", ceil_of);
        for (auto& [name, value] : values)
            parser.DefineVar(name, &value);
        parser.SetExpr(formula);
        for (const auto& [name, unused] : parser.GetUsedVar())
            result.used.push_back(name);
        // GetUsedVar() lists every name the formula uses, defined or not, sorted: the error names
        // the bad one that comes first in the formula.
        std::string bad;
        int bad_at = -1;
        for (const auto& name : result.used) {
            const auto value = values.find(name);
            const int at = name_offset(formula, name);
            if ((value == values.end() || !std::isfinite(value->second)) && (bad_at < 0 || at < bad_at)) {
                bad = name;
                bad_at = at;
            }
        }
        if (!bad.empty())
            return fail(values.count(bad)
                    ? fmt::format("variable '{}' is not a finite number", bad)
                    : fmt::format("unknown name '{}' (not a variable of this study nor a function)", bad),
                bad_at, bad);
        const double value = parser.Eval();
        if (parser.GetNumResults() > 1)
            return fail(fmt::format("the formula gives {} values; it must give one (a ',' outside a function call)",
                            parser.GetNumResults()),
                top_level_comma(formula), ",");
        if (!std::isfinite(value))
            return fail(fmt::format("the formula evaluates to {} (a division by zero, or a root or logarithm "
                                    "outside its domain?)",
                            std::isnan(value) ? "NaN"
                                : value > 0   ? "+infinity"
                                              : "-infinity"),
                -1);
        result.value = value;
    } catch (const mu::Parser::exception_type& e) {
        return fail(describe(e), e.GetPos(), e.GetToken());
    }
    return result;
}

} // namespace kwb
