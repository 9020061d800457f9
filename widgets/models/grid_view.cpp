// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/grid_view.h"

#include "study/grid.h"
#include "study/study_parts.h"
#include "verdict/aa_verdict.h"
#include "verdict/grid_interaction.h"

namespace kwb::gui {

namespace {

QString levelText(const nlohmann::json& level)
{
    return QString::fromStdString(level.is_string() ? level.get<std::string>() : level.dump());
}

} // namespace

const GridCellView* GridView::cell(int row, int col) const
{
    for (const auto& c : cells)
        if (c.row == row && c.col == col)
            return &c;
    return nullptr;
}

GridView gridView(const Study& study, const GridGroup& grid)
{
    GridView view;
    view.id = QString::fromStdString(grid.id);
    if (grid.variables.size() != 2)
        return view;
    view.rowVariable = QString::fromStdString(grid.variables[0].name);
    view.colVariable = QString::fromStdString(grid.variables[1].name);
    for (const auto& l : grid.variables[0].levels)
        view.rowLevels << levelText(l);
    for (const auto& l : grid.variables[1].levels)
        view.colLevels << levelText(l);
    const auto cells = grid_cells(study, grid);
    for (int r = 0; r < view.rowLevels.size(); ++r)
        for (int c = 0; c < view.colLevels.size(); ++c) {
            GridCellView v;
            v.row = r;
            v.col = c;
            v.baseline = r == 0 && c == 0;
            for (const auto* e : cells) {
                if (e->cell != std::vector<int> {r, c})
                    continue;
                v.experimentId = QString::fromStdString(e->id);
                v.status = QString::fromStdString(std::string(to_string(e->status)));
                v.ranOn = QString::fromStdString(where_it_ran(*e));
                if (const auto& sv = e->verdict) {
                    v.deltaPct = sv->delta_pct;
                    if (sv->ci95_delta_pct) {
                        v.ciLow = (*sv->ci95_delta_pct)[0];
                        v.ciHigh = (*sv->ci95_delta_pct)[1];
                    }
                    v.sigmaPct = sv->sigma_pct;
                    v.nBaseline = static_cast<int>(sv->n_baseline());
                    v.nTreatment = static_cast<int>(sv->n_treatment());
                }
                if (e->final_verdict)
                    v.verdict = QString::fromStdString(std::string(to_string(e->final_verdict->word)));
                view.metric = QString::fromStdString(e->metric);
            }
            view.cells << v;
        }
    for (const auto& p : grid_cells_pending(study, grid))
        view.pending << QString::fromStdString(p);
    if (const Experiment* aa = grid_aa_cell(study, grid)) {
        view.hasAaArm = true;
        view.aaLine = QString::fromStdString(grid_aa_line(study, grid));
        view.aaFalseAlarm = aa->aa_verdict && aa_false_alarm(*aa->aa_verdict);
    }
    view.hasInteraction = grid.interaction.has_value();
    if (const auto& in = grid.interaction) {
        view.interactionSummary = QString::fromStdString(in->summary);
        view.flagged = in->flagged;
        view.twoByTwo = in->two_by_two();
        view.differenceOfDifferences = in->difference_of_differences_pct;
        if (in->ci95) {
            view.ciLow = (*in->ci95)[0];
            view.ciHigh = (*in->ci95)[1];
        }
        view.pTwoWay = in->p_two_way;
    }
    return view;
}

} // namespace kwb::gui
