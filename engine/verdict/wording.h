// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How numbers read in verdict reasons: short, but never rounded to a misleading zero.

#include <cmath>
#include <fmt/format.h>
#include <string>

namespace kwb::wording {

// 14.2857 -> "14.29", 10 -> "10", 0.000123 -> "0.000123", -3.5 -> "-3.5".
inline std::string num(double x)
{
    if (!std::isfinite(x))
        return "undefined";
    if (std::fabs(x) >= 1 || x == 0) {
        std::string s = fmt::format("{:.2f}", x);
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
        return s == "-0" ? "0" : s;
    }
    return fmt::format("{:.3g}", x);
}

// p-values: "0.0079", "1.2e-07".
inline std::string p_value(double p)
{
    return p >= 1e-4 ? fmt::format("{:.2g}", p) : fmt::format("{:.2e}", p);
}

} // namespace kwb::wording
