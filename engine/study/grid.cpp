// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/grid.h"

#include "study/arm_diff.h"
#include "study/arm_roles.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace kwb {
namespace {

// Numbers compare by value (128 and 128.0 are one level), everything else as JSON.
bool same_value(const nlohmann::json& a, const nlohmann::json& b)
{
    if (a.is_number() && b.is_number())
        return a.get<double>() == b.get<double>();
    return a == b;
}

} // namespace

std::string grid_cell_label(const std::vector<int>& cell)
{
    std::string label;
    const char axes[] = {'r', 'c'};
    for (size_t i = 0; i < cell.size(); ++i)
        label += fmt::format("{}{}", i < 2 ? axes[i] : 'v', cell[i]);
    return label;
}

std::string grid_shape_problem(const GridGroup& grid)
{
    if (grid.variables.size() != 2)
        return fmt::format("a grid has two variables (this one has {})", grid.variables.size());
    if (grid.variables[0].name == grid.variables[1].name)
        return fmt::format("both grid variables are '{}'", grid.variables[0].name);
    for (const auto& v : grid.variables) {
        const int n = static_cast<int>(v.levels.size());
        if (n < kGridMinLevels || n > kGridMaxLevels)
            return fmt::format(
                "'{}' has {} levels; a grid variable has {} to {}", v.name, n, kGridMinLevels, kGridMaxLevels);
        for (size_t i = 0; i < v.levels.size(); ++i)
            for (size_t j = 0; j < i; ++j)
                if (same_value(v.levels[i], v.levels[j]))
                    return fmt::format("'{}' lists the level {} twice", v.name, v.levels[i].dump());
    }
    return {};
}

nlohmann::json grid_cell_params(const GridGroup& grid, const nlohmann::json& shared, const std::vector<int>& cell)
{
    nlohmann::json params = shared;
    for (size_t i = 0; i < grid.variables.size() && i < cell.size(); ++i)
        params[grid.variables[i].name] = grid.variables[i].levels.at(static_cast<size_t>(cell[i]));
    return params;
}

std::vector<Experiment> grid_cell_experiments(
    const GridGroup& grid, const Experiment& prototype, const nlohmann::json& shared)
{
    std::vector<Experiment> cells;
    const std::vector<int> origin = {0, 0};
    const nlohmann::json baseline = grid_cell_params(grid, shared, origin);
    const int rows = static_cast<int>(grid.variables.at(0).levels.size());
    const int cols = static_cast<int>(grid.variables.at(1).levels.size());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            if (r == 0 && c == 0)
                continue;
            Experiment e = prototype;
            e.cell = {r, c};
            e.id = fmt::format("{}-{}", grid.id, grid_cell_label(e.cell));
            e.kind = kGridCellKind;
            e.group = grid.id;
            e.arms = {{grid_cell_label(origin), baseline, std::nullopt},
                {grid_cell_label(e.cell), grid_cell_params(grid, shared, e.cell), std::nullopt}};
            if (cells.empty() && aa_arm(prototype))
                add_aa_arm(e); // the grid's A/A, beside its first cell
            cells.push_back(std::move(e));
        }
    return cells;
}

nlohmann::json grid_level_from_text(const nlohmann::json& like, const std::string& text, std::string& problem)
{
    const auto first = text.find_first_not_of(' ');
    const std::string t
        = first == std::string::npos ? std::string() : text.substr(first, text.find_last_not_of(' ') - first + 1);
    if (t.empty()) {
        problem = "an empty level";
        return nullptr;
    }
    if (!like.is_number())
        return t;
    const nlohmann::json parsed = nlohmann::json::parse(t, nullptr, false);
    if (!parsed.is_number() || (like.is_number_integer() && !parsed.is_number_integer())) {
        problem = fmt::format("'{}' is not {}", t, like.is_number_integer() ? "an integer" : "a number");
        return nullptr;
    }
    return parsed;
}

std::string add_grid(Study& study, const Experiment& prototype, std::vector<GridVariable> variables)
{
    if (prototype.arms.empty())
        return "the experiment has no arms to take the shared parameters from";
    GridGroup grid;
    for (int n = static_cast<int>(study.grids.size()) + 1;; ++n) {
        grid.id = fmt::format("grid-{}", n);
        if (!find_grid(study, grid.id))
            break;
    }
    grid.variables = std::move(variables);
    if (auto problem = grid_shape_problem(grid); !problem.empty())
        return problem;
    const nlohmann::json shared = prototype.arms.front().params; // a copy: cells are appended below
    for (const auto& v : grid.variables)
        if (!shared.contains(v.name))
            return fmt::format("'{}' is not a parameter of {}'s arms", v.name, prototype.id);
    Experiment base = prototype;
    base.acknowledged_multi_variable = false;
    base.group.clear();
    base.cell.clear();
    base.samples.clear();
    base.lanes.clear();
    base.verdict.reset();
    base.final_verdict.reset();
    base.stopping.reset();
    base.status = ExperimentStatus::Pending;
    base.error.clear();
    base.stop_reason.clear();
    base.missing_gates.clear();
    base.split_half.reset();
    base.aa_verdict.reset();
    base.timed_elapsed_s.reset();
    base.device = {};
    base.launches_per_rep.reset();
    base.shared_buffers.reset();
    base.limitations.clear();
    for (auto& cell : grid_cell_experiments(grid, base, shared))
        study.experiments.push_back(std::move(cell));
    study.grids.push_back(std::move(grid));
    return {};
}

