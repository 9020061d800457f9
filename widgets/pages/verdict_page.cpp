// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/verdict_page.h"

#include "models/arm_stats_model.h"
#include "models/json_convert.h"
#include "verdict/verdict_json.h"
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
QString bullets(const std::vector<std::string>& lines)
{
    QStringList out;
    for (const auto& l : lines)
        out << u"• "_s + QString::fromStdString(l);
    return out.join(u'\n');
}

QString num(const std::optional<double>& v, int decimals, const QString& suffix = {})
{
    return v ? QString::number(*v, 'f', decimals) + suffix : u"–"_s;
}

QString word(VerdictWord w)
{
    return QString::fromLatin1(to_string(w));
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
    const SampleVerdict* sample = e && e->verdict ? &*e->verdict : nullptr;
    const FinalVerdict* final = e && e->final_verdict ? &*e->final_verdict : nullptr;
    m_final->setVerdict(final ? word(final->word) : QString());
    m_sample->setVerdict(sample ? word(sample->word) : QString());
    setValue(m_finalReasons, final ? bullets(final->reasons) : tr("No final verdict yet: run the experiment to the end."));
    setValue(m_sampleReasons, sample ? bullets(sample->reasons) : tr("No sample verdict yet."));

    QString evidence;
    if (sample) {
        const QString unit = qs(document()->study().target.unit);
        const auto& ci = sample->ci95_delta_pct;
        evidence = tr("delta %1 (95% CI %2 … %3 %), sigma %4, speedup %5×")
                       .arg(num(sample->delta_pct, 2, u" %"_s), num(ci ? std::optional((*ci)[0]) : std::nullopt, 2),
                            num(ci ? std::optional((*ci)[1]) : std::nullopt, 2), num(sample->sigma_pct, 2, u" %"_s),
                            num(sample->speedup, 3));
        for (const auto& [name, a] : {std::pair<QString, const ArmStats&>{u"baseline"_s, sample->baseline},
                                      {u"treatment"_s, sample->treatment}}) {
            evidence += tr("\n%1: n = %2, mean %3 %4 ± %5 sd (cv %6)")
                            .arg(name)
                            .arg(static_cast<qulonglong>(a.n))
                            .arg(ArmStatsModel::formatNumber(a.mean.value_or(std::nan(""))), unit,
                                 ArmStatsModel::formatNumber(a.stddev.value_or(std::nan(""))), num(a.cv_pct, 2, u" %"_s));
        }
        // Three significant digits, as on the Results page: more digits of a p-value mean nothing.
        auto p = [](const std::optional<double>& v) { return v ? QString::number(*v, 'g', 3) : u"null"_s; };
        evidence += tr("\nWelch p = %1 · Mann-Whitney p = %2").arg(p(sample->p_welch), p(sample->p_mannwhitney));
    }
    setValue(m_evidence, evidence);

    const auto& predicted = document()->study().prediction.predicted_delta_pct;
    QString prediction = predicted ? tr("Prediction check: predicted %1 %, measured %2")
                                         .arg(*predicted, 0, 'f', 1)
                                         .arg(num(sample ? sample->delta_pct : std::nullopt, 1, u" %"_s))
                                   : tr("Prediction check: no prediction was recorded (phase 4).");
    if (final)
        prediction += final->flags.empty() ? tr("\nFlags: none") : tr("\nFlags: ") + bullets(final->flags).replace(u'\n', u' ');
    setValue(m_prediction, prediction);

    if (sample) {
        const Profile& pr = sample->profile;
        setValue(m_profile, tr("Profile %1 (%2 is better): license ≥ %3 %, kill < %4 %, min n %5, "
                               "max sigma %6 %, unstable above %7 %, noise = %8 × sigma")
                                .arg(qs(pr.name), QString::fromLatin1(to_string(pr.direction)),
                                     QString::number(pr.license_pct), QString::number(pr.kill_pct),
                                     QString::number(pr.min_n), QString::number(pr.max_sigma_pct),
                                     QString::number(pr.unstable_sigma_pct), QString::number(pr.noise_k)));
    } else {
        setValue(m_profile, QString());
    }
    // The chart takes the verdict's JSON form (its API, shared with the tests of the plots).
    m_sigma->setVerdict(sample ? toQJsonObject(to_json(*sample)) : QJsonObject{});
}

} // namespace kwb::gui
