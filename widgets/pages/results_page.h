// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

class QTableView;

namespace kwb {
struct Experiment;
}

namespace kwb::gui {

class ArmStatsModel;
class DistributionPlot;
class SigmaChart;
class VerdictBadge;
class VerdictStoryView;

// The Results view: the arms' distributions side by side, their numbers, and the delta with its
// 95% CI against the thresholds and the noise band. Above them the verdict as one story
// (VerdictStoryView), the same view phase 8 shows.
class ResultsPage : public PhasePage {
    Q_OBJECT
public:
    explicit ResultsPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

    DistributionPlot* distributionPlot() const { return m_plot; }
    ArmStatsModel* statsModel() const { return m_model; }
    SigmaChart* sigmaChart() const { return m_sigma; }
    VerdictBadge* badge() const;
    VerdictStoryView* story() const { return m_story; }
    QTableView* statsTable() const { return m_table; }
    QString summaryText() const;
    static QString ranOn(const Experiment& experiment);

private:
    QLabel* m_summary;
    VerdictStoryView* m_story;
    QLabel* m_evidence;
    DistributionPlot* m_plot;
    ArmStatsModel* m_model;
    QTableView* m_table;
    SigmaChart* m_sigma;
};

} // namespace kwb::gui