const GridGroup* find_grid(const Study& study, const std::string& id)
{
    const auto it
        = std::find_if(study.grids.begin(), study.grids.end(), [&](const GridGroup& g) { return g.id == id; });
    return it == study.grids.end() ? nullptr : &*it;
}

GridGroup* find_grid(Study& study, const std::string& id)
{
    return const_cast<GridGroup*>(find_grid(static_cast<const Study&>(study), id));
}

std::vector<const Experiment*> grid_cells(const Study& study, const GridGroup& grid)
{
    std::vector<const Experiment*> cells;
    for (const auto& e : study.experiments)
        if (e.kind == kGridCellKind && e.group == grid.id)
            cells.push_back(&e);
    return cells;
}

const Experiment* grid_aa_cell(const Study& study, const GridGroup& grid)
{
    for (const Experiment* e : grid_cells(study, grid))
        if (aa_arm(*e))
            return e;
    return nullptr;
}

std::string set_grid_aa_arm(Study& study, const std::string& grid_id, bool on)
{
    const GridGroup* grid = find_grid(study, grid_id);
    if (!grid)
        return fmt::format("no grid '{}' in the study", grid_id);
    Experiment* first = nullptr;
    for (auto& e : study.experiments) {
        if (e.kind != kGridCellKind || e.group != grid_id)
            continue;
        if (!first || e.cell < first->cell) // row-major: the first cell is r0c1
            first = &e;
        if (!on)
            remove_aa_arm(e);
    }
    if (!first)
        return fmt::format("grid '{}' has no cell experiment to run its A/A beside", grid_id);
    if (on && !grid_aa_cell(study, *grid))
        add_aa_arm(*first);
    return {};
}

std::string grid_cell_problem(const Study& study, const Experiment& cell, const nlohmann::json& baseline_params,
    const nlohmann::json& cell_params)
{
    const GridGroup* grid = find_grid(study, cell.group);
    if (!grid)
        return fmt::format("grid group '{}' is not in the study's grids", cell.group);
    if (const auto shape = grid_shape_problem(*grid); !shape.empty())
        return fmt::format("grid {}: {}", grid->id, shape);
    if (ab_arm_count(cell) != 2)
        return fmt::format("a grid cell has two arms, the baseline cell and itself, and may have an A/A arm (has {} "
                           "arms)",
            cell.arms.size());
    if (cell.cell.size() != 2)
        return "a grid cell names its level of each of the grid's two variables (field 'cell')";
    for (size_t i = 0; i < 2; ++i)
        if (cell.cell[i] >= static_cast<int>(grid->variables[i].levels.size()))
            return fmt::format(
                "cell {}: '{}' has no level {}", grid_cell_label(cell.cell), grid->variables[i].name, cell.cell[i]);
    if (cell.cell[0] == 0 && cell.cell[1] == 0)
        return "the baseline cell r0c0 is not run against itself";
    for (const auto& other : grid_cells(study, *grid))
        if (other != &cell && other->cell == cell.cell)
            return fmt::format(
                "cell {} appears twice in grid {} (also {})", grid_cell_label(cell.cell), grid->id, other->id);
    // Each arm holds its cell's levels; every other parameter is shared, so a difference is
    // attributable to the grid's variables alone.
    const std::vector<int> origin = {0, 0};
    for (const auto& [params, at] : {std::pair {&baseline_params, origin}, std::pair {&cell_params, cell.cell}})
        for (size_t i = 0; i < 2; ++i) {
            const auto& var = grid->variables[i];
            const auto& want = var.levels[static_cast<size_t>(at[i])];
            if (!params->contains(var.name) || !same_value((*params)[var.name], want))
                return fmt::format("arm {} should hold {} = {} (its level in cell {})",
                    params == &baseline_params ? cell.arms[0].name : cell.arms[1].name, var.name, want.dump(),
                    grid_cell_label(at));
        }
    std::set<std::string> allowed = {grid->variables[0].name, grid->variables[1].name};
    const ArmDiff diff = diff_arms(baseline_params, cell_params);
    std::vector<std::string> others;
    for (const auto& d : diff.differences)
        if (!allowed.count(d.name))
            others.push_back(d.name);
    if (!others.empty()) {
        std::string names;
        for (const auto& n : others)
            names += fmt::format("{}{}", names.empty() ? "" : ", ", n);
        return fmt::format("the arms also differ in {} (not a variable of grid {}); the cell's effect could not be "
                           "attributed",
            names, grid->id);
    }
    return {};
}

} // namespace kwb
