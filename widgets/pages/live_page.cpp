// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/live_page.h"

#include "models/json_convert.h"
#include "models/live_series.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "pages/lane_picker.h"
#include "plots/lane_view.h"
#include "plots/live_plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

LivePage::LivePage(StudyDocument* document, LiveSeries* series, RunController* controller, QWidget* parent)
    : PhasePage(document, tr("Live"),
        tr("Each repetition's latency and the lanes read first (Lanes shows others) on one time axis, the arm "
           "running at each moment as bands behind them. Wheel or drag zooms and pans; hover reads every strip."),
        parent)
    , m_series(series)
    , m_controller(controller)
{
    setObjectName(u"livePage"_s);
    auto* row = new QHBoxLayout;
    m_status = valueLabel(this);
    m_status->setObjectName(u"liveStatus"_s);
    m_bar = new QProgressBar(this);
    m_bar->setObjectName(u"liveProgressBar"_s);
    m_bar->setMinimumWidth(240);
    m_bar->setMaximumWidth(320);
    m_bar->setFormat(tr("%v / %m repetitions"));
    row->addWidget(m_status, 1);
    row->addWidget(m_bar);
    body()->addLayout(row);
    auto* tools = new QHBoxLayout;
    m_pause = new QPushButton(tr("Pause"), this);
    m_pause->setObjectName(u"livePause"_s);
    m_pause->setCheckable(true);
    m_pause->setToolTip(tr("Freeze the view; readings keep arriving and appear when you resume."));
    m_follow = new QPushButton(tr("Follow"), this);
    m_follow->setObjectName(u"liveFollow"_s);
    m_follow->setCheckable(true);
    m_follow->setToolTip(tr("Keep the time axis on the newest readings (zooming stops following)."));
    m_window = new QComboBox(this);
    m_window->setObjectName(u"liveWindow"_s);
    for (const double seconds : {5.0, 10.0, 30.0, 60.0, 300.0, 1800.0})
        m_window->addItem(seconds < 60 ? tr("last %1 s").arg(seconds) : tr("last %1 min").arg(seconds / 60), seconds);
    m_window->setCurrentIndex(2);
    m_readout = new QLabel(this);
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_readout->setObjectName(u"liveReadout"_s);
    tools->addWidget(m_pause);
    tools->addWidget(m_follow);
    tools->addWidget(m_window);
    m_lanes = new LaneView;
    m_lanePicker = new LanePicker(m_lanes, this);
    tools->addWidget(m_lanePicker);
    tools->addWidget(m_readout, 1);
    body()->addLayout(tools);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(u"liveTabs"_s);
    m_lanes->setSeries(series);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_lanes);
    m_tabs->addTab(scroll, tr("Lanes"));
    m_plot = new LivePlot;
    m_plot->setSeries(series);
    m_tabs->addTab(m_plot, tr("Convergence (running mean, ±1 sd)"));
    body()->addWidget(m_tabs, 1);

    connect(m_pause, &QPushButton::toggled, m_lanes, &LaneView::setPaused);
    connect(m_lanes, &LaneView::pausedChanged, m_pause, &QPushButton::setChecked);
    connect(m_follow, &QPushButton::toggled, m_lanes, &LaneView::setFollowing);
    connect(m_lanes, &LaneView::followingChanged, m_follow, &QPushButton::setChecked);
    m_follow->setChecked(m_lanes->isFollowing());
    connect(m_window, &QComboBox::currentIndexChanged, this,
        [this](int) { m_lanes->setWindowSeconds(m_window->currentData().toDouble()); });
    m_lanes->setWindowSeconds(m_window->currentData().toDouble());
    connect(m_lanes, &LaneView::hoverChanged, this, [this](const QString& text) { m_readout->setText(text); });
    connect(controller, &RunController::stateChanged, this, [this] {
        if (m_controller->isRunning()) { // a new run: follow it from its first reading
            m_lanes->setPaused(false);
            m_lanes->setFollowing(true);
        }
    });
    connect(controller, &RunController::progressChanged, this, &LivePage::updateProgress);
    connect(controller, &RunController::stateChanged, this, &LivePage::updateProgress);
}

void LivePage::refresh()
{
    // While the child runs, the stream owns the series; the study on disk is the child's.
    if (!m_controller->isRunning()) {
        if (const Experiment* e = document()->currentExperiment()) {
            const auto& target = document()->study().target;
            m_series->replay(*e, e->metric == target.metric ? target.unit : std::string());
        } else {
            m_series->clear();
        }
        m_plot->refresh();
        m_lanes->showAll();
    }
    updateProgress();
}

void LivePage::updateProgress()
{
    if (m_controller->isRunning()) {
        m_bar->setVisible(true);
        m_bar->setMaximum(std::max(1, m_controller->planned()));
        m_bar->setValue(m_controller->done());
        setValue(m_status, m_controller->progressText());
        return;
    }
    const Experiment* e = document()->currentExperiment();
    m_bar->setVisible(false);
    if (!e) {
        setValue(m_status, tr("This study has no experiment to show."));
        return;
    }
    QString text = tr("Replay of %1 (%2, %3 repetitions recorded)")
                       .arg(qs(e->id), qs(std::string(to_string(e->status))))
                       .arg(m_series->sampleCount());
    if (m_series->replayAlignedByEnd())
        text += tr(" — lanes aligned by the last repetition's end (recorded before repetition start times "
                   "were stored)");
    if (!m_controller->lastStatus().isEmpty())
        text += u" — "_s + m_controller->progressText();
    setValue(m_status, text);
}

} // namespace kwb::gui
