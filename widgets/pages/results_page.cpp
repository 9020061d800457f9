// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/results_page.h"

#include "models/arm_stats_model.h"
#include "models/distribution_stats.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "models/workload_catalog.h"
#include "pages/verdict_story_view.h"
#include "plots/distribution_plot.h"
#include "plots/sigma_chart.h"
#include "plots/verdict_badge.h"
#include "study/arm_diff.h"
#include "study/arm_roles.h"
#include "study/device_identity.h"
#include "verdict/verdict_json.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

ResultsPage::ResultsPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("Results"),
        tr("Both arms' distributions side by side (violin, box, every repetition), their numbers, and "
           "the delta with its 95% CI against the kill and license thresholds and the noise band."),
        parent)
{
    setObjectName(u"resultsPage"_s);
    // The verdict sits beside the numbers it comes from: the end of a run lands on this view.
    m_summary = valueLabel(this);
    body()->addWidget(m_summary);
    m_story = new VerdictStoryView(this);
    m_story->badge()->setObjectName(u"resultsVerdictBadge"_s);
    body()->addWidget(m_story);
    auto* columns = new QHBoxLayout;
    m_plot = new DistributionPlot(this);
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_model = new ArmStatsModel(this);
    m_table = new QTableView(right);
    m_table->setObjectName(u"armStatsTable"_s);
    m_table->setModel(m_model);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // As tall as its rows (two, three with an A/A arm): a fixed 110 px cut the third row off.
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_sigma = new SigmaChart(right);
    rightLayout->addWidget(
        sectionLabel(tr("Per arm (judged repetitions: warm-ups and discarded runs excluded)"), right));
    rightLayout->addWidget(m_table);
    rightLayout->addWidget(sectionLabel(tr("Delta vs thresholds"), right));
    rightLayout->addWidget(m_sigma, 1);
    m_evidence = valueLabel(right);
    m_evidence->setObjectName(u"resultsEvidence"_s);
    rightLayout->addWidget(m_evidence);
    rightLayout->addStretch(0);
    columns->addWidget(m_plot, 1);
    columns->addWidget(right, 1);
    body()->addLayout(columns, 1);
}

// Where the experiment ran: the device identity the run recorded (a command or worker arm on a GPU
// is on that GPU, whatever its backend setting says), else its backend setting until it has run.
QString ResultsPage::ranOn(const Experiment& e)
{
    return e.device.empty() ? qs(e.backend) : qs(describe(e.device));
}

QString ResultsPage::summaryText() const
{
    return m_summary->text();
}

VerdictBadge* ResultsPage::badge() const
{
    return m_story->badge();
}

void ResultsPage::refresh()
{
    const Experiment* e = document()->currentExperiment();
    QList<ArmDistribution> arms;
    QString unit;
    if (e) {
        const auto& target = document()->study().target;
        unit = e->metric == target.metric ? qs(target.unit) : QString();
        for (const auto& arm : e->arms) {
            ArmDistribution d = describe(qs(arm.name), judged_values(*e, arm.name, e->metric));
            for (const Sample* s : judged_samples(*e, arm.name, e->metric))
                d.throttled << s->throttled;
            arms << d;
        }
    }
    m_model->setArms(arms, unit);
    int tableHeight = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    for (int row = 0; row < m_model->rowCount(); ++row)
        tableHeight += m_table->verticalHeader()->sectionSize(row);
    m_table->setFixedHeight(tableHeight);
    m_plot->setDistributions(arms, e ? qs(e->metric) : QString(), unit);
    const SampleVerdict* verdict = e && e->verdict ? &*e->verdict : nullptr;
    // The chart takes the verdict's JSON form (its API, shared with the tests of the plots).
    m_sigma->setVerdict(verdict ? toQJsonObject(to_json(*verdict)) : QJsonObject {});
    m_story->setExperiment(e);
    // The tests' own numbers, as the verdict engine computed them, for whoever asks "significant?".
    const auto number
        = [](const std::optional<double>& v, int decimals) { return v ? QString::number(*v, 'g', decimals) : u"–"_s; };
    setValue(m_evidence,
        !verdict ? QString()
                 : tr("speedup %1× · Welch t p = %2 · Mann-Whitney U p = %3 (%4) · "
                      "bootstrap 95% CI of delta, 10,000 resamples")
                       .arg(number(verdict->speedup, 4), number(verdict->p_welch, 3), number(verdict->p_mannwhitney, 3),
                           qs(verdict->mannwhitney_method)));
    if (!e) {
        setValue(m_summary, tr("This study has no experiment yet."));
        return;
    }
    // The arm diff is the engine's (study/arm_diff.h), defaults filled in as the A/B page shows it.
    QString variable;
    if (const AbArms pair = ab_arms(*e))
        for (const auto& d : diff_arm_pair(*pair.baseline, *pair.treatment, experimentDefaults(*e)).differences)
            variable += tr(" · %1: %2 → %3")
                            .arg(qs(d.name), d.baseline.is_null() ? u"–"_s : qs(d.baseline.dump()),
                                d.treatment.is_null() ? u"–"_s : qs(d.treatment.dump()));
    setValue(m_summary,
        tr("%1 · %2 on %3 · %4%5")
            .arg(qs(e->id), qs(e->workload), ranOn(*e), qs(std::string(to_string(e->status))), variable));
}

} // namespace kwb::gui
