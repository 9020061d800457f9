// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/verdict_types.h"

namespace kwb {

std::string_view to_string(VerdictWord word)
{
    switch (word) {
    case VerdictWord::License:
        return "LICENSE";
    case VerdictWord::Kill:
        return "KILL";
    case VerdictWord::Noise:
        return "NOISE";
    case VerdictWord::Inconclusive:
        return "INCONCLUSIVE";
    }
    return "INCONCLUSIVE";
}

std::optional<VerdictWord> parse_verdict_word(std::string_view text)
{
    for (auto w : {VerdictWord::License, VerdictWord::Kill, VerdictWord::Noise, VerdictWord::Inconclusive})
        if (to_string(w) == text)
            return w;
    return std::nullopt;
}

} // namespace kwb
