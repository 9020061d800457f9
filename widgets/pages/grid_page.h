// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;

namespace kwb::gui {

class HeatMap;

// Phase 6: combinational A/B grids. Make a grid of two of the A/B's parameters (2 to 4 levels
// each; the engine builds one cell experiment per cell, run by Run like any A/B), then read each
// cell's delta% with its CI, sigma and verdict on the heat map, and the interaction: do the two
// effects add up? The A/A box gives the grid a real A/A (the baseline cell again, beside its first
// cell), whose verdict shows under the interaction.
class GridPage : public PhasePage {
    Q_OBJECT
public:
    explicit GridPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

    HeatMap* heatMap() const { return m_heatMap; }
    QCheckBox* aaArmBox() const { return m_aaArm; }
    QString aaText() const; // the grid's A/A line beside the heat map

private:
    void makeGrid();
    void showGrid();

    QComboBox* m_grids;
    HeatMap* m_heatMap;
    QLabel* m_interaction;
    QCheckBox* m_aaArm;
    QLabel* m_aa;
    bool m_filling = false; // refresh sets the A/A box: not an edit
    QComboBox* m_rowVariable;
    QComboBox* m_colVariable;
    QLineEdit* m_rowLevels;
    QLineEdit* m_colLevels;
    QPushButton* m_make;
    QLabel* m_makeStatus;
};

} // namespace kwb::gui
