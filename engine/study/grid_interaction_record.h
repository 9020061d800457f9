// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/direction.h"

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// A grid group's interaction as the study stores it under grids[].interaction (docs/study-format.md):
// a typed record with one codec, so the window's heat map, the report and kwb's printed summary
// read fields, never keys of an untyped object or words of the summary. The engine fills it
// (verdict/grid_interaction.h); stats/interaction.h says how each number is computed.
namespace kwb {

class JsonReader;

struct InteractionContrastRecord {
    int row = 0;
    int col = 0;
    std::string experiment; // the cell's experiment id
    double measured_pct = 0; // d_ij
    double additive_pct = 0; // d_i0 + d_0j
    double interaction_pct = 0; // measured - additive
    std::optional<std::array<double, 2>> ci95; // null when an arm it involves has fewer than 2 runs
    bool ci_excludes_zero = false;
};

struct GridInteraction {
    std::string metric;
    Direction direction = Direction::Lower;
    std::vector<std::vector<double>> delta_pct; // [row][col]; [0][0] is 0
    std::vector<InteractionContrastRecord> contrasts; // cells with both variables changed, row-major
    std::optional<double> difference_of_differences_pct; // a 2x2 grid's one contrast; null beyond 2x2
    std::optional<std::array<double, 2>> ci95; // its 95% CI (2x2 only)
    std::optional<double> f_two_way;
    std::optional<double> p_two_way;
    int df_interaction = 0;
    int df_residual = 0;
    std::optional<double> pooled_variance; // of per-run delta% (points^2); null without spread
    bool flagged = false; // the effects do not add up
    double alpha = 0.05;
    int resamples = 0;
    std::string summary; // one line, for people
    std::string method;

    // A grid of 2 x 2 cells: judged by its one contrast's CI; a larger one by the two-way test,
    // which its summary names.
    bool two_by_two() const { return delta_pct.size() == 2 && delta_pct[0].size() == 2; }
};

nlohmann::json to_json(const GridInteraction& interaction);

// Reads the stored object; a malformed one throws FormatError naming the field
// ("grids[0].interaction.contrasts[1].ci95").
GridInteraction grid_interaction_from(const JsonReader& reader);

} // namespace kwb
