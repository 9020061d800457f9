// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/grid_interaction.h"

#include "study/arm_roles.h"
#include "study/grid.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

std::vector<double> usable_runs(const Experiment& e, const std::string& arm)
{
    auto v = judged_values(e, arm, e.metric);
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x) || x <= 0; }), v.end());
    return v;
}

const Experiment* cell_at(const Study& study, const GridGroup& grid, int row, int col)
{
    for (const auto* e : grid_cells(study, grid))
        if (e->cell == std::vector<int> {row, col})
            return e;
    return nullptr;
}

// The direction the cells were judged in (their verdict's profile), else the study target's.
Direction grid_direction(const Study& study, const GridGroup& grid)
{
    for (const auto* e : grid_cells(study, grid))
        if (e->verdict)
            return e->verdict->profile.direction;
    return study.target.direction;
}

std::string level_name(const GridGroup& grid, size_t variable, int level)
{
    const auto& v = grid.variables.at(variable);
    return fmt::format("{}={}", v.name, v.levels.at(static_cast<size_t>(level)).dump());
}

} // namespace

std::vector<std::string> grid_cells_pending(const Study& study, const GridGroup& grid)
{
    std::vector<std::string> pending;
    if (grid.variables.size() != 2)
        return {"the grid has no two variables"};
    const int rows = static_cast<int>(grid.variables[0].levels.size());
    const int cols = static_cast<int>(grid.variables[1].levels.size());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            if (r == 0 && c == 0)
                continue;
            const Experiment* e = cell_at(study, grid, r, c);
            if (!e || ab_arm_count(*e) != 2 || usable_runs(*e, ab_arms(*e).baseline->name).empty()
                || usable_runs(*e, ab_arms(*e).treatment->name).empty())
                pending.push_back(grid_cell_label({r, c}));
        }
    return pending;
}

std::optional<stats::InteractionEstimate> grid_interaction_estimate(const Study& study, const GridGroup& grid)
{
    if (!grid_shape_problem(grid).empty() || !grid_cells_pending(study, grid).empty())
        return std::nullopt;
    const int rows = static_cast<int>(grid.variables[0].levels.size());
    const int cols = static_cast<int>(grid.variables[1].levels.size());
    std::vector<stats::GridCellRuns> cells;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (r != 0 || c != 0) {
                const Experiment* e = cell_at(study, grid, r, c);
                cells.push_back(
                    {r, c, usable_runs(*e, ab_arms(*e).baseline->name), usable_runs(*e, ab_arms(*e).treatment->name)});
            }
    return stats::estimate_interaction(rows, cols, cells, grid_direction(study, grid));
}

GridInteraction interaction_record(const Study& study, const GridGroup& grid, const stats::InteractionEstimate& est)
{
    GridInteraction g;
    for (const auto& c : est.contrasts) {
        const Experiment* e = cell_at(study, grid, c.row, c.col);
        g.contrasts.push_back({c.row, c.col, e ? e->id : std::string(), c.measured_pct, c.additive_pct,
            c.interaction_pct, c.ci95, c.ci_excludes_zero()});
    }
    const bool two_by_two = est.rows == 2 && est.cols == 2;
    const auto& first = est.contrasts.front();

    std::string summary;
    const auto ci_text = [](const stats::InteractionContrast& c) {
        return c.ci95 ? fmt::format(" (95% CI {:+.2f} to {:+.2f})", (*c.ci95)[0], (*c.ci95)[1]) : std::string();
    };
    if (two_by_two) {
        summary = fmt::format("{} and {} together: {:+.2f}%, the two alone add up to {:+.2f}%; interaction {:+.2f} "
                              "points{}: {}",
            level_name(grid, 0, 1), level_name(grid, 1, 1), first.measured_pct, first.additive_pct,
            first.interaction_pct, ci_text(first),
            est.flagged      ? "the effects do not add up"
                : first.ci95 ? "consistent with effects that add up"
                             : "not assessed (an arm has fewer than 2 runs)");
    } else {
        const auto largest = std::max_element(est.contrasts.begin(), est.contrasts.end(),
            [](const auto& a, const auto& b) { return std::fabs(a.interaction_pct) < std::fabs(b.interaction_pct); });
        summary = fmt::format("largest interaction at {} ({}, {}): {:+.2f} points{}; two-way test {}: {}",
            grid_cell_label({largest->row, largest->col}), level_name(grid, 0, largest->row),
            level_name(grid, 1, largest->col), largest->interaction_pct, ci_text(*largest),
            est.p_two_way ? fmt::format("p = {:.3g}", *est.p_two_way) : std::string("not assessed"),
            est.flagged         ? "the effects do not add up"
                : est.p_two_way ? "consistent with effects that add up"
                                : "not assessed (no spread or too few runs)");
    }
    g.metric = grid_cells(study, grid).front()->metric;
    g.direction = grid_direction(study, grid);
    g.delta_pct = est.delta_pct;
    if (two_by_two) {
        g.difference_of_differences_pct = first.interaction_pct;
        g.ci95 = first.ci95;
    }
    g.f_two_way = est.f_two_way;
    g.p_two_way = est.p_two_way;
    g.df_interaction = est.df_interaction;
    g.df_residual = est.df_residual;
    if (est.pooled_variance > 0)
        g.pooled_variance = est.pooled_variance;
    g.flagged = est.flagged;
    g.alpha = stats::kInteractionAlpha;
    g.resamples = stats::kBootstrapResamples;
    g.summary = std::move(summary);
    g.method = "contrast I_ij = d_ij - (d_i0 + d_0j) of the cells' delta% (each cell against its own interleaved "
               "baseline); 95% percentile bootstrap CI, every arm resampled; two-way interaction F-test of the "
               "additive model by precision-weighted least squares; flagged when a 2x2 contrast's CI excludes 0 "
               "or a larger grid's p < 0.05";
    return g;
}

void judge_grid(Study& study, GridGroup& grid)
{
    const auto est = grid_interaction_estimate(study, grid);
    grid.interaction = est ? std::optional(interaction_record(study, grid, *est)) : std::nullopt;
}

void judge_grids(Study& study)
{
    for (auto& g : study.grids)
        judge_grid(study, g);
}

} // namespace kwb
