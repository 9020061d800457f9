// SPDX-License-Identifier: GPL-3.0-or-later
// A grid group of the study as the report shows it: every cell with its cell experiment's stored
// verdict (delta %, CI, sigma, n, final word), the stored interaction and the cells still pending.
// Read, never recomputed: the report says what the study says, like the window's grid page.
#include "report/report_model.h"
#include "study/grid.h"
#include "study/study_parts.h"
#include "verdict/grid_interaction.h"

namespace kwb::report {

namespace {

std::string level_text(const nlohmann::json& level)
{
    return level.is_string() ? level.get<std::string>() : level.dump();
}

} // namespace

GridGroupReport grid_group_report(const Study& study, const GridGroup& grid)
{
    GridGroupReport g;
    g.id = grid.id;
    g.interaction = grid.interaction;
    if (grid.variables.size() != 2)
        return g;
    g.row_variable = grid.variables[0].name;
    g.col_variable = grid.variables[1].name;
    for (const auto& l : grid.variables[0].levels)
        g.row_levels.push_back(level_text(l));
    for (const auto& l : grid.variables[1].levels)
        g.col_levels.push_back(level_text(l));
    const auto cells = grid_cells(study, grid);
    for (int r = 0; r < static_cast<int>(g.row_levels.size()); ++r)
        for (int c = 0; c < static_cast<int>(g.col_levels.size()); ++c) {
            GridGroupCell cell;
            cell.row = r;
            cell.col = c;
            cell.label = grid_cell_label({r, c});
            cell.baseline = r == 0 && c == 0;
            for (const Experiment* e : cells) {
                if (e->cell != std::vector<int> {r, c})
                    continue;
                cell.experiment_id = e->id;
                cell.status = std::string(to_string(e->status));
                if (g.metric.empty())
                    g.metric = e->metric;
                if (const auto& v = e->verdict) {
                    cell.delta_pct = v->delta_pct;
                    if (v->ci95_delta_pct)
                        cell.ci95_delta_pct = std::array<double, 2> {(*v->ci95_delta_pct)[0], (*v->ci95_delta_pct)[1]};
                    cell.sigma_pct = v->sigma_pct;
                    cell.n_baseline = v->n_baseline();
                    cell.n_treatment = v->n_treatment();
                }
                if (e->final_verdict)
                    cell.verdict = std::string(to_string(e->final_verdict->word));
                cell.ran_on = where_it_ran(*e);
            }
            g.cells.push_back(std::move(cell));
        }
    g.pending = grid_cells_pending(study, grid);
    return g;
}

} // namespace kwb::report
