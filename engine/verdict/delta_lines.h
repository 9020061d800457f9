// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/verdict.h"

#include <string>
#include <vector>

// The kill and license lines a delta% chart draws: the window's sigma chart and the report's delta
// chart both ask here, so neither re-reads a profile's numbers. A profile of the speedup family
// (the built-in "speedup", or a custom profile based on it) is judged by its speedup ratios, not by
// kill_pct and license_pct: its lines stand at those ratios converted to delta%, labelled as ratios.
namespace kwb {

struct DeltaLine {
    double delta_pct = 0; // where the line stands on the delta% axis
    VerdictWord word = VerdictWord::Kill; // Kill or License
    std::string label; // "kill < 5 %", "license ≥ 10 %"; "kill < 2× speedup", "license ≥ 5× speedup"
};

// Kill first, then license.
std::vector<DeltaLine> delta_lines(const Profile& profile);

} // namespace kwb
