// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "stats/interaction.h"
#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// A grid group's interaction (stats/interaction.h) from its cells' judged runs, as the study
// stores it under grids[].interaction. Each cell keeps its own verdict (it is an A/B); the
// interaction says whether the two variables' effects add up.
namespace kwb {

// The cells of the group not yet judged (no run in an arm, or missing from the study), as
// labels like "r1c1"; empty when the interaction can be estimated.
std::vector<std::string> grid_cells_pending(const Study& study, const GridGroup& grid);

// The interaction estimate of a group whose every cell is judged; nullopt otherwise.
std::optional<stats::InteractionEstimate> grid_interaction_estimate(const Study& study, const GridGroup& grid);

// What the study stores under `interaction` (study/grid_interaction_record.h): the cells' deltas,
// one contrast per cell with both variables changed (with its bootstrap CI), the difference of
// differences of a 2x2 grid, the two-way test, `flagged` and a one-line summary.
GridInteraction interaction_record(const Study& study, const GridGroup& grid, const stats::InteractionEstimate& est);

// Recomputes grid.interaction (null while a cell is pending). The one owner of that key.
void judge_grid(Study& study, GridGroup& grid);
void judge_grids(Study& study);

} // namespace kwb
