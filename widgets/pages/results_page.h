// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

class QTableView;

namespace kwb::gui {

class ArmStatsModel;
class DistributionPlot;
class SigmaChart;
class VerdictBadge;

// The Results view: the arms' distributions side by side, their numbers, and the delta with its
// 95% CI against the thresholds and the noise band.
class ResultsPage : public PhasePage {
    Q_OBJECT
public:
    explicit ResultsPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

    DistributionPlot* distributionPlot() const { return m_plot; }
    ArmStatsModel* statsModel() const { return m_model; }
    SigmaChart* sigmaChart() const { return m_sigma; }
    VerdictBadge* badge() const { return m_badge; }
    QTableView* statsTable() const { return m_table; }

private:
    QLabel* m_summary;
    VerdictBadge* m_badge;
    QLabel* m_badgeReason;
    QLabel* m_evidence;
    DistributionPlot* m_plot;
    ArmStatsModel* m_model;
    QTableView* m_table;
    SigmaChart* m_sigma;
};

} // namespace kwb::gui
