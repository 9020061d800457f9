// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

class QComboBox;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace kwb::gui {

class LanePicker;
class LaneView;
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
    LaneView* lanes() const { return m_lanes; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* followButton() const { return m_follow; }
    LanePicker* lanePicker() const { return m_lanePicker; }
    QLabel* readout() const { return m_readout; }

private:
    void updateProgress();

    LiveSeries* m_series;
    RunController* m_controller;
    LivePlot* m_plot;
    LaneView* m_lanes;
    LanePicker* m_lanePicker;
    QTabWidget* m_tabs;
    QPushButton* m_pause;
    QPushButton* m_follow;
    QComboBox* m_window;
    QLabel* m_readout;
    QLabel* m_status;
    QProgressBar* m_bar;
};

} // namespace kwb::gui
