// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/live_page.h"

#include "models/json_convert.h"
#include "models/live_series.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "plots/live_plot.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

LivePage::LivePage(StudyDocument* document, LiveSeries* series, RunController* controller, QWidget* parent)
    : PhasePage(document, tr("Live"),
        tr("Every repetition as it finishes, coloured by arm, with each arm's running mean and ±1 sd "
           "band; the CPU sampler beneath. Interleaved arms should overlap in time, not in value."),
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
    m_plot = new LivePlot(this);
    m_plot->setSeries(series);
    body()->addWidget(m_plot, 1);
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
    if (!m_controller->lastStatus().isEmpty())
        text += u" — "_s + m_controller->progressText();
    setValue(m_status, text);
}

} // namespace kwb::gui
