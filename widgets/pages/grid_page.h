// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

class QComboBox;
class QLineEdit;
class QPushButton;

namespace kwb::gui {

class HeatMap;

// Phase 6: combinational A/B grids. Make a grid of two of the A/B's parameters (2 to 4 levels
// each; the engine builds one cell experiment per cell, run by Run like any A/B), then read each
// cell's delta% with its CI, sigma and verdict on the heat map, and the interaction: do the two
// effects add up?
class GridPage : public PhasePage {
    Q_OBJECT
public:
    explicit GridPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

    HeatMap* heatMap() const { return m_heatMap; }

private:
    void makeGrid();
    void showGrid();

    QComboBox* m_grids;
    HeatMap* m_heatMap;
    QLabel* m_interaction;
    QComboBox* m_rowVariable;
    QComboBox* m_colVariable;
    QLineEdit* m_rowLevels;
    QLineEdit* m_colLevels;
    QPushButton* m_make;
    QLabel* m_makeStatus;
};

} // namespace kwb::gui
