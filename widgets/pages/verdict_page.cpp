// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/verdict_page.h"

#include "models/arm_stats_model.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "plots/sigma_chart.h"
#include "plots/verdict_badge.h"

#include <QGridLayout>
#include <QJsonArray>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
QString bullets(const QJsonArray& lines)
{
    QStringList out;
    for (const auto& l : lines)
        out << u"• "_s + l.toString();
    return out.join(u'\n');
}

QString num(const QJsonValue& v, int decimals, const QString& suffix = {})
{
    return v.isDouble() ? QString::number(v.toDouble(), 'f', decimals) + suffix : u"–"_s;
}
} // namespace

VerdictPage::VerdictPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("8 · License or kill"),
                tr("n ≥ 3 per arm and sigma < 5 %; a delta within 2 sigma is noise; a license names its "
                   "tradeoff. Every attempt, license or kill, is written down."),
                parent)
{
    setObjectName(u"verdictPage"_s);
    auto* grid = new QGridLayout;
    grid->addWidget(sectionLabel(tr("Final verdict (after the study's rules)"), this), 0, 0);
    grid->addWidget(sectionLabel(tr("Sample verdict (kwb verdict on the same samples and profile)"), this), 0, 1);
    m_final = new VerdictBadge(this);
    m_final->setObjectName(u"finalVerdictBadge"_s);
    m_sample = new VerdictBadge(this);
    m_sample->setObjectName(u"sampleVerdictBadge"_s);
    grid->addWidget(m_final, 1, 0);
    grid->addWidget(m_sample, 1, 1);
    m_finalReasons = valueLabel(this);
    m_finalReasons->setObjectName(u"finalReasons"_s);
    m_sampleReasons = valueLabel(this);
    m_sampleReasons->setObjectName(u"sampleReasons"_s);
    grid->addWidget(m_finalReasons, 2, 0, Qt::AlignTop);
    grid->addWidget(m_sampleReasons, 2, 1, Qt::AlignTop);
    m_prediction = valueLabel(this);
    m_evidence = valueLabel(this);
    grid->addWidget(m_prediction, 3, 0, Qt::AlignTop);
    grid->addWidget(m_evidence, 3, 1, Qt::AlignTop);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    body()->addLayout(grid);
    m_sigma = new SigmaChart(this);
    m_sigma->setObjectName(u"verdictSigmaChart"_s);
    body()->addWidget(m_sigma, 1);
    m_profile = valueLabel(this);
    m_profile->setStyleSheet(u"color: #555;"_s);
    body()->addWidget(m_profile);
}

QString VerdictPage::finalVerdict() const
{
    return m_final->verdict();
}

QString VerdictPage::sampleVerdict() const
{
    return m_sample->verdict();
}

void VerdictPage::refresh()
{
    const Experiment* e = document()->currentExperiment();
    const QJsonObject sample = e ? toQJsonObject(e->verdict) : QJsonObject{};
    const QJsonObject final = e ? toQJsonObject(e->final_verdict) : QJsonObject{};
    m_final->setVerdict(final.value("verdict"_L1).toString());
    m_sample->setVerdict(sample.value("verdict"_L1).toString());
    setValue(m_finalReasons, final.isEmpty() ? tr("No final verdict yet: run the experiment to the end.")
                                             : bullets(final.value("reasons"_L1).toArray()));
    setValue(m_sampleReasons, sample.isEmpty() ? tr("No sample verdict yet.") : bullets(sample.value("reasons"_L1).toArray()));

    QString evidence;
    if (!sample.isEmpty()) {
        const QString unit = e ? qs(document()->study().target.unit) : QString();
        const QJsonArray ci = sample.value("ci95_delta_pct"_L1).toArray();
        const QJsonObject arms = sample.value("arms"_L1).toObject();
        evidence = tr("delta %1 (95% CI %2 … %3 %), sigma %4, speedup %5×")
                       .arg(num(sample.value("delta_pct"_L1), 2, u" %"_s), num(ci.at(0), 2), num(ci.at(1), 2),
                            num(sample.value("sigma_pct"_L1), 2, u" %"_s), num(sample.value("speedup"_L1), 3));
        for (auto it = arms.begin(); it != arms.end(); ++it) {
            const QJsonObject a = it.value().toObject();
            evidence += tr("\n%1: n = %2, mean %3 %4 ± %5 sd (cv %6)")
                            .arg(it.key()).arg(a.value("n"_L1).toInt())
                            .arg(ArmStatsModel::formatNumber(a.value("mean"_L1).toDouble(std::nan(""))), unit,
                                 ArmStatsModel::formatNumber(a.value("stddev"_L1).toDouble(std::nan(""))),
                                 num(a.value("cv_pct"_L1), 2, u" %"_s));
        }
        // Three significant digits, as on the Results page: more digits of a p-value mean nothing.
        auto p = [](const QJsonValue& v) { return v.isDouble() ? QString::number(v.toDouble(), 'g', 3) : jsonScalarText(v); };
        evidence += tr("\nWelch p = %1 · Mann-Whitney p = %2").arg(p(sample.value("p_welch"_L1)), p(sample.value("p_mannwhitney"_L1)));
    }
    setValue(m_evidence, evidence);

    const auto& predicted = document()->study().prediction.predicted_delta_pct;
    QString prediction = predicted ? tr("Prediction check: predicted %1 %, measured %2")
                                         .arg(*predicted, 0, 'f', 1)
                                         .arg(num(sample.value("delta_pct"_L1), 1, u" %"_s))
                                   : tr("Prediction check: no prediction was recorded (phase 4).");
    const QJsonArray flags = final.value("flags"_L1).toArray();
    prediction += flags.isEmpty() ? (final.isEmpty() ? QString() : tr("\nFlags: none"))
                                  : tr("\nFlags: ") + bullets(flags).replace(u'\n', u' ');
    setValue(m_prediction, prediction);

    const QJsonObject profile = sample.value("profile"_L1).toObject();
    setValue(m_profile, profile.isEmpty() ? QString()
                                          : tr("Profile %1 (%2 is better): license ≥ %3 %, kill < %4 %, min n %5, "
                                               "max sigma %6 %, unstable above %7 %, noise = %8 × sigma")
                                                .arg(profile.value("name"_L1).toString(),
                                                     profile.value("direction"_L1).toString(),
                                                     jsonScalarText(profile.value("license_pct"_L1)),
                                                     jsonScalarText(profile.value("kill_pct"_L1)),
                                                     jsonScalarText(profile.value("min_n"_L1)),
                                                     jsonScalarText(profile.value("max_sigma_pct"_L1)),
                                                     jsonScalarText(profile.value("unstable_sigma_pct"_L1)),
                                                     jsonScalarText(profile.value("noise_k"_L1))));
    m_sigma->setVerdict(sample);
}

} // namespace kwb::gui
