// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

class QProgressBar;

namespace kwb::gui {

class LivePlot;
class LiveSeries;
class RunController;

// The Live view: during a run, the samples as they stream in; otherwise the replay of the
// current experiment's recorded samples and sampler lanes.
class LivePage : public PhasePage {
    Q_OBJECT
public:
    LivePage(StudyDocument* document, LiveSeries* series, RunController* controller, QWidget* parent = nullptr);
    void refresh() override;

    LivePlot* plot() const { return m_plot; }

private:
    void updateProgress();

    LiveSeries* m_series;
    RunController* m_controller;
    LivePlot* m_plot;
    QLabel* m_status;
    QProgressBar* m_bar;
};

} // namespace kwb::gui
