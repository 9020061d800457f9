// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/results_page.h"

#include "models/arm_stats_model.h"
#include "models/distribution_stats.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "plots/distribution_plot.h"
#include "plots/sigma_chart.h"

#include <QHeaderView>
#include <QLabel>
#include <QHBoxLayout>
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
    m_summary = valueLabel(this);
    body()->addWidget(m_summary);
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
    m_table->setMaximumHeight(110);
    m_sigma = new SigmaChart(right);
    rightLayout->addWidget(sectionLabel(tr("Per arm (judged repetitions: warm-ups and discarded runs excluded)"), right));
    rightLayout->addWidget(m_table);
    rightLayout->addWidget(sectionLabel(tr("Delta vs thresholds"), right));
    rightLayout->addWidget(m_sigma, 1);
    rightLayout->addStretch(0);
    columns->addWidget(m_plot, 1);
    columns->addWidget(right, 1);
    body()->addLayout(columns, 1);
}

void ResultsPage::refresh()
{
    const Experiment* e = document()->currentExperiment();
    QList<ArmDistribution> arms;
    QString unit;
    if (e) {
        const auto& target = document()->study().target;
        unit = e->metric == target.metric ? qs(target.unit) : QString();
        for (const auto& arm : e->arms)
            arms << describe(qs(arm.name), judged_values(*e, arm.name, e->metric));
    }
    m_model->setArms(arms, unit);
    m_plot->setDistributions(arms, e ? qs(e->metric) : QString(), unit);
    const QJsonObject verdict = e ? toQJsonObject(e->verdict) : QJsonObject{};
    m_sigma->setVerdict(verdict);
    if (!e) {
        setValue(m_summary, tr("This study has no experiment yet."));
        return;
    }
    QString variable;
    if (e->arms.size() == 2) {
        for (const auto& [k, v] : e->arms[0].params.items()) {
            const auto other = e->arms[1].params.find(k);
            if (other == e->arms[1].params.end() || *other != v)
                variable += tr(" · %1: %2 → %3").arg(qs(k), qs(v.dump()),
                                                      other == e->arms[1].params.end() ? u"–"_s : qs(other->dump()));
        }
    }
    setValue(m_summary, tr("%1 · %2 on %3 · %4%5 · sample verdict %6")
                            .arg(qs(e->id), qs(e->workload), qs(e->backend), qs(std::string(to_string(e->status))), variable,
                                 verdict.isEmpty() ? tr("not yet judged") : verdict.value("verdict"_L1).toString()));
}

} // namespace kwb::gui
