// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

// What the grid page and its heat map show of one grid group, read from the study: each cell's
// delta% with its CI, sigma and verdict (the cell experiment's own verdict object, never
// recomputed here), and the stored interaction. QtCore only, so it is tested without a window.
namespace kwb::gui {

struct GridCellView {
    int row = 0;
    int col = 0;
    QString experimentId; // empty for the baseline cell
    bool baseline = false;
    std::optional<double> deltaPct;
    std::optional<double> ciLow;
    std::optional<double> ciHigh;
    std::optional<double> sigmaPct;
    int nBaseline = 0;
    int nTreatment = 0;
    QString verdict; // final verdict word; empty until judged
    QString status; // pending, running, done, stopped, failed
    QString ranOn; // spread-out runs: "GPU 1", "device 0", "GPU 0 on node07"; empty otherwise
};

struct GridView {
    QString id;
    QString rowVariable;
    QString colVariable;
    QStringList rowLevels; // as written in the study (JSON text of each level)
    QStringList colLevels;
    QList<GridCellView> cells; // every cell, row-major, the baseline cell included
    QString metric;
    bool hasInteraction = false;
    QString interactionSummary;
    bool flagged = false;
    bool twoByTwo = false; // judged by its one contrast; a larger grid's summary names its two-way test
    std::optional<double> differenceOfDifferences;
    std::optional<double> ciLow;
    std::optional<double> ciHigh;
    std::optional<double> pTwoWay;
    QStringList pending; // cells not judged yet, e.g. "r1c1"
    // The grid's real A/A (study/grid.h grid_aa_cell): whether it has one, and the engine's line
    // for it (verdict/aa_verdict.h grid_aa_line), empty without one.
    bool hasAaArm = false;
    QString aaLine;
    bool aaFalseAlarm = false;

    const GridCellView* cell(int row, int col) const;
};

GridView gridView(const Study& study, const GridGroup& grid);

} // namespace kwb::gui
