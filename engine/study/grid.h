// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// Grids (methodology phase 6: "where variables couple, run a 2x2 or 3x3 grid and read the
// interaction, not two separate A/Bs"). A grid of two variables with 2 to 4 levels each is a
// GridGroup plus one experiment of kind "grid-cell" per cell but the baseline cell: the baseline
// cell against that cell, interleaved, judged like any A/B. Each cell names its group and its
// coordinates, so cells can run apart and be gathered again.
namespace kwb {

inline constexpr int kGridMinLevels = 2;
inline constexpr int kGridMaxLevels = 4;
inline constexpr const char* kGridCellKind = "grid-cell";

// "r1c0": the cell at level 1 of the first variable and level 0 of the second.
std::string grid_cell_label(const std::vector<int>& cell);

// The grid's shape as a problem sentence, or empty when it is a valid grid: two variables with
// distinct names, 2 to 4 distinct levels each.
std::string grid_shape_problem(const GridGroup& grid);

// The parameter values of one cell: `shared` (every parameter, the baseline levels included)
// with each grid variable set to its level at `cell`.
nlohmann::json grid_cell_params(const GridGroup& grid, const nlohmann::json& shared, const std::vector<int>& cell);

// One experiment per cell but the baseline cell, row-major, each a copy of `prototype` (its plan,
// profile, metric, guards, backend) with id "<grid id>-r<i>c<j>", kind "grid-cell", the group and
// cell set, and arms {"r0c0": baseline cell, "r<i>c<j>": that cell}. When `prototype` has an A/A
// arm, the first cell gets the grid's A/A arm (grid_aa_cell). `shared` holds every
// parameter with the grid variables at their baseline levels.
std::vector<Experiment> grid_cell_experiments(
    const GridGroup& grid, const Experiment& prototype, const nlohmann::json& shared);

// A level typed as text, of the type of `like` (the parameter's baseline value): an integer
// parameter takes integers, a number any number, text stays text. Sets `problem` on bad text.
nlohmann::json grid_level_from_text(const nlohmann::json& like, const std::string& text, std::string& problem);

// Adds a grid over two parameters of `prototype` (an A/B: its baseline arm's parameters are the
// shared ones; plan, profile, metric and guards are copied) with a fresh id ("grid-N") and its
// cell experiments. Returns the problem and changes nothing when the grid is not valid or a
// variable is not a parameter of the baseline arm. What the grid page's "Make grid" does.
std::string add_grid(Study& study, const Experiment& prototype, std::vector<GridVariable> variables);

const GridGroup* find_grid(const Study& study, const std::string& id);
GridGroup* find_grid(Study& study, const std::string& id);

// The group's cell experiments in the study, in study order.
std::vector<const Experiment*> grid_cells(const Study& study, const GridGroup& grid);

// The grid's real A/A (study/arm_roles.h): the baseline cell's configuration run again as an arm of
// role "aa" in one cell experiment, so it is interleaved with that cell's baseline and treatment in
// the same blocks and judged at the same n; the study needs no field of its own for it. It lives in
// the grid's first cell (row-major: r0c1). This is the cell that carries it, or null when the grid
// has no A/A arm (any cell's A/A arm counts, the first one found in study order).
const Experiment* grid_aa_cell(const Study& study, const GridGroup& grid);

// Gives the grid an A/A arm (in its first cell, unless a cell already has one) or takes every one
// away. Returns the problem and changes nothing when the grid is unknown or has no cell.
std::string set_grid_aa_arm(Study& study, const std::string& grid_id, bool on);

// Why a grid cell cannot run as it stands, or empty: its group must exist, its coordinates fit
// the grid, and its two arms (parameters resolved, defaults filled in) must be the baseline cell
// and the cell its coordinates name: they may differ only in the grid's variables.
std::string grid_cell_problem(const Study& study, const Experiment& cell, const nlohmann::json& baseline_params,
    const nlohmann::json& cell_params);

} // namespace kwb
