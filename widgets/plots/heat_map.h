// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/grid_view.h"
#include "plots/lazy_plot.h"

namespace kwb::gui {

// A grid's cells as a heat map: colour is each cell's delta% (green better, red worse, white no
// change; the scale is symmetric so equal colours mean equal magnitudes), and each cell says its
// delta with the 95% CI, sigma, n and verdict. Rows are the first variable's levels, columns the
// second's; the baseline cell is marked as such. Every number comes from the cells' verdicts.
class HeatMap : public LazyPlot {
    Q_OBJECT
public:
    explicit HeatMap(QWidget* parent = nullptr);

    void setGrid(const GridView& view);
    // The text drawn in a cell (tests read it), empty outside the grid.
    QString cellText(int row, int col) const;

private:
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QList<QCPItemText*> m_labels;
    QHash<int, QString> m_texts; // row * 16 + col -> text
};

} // namespace kwb::gui
