// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/verdict_page.h"

#include "models/arm_stats_model.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "pages/commit_arms_panel.h"
#include "pages/verdict_story_view.h"
#include "plots/roofline_plot.h"
#include "plots/sigma_chart.h"
#include "plots/verdict_badge.h"
#include "run/aa_history.h"
#include "study/arm_roles.h"
#include "study/attempt_gates.h"
#include "study/gates.h"
#include "verdict/aa_verdict.h"
#include "verdict/metric_diff.h"
#include "verdict/profile_text.h"
#include "verdict/verdict_json.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
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

QString ruleText(const Profile& profile)
{
    return VerdictPage::tr("%1; a license names its tradeoff. Every attempt, license or kill, is written down.")
        .arg(qs(profile_rule(profile)));
}
} // namespace

VerdictPage::VerdictPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("8 · License or kill"), ruleText(make_profile("generic", Direction::Lower)), parent)
{
    setObjectName(u"verdictPage"_s);
    auto* grid = new QGridLayout;
    // One badge: the final verdict as a story (the engine's sentences); the sample verdict is its
    // secondary line, and below both lists of reasons in full.
    m_story = new VerdictStoryView(this);
    m_story->badge()->setObjectName(u"finalVerdictBadge"_s);
    grid->addWidget(m_story, 0, 0, 1, 2);
    grid->addWidget(sectionLabel(tr("Every reason of the final verdict"), this), 1, 0);
    grid->addWidget(sectionLabel(tr("The numbers alone (kwb verdict on the same samples and profile)"), this), 1, 1);
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
    m_aa = valueLabel(this);
    m_aa->setObjectName(u"aaVerdict"_s);
    m_aa->setToolTip(tr("The A/A arm: the baseline's configuration run again in the same blocks, to the same n. "
                        "Any word but NOISE is a false alarm at this n."));
    grid->addWidget(m_aa, 4, 0, 1, 2, Qt::AlignTop);
    m_aaHistory = valueLabel(this);
    m_aaHistory->setObjectName(u"aaHistory"_s);
    m_aaHistory->setToolTip(tr("Every A/A run on this device model, from this machine's A/A history "
                               "(kwb aa-history): the share called anything but NOISE, with its exact 95% interval"));
    grid->addWidget(m_aaHistory, 5, 0, 1, 2, Qt::AlignTop);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    body()->addLayout(grid);
    m_sigma = new SigmaChart(this);
    m_sigma->setObjectName(u"verdictSigmaChart"_s);
    // Where each arm stands against the device's roofs, beside the delta it explains.
    m_roofline = new RooflinePlot(this);
    m_roofline->setObjectName(u"verdictRoofline"_s);
    auto* charts = new QHBoxLayout;
    charts->addWidget(m_sigma, 1);
    charts->addWidget(m_roofline, 1);
    body()->addLayout(charts, 1);
    // Why it is faster: every lane of the two arms (verdict/metric_diff.h), the moved ones first.
    m_metricDiffSummary = valueLabel(this);
    m_metricDiffSummary->setObjectName(u"metricDiffSummary"_s);
    body()->addWidget(m_metricDiffSummary);
    m_metricDiff = keyValueTable(this,
        {tr("lane"), tr("baseline mean [95% CI]"), tr("treatment mean [95% CI]"), tr("difference"), tr("noise band"),
            tr("beyond noise")});
    m_metricDiff->setObjectName(u"metricDiffTable"_s);
    m_metricDiff->setToolTip(tr("Each lane's mean over each arm's judged repetitions (the readings inside them), with "
                                "a t-based 95% interval; a difference is beyond its noise by the verdict's own rule "
                                "(|difference| > noise_k x the larger cv)"));
    m_metricDiff->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_metricDiff->setMaximumHeight(180);
    body()->addWidget(m_metricDiff);
    // The other why of a study of two commits: what changed in the kernels' code and resources.
    m_commitArms = new CommitArmsPanel(this);
    m_commitArms->setMinimumHeight(260);
    body()->addWidget(m_commitArms);
    m_profile = valueLabel(this);
    m_profile->setForegroundRole(QPalette::PlaceholderText);
    body()->addWidget(m_profile);

    m_gates = valueLabel(this);
    m_gates->setObjectName(u"verdictGates"_s);
    // Extra height goes to the sigma chart, not to blank space around these lines.
    m_gates->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    m_profile->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    body()->addWidget(m_gates);
    auto* ledgerRow = new QHBoxLayout;
    ledgerRow->addWidget(
        sectionLabel(tr("Attempt ledger (double-click the hypotheses to edit; separate them with ;)"), this), 1);
    m_newAttempt = new QPushButton(tr("New attempt"), this);
    m_newAttempt->setObjectName(u"newAttempt"_s);
    m_newAttempt->setToolTip(tr("Run the same A/B again as a new attempt (same arms, plan and profile); the "
                                "finished attempts stay in the ledger"));
    ledgerRow->addWidget(m_newAttempt);
    body()->addLayout(ledgerRow);
    m_ledger = keyValueTable(this, {tr("attempt"), tr("verdict"), tr("what it measured"), tr("surviving hypotheses")});
    m_ledger->setObjectName(u"ledgerTable"_s);
    m_ledger->setToolTip(tr("The attempt ledger: every attempt with its verdict, a wins or errors entry either way; "
                            "the surviving hypotheses are yours to edit"));
    m_ledger->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_ledger->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_ledger->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_ledger->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_ledger->setWordWrap(false); // each cell's tooltip holds its whole text
    m_ledger->setMaximumHeight(170);
    body()->addWidget(m_ledger);
    connect(m_ledger, &QTableWidget::cellChanged, this, &VerdictPage::ledgerEdited);
    connect(m_newAttempt, &QPushButton::clicked, this, &VerdictPage::newAttemptRequested);
}

std::optional<MetricDiff> VerdictPage::refreshMetricDiff(const Experiment* e, double noise_k)
{
    std::optional<MetricDiff> diff;
    if (e)
        if (const AbArms arms = ab_arms(*e))
            diff = metric_diff(*e, arms.baseline->name, arms.treatment->name, noise_k);
    m_metricDiffSummary->setVisible(diff.has_value());
    m_metricDiff->setVisible(diff.has_value());
    if (!diff)
        return diff;
    setValue(m_metricDiffSummary, tr("Why: %1").arg(qs(metric_diff_summary(*diff))));
    std::vector<const MetricDiffRow*> rows;
    for (const auto& r : diff->rows)
        rows.push_back(&r);
    std::stable_partition(rows.begin(), rows.end(), [](const MetricDiffRow* r) { return r->beyond_noise; });
    const auto meanCi = [](const ArmLaneStats& a, const QString& unit) -> QString {
        if (!a.mean)
            return u"–"_s;
        QString text = QString::number(*a.mean, 'g', 4) + (unit.isEmpty() ? QString() : u" "_s + unit);
        if (a.ci95_low)
            text += u" [%1, %2]"_s.arg(QString::number(*a.ci95_low, 'g', 4), QString::number(*a.ci95_high, 'g', 4));
        return text + u" (n = %1)"_s.arg(static_cast<qulonglong>(a.repetitions));
    };
    m_metricDiff->setRowCount(static_cast<int>(rows.size()));
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const MetricDiffRow& r = *rows[static_cast<std::size_t>(i)];
        const QString unit = qs(r.unit);
        const QStringList cells {qs(r.metric), meanCi(r.baseline, unit), meanCi(r.treatment, unit),
            r.delta_pct ? QString::number(*r.delta_pct, 'f', 1) + u" %"_s
                    + (r.unit == "%" && r.delta ? u" (%1 pts)"_s.arg(*r.delta, 0, 'f', 2) : QString())
                        : u"–"_s,
            r.noise_pct ? u"± "_s + QString::number(*r.noise_pct, 'f', 1) + u" %"_s : u"–"_s,
            !(r.delta_pct && r.noise_pct) ? u"–"_s : (r.beyond_noise ? tr("beyond") : tr("within"))};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setFlags(item->flags() & ~Qt::ItemIsEditable);
            item->setToolTip(cells[c]);
            if (r.beyond_noise)
                item->setFont([&] {
                    QFont f = item->font();
                    f.setBold(true);
                    return f;
                }());
            m_metricDiff->setItem(i, c, item);
        }
    }
    return diff;
}

QString VerdictPage::gatesText() const
{
    return m_gates->text();
}

void VerdictPage::ledgerEdited(int row, int column)
{
    if (m_filling || column != 3)
        return;
    const std::string id = m_ledger->item(row, 0)->text().toStdString();
    std::vector<std::string> hypotheses;
    for (const QString& line : m_ledger->item(row, 3)->text().split(QRegularExpression(u"[\n;]"_s), Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty())
            hypotheses.push_back(line.trimmed().toStdString());
    document()->edit(tr("Edit the hypotheses of %1").arg(qs(id)), [=](Study& s) {
        for (auto& l : s.ledger)
            if (l.experiment_id == id)
                l.hypotheses = hypotheses;
    });
}

QString VerdictPage::aaText() const
{
    return m_aa->isVisibleTo(this) ? m_aa->text() : QString();
}

QString VerdictPage::aaHistoryText() const
{
    return m_aaHistory->isVisibleTo(this) ? m_aaHistory->text() : QString();
}

QString VerdictPage::finalVerdict() const
{
    return m_story->badge()->verdict();
}

QString VerdictPage::sampleVerdict() const
{
    return m_sampleWord;
}

void VerdictPage::refresh()
{
    const Experiment* e = document()->currentExperiment();
    const SampleVerdict* sample = e && e->verdict ? &*e->verdict : nullptr;
    const FinalVerdict* final = e && e->final_verdict ? &*e->final_verdict : nullptr;
    m_story->setExperiment(e);
    m_commitArms->showExperiment(document()->study(), document()->filePath(), e);
    m_sampleWord = sample ? word(sample->word) : QString();
    setValue(
        m_finalReasons, final ? bullets(final->reasons) : tr("No final verdict yet: run the experiment to the end."));
    setValue(m_sampleReasons, sample ? bullets(sample->reasons) : tr("No sample verdict yet."));
    // The real A/A beside the A/B (verdict/aa_verdict.h), and the device's history of them.
    QString aa;
    if (e && aa_arm(*e))
        aa = e->aa_verdict ? qs(aa_summary(*e->aa_verdict)) : tr("A/A arm: no verdict yet.");
    m_aa->setVisible(!aa.isEmpty());
    setValue(m_aa, aa);
    // The device's history, shown with or without an A/A arm here: it says how far any verdict on
    // this machine can be trusted. The experiment's device, else the study's first one recorded.
    const DeviceIdentity* device = e && !e->device.empty() ? &e->device : nullptr;
    for (const auto& x : document()->study().experiments)
        if (!device && !x.device.empty())
            device = &x.device;
    QString history;
    if (device) {
        try {
            history = qs(
                describe_aa_history(aa_false_alarm_rate(read_aa_history(aa_history_path()), *device), device->model));
        } catch (const std::exception& ex) { // the study's own A/A still shows
            history = tr("A/A history: not readable here (%1)").arg(qs(ex.what()));
        }
    }
    m_aaHistory->setVisible(!history.isEmpty());
    setValue(m_aaHistory, history);

    QString evidence;
    if (sample) {
        const QString unit = qs(document()->study().target.unit);
        const auto& ci = sample->ci95_delta_pct;
        evidence = tr("delta %1 (95% CI %2 … %3 %), sigma %4, speedup %5×")
                       .arg(num(sample->delta_pct, 2, u" %"_s), num(ci ? std::optional((*ci)[0]) : std::nullopt, 2),
                           num(ci ? std::optional((*ci)[1]) : std::nullopt, 2), num(sample->sigma_pct, 2, u" %"_s),
                           num(sample->speedup, 3));
        for (const auto& [name, a] : {std::pair<QString, const ArmStats&> {u"baseline"_s, sample->baseline},
                 {u"treatment"_s, sample->treatment}}) {
            evidence
                += tr("\n%1: n = %2, mean %3 %4 ± %5 sd (cv %6)")
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
    const auto lanes
        = refreshMetricDiff(e, sample ? sample->profile.noise_k : make_profile("generic", Direction::Lower).noise_k);

    const auto& predicted = document()->study().prediction.predicted_delta_pct;
    QString prediction = predicted ? tr("Prediction check: predicted %1 %, measured %2")
                                         .arg(*predicted, 0, 'f', 1)
                                         .arg(num(sample ? sample->delta_pct : std::nullopt, 1, u" %"_s))
                                   : tr("Prediction check: no prediction was recorded (phase 4).");
    if (predicted && final)
        prediction += final->flags.empty()
            ? tr("\nPrediction-check flags: none")
            : tr("\nPrediction-check flags: ") + bullets(final->flags).replace(u'\n', u' ');
    setValue(m_prediction, prediction);

    // The rule and the profile line are the profile's own numbers (verdict/profile_text.h): a
    // custom profile is judged by its numbers, and the page says those.
    setRule(ruleText(sample ? sample->profile : make_profile("generic", Direction::Lower)));
    setValue(m_profile, sample ? qs(describe_profile(sample->profile)) : QString());
    // The chart takes the verdict's JSON form (its API, shared with the tests of the plots).
    m_sigma->setVerdict(sample ? toQJsonObject(to_json(*sample)) : QJsonObject {});
    m_roofline->setExperiment(document()->study(), e, lanes);

    // Gates now and gates then: each gate's state now (the engine's study_gates), and apart from
    // it what each attempt ran without, with its time (study/attempt_gates.h). The recorded list is
    // history: a gate met since (a profile taken on phase 3 after the run) is met now.
    QStringList gates;
    if (e) {
        const auto& study = document()->study();
        // The met gates on one line, each unmet one on its own with its reason.
        QStringList met;
        QStringList unmet;
        for (const Gate& g : study_gates(study, *e))
            if (g.met)
                met << tr("%1 (phase %2)").arg(qs(g.id)).arg(g.phase);
            else
                unmet << u"✘ "_s + qs(g.reason);
        gates << (met.isEmpty() ? tr("Gates now:") : tr("Gates now: ✔ %1").arg(met.join(u" · "_s)));
        gates << unmet;
        const auto then = attempt_gates(study);
        if (!then.empty())
            gates << tr("Gates when each attempt ran:");
        for (const AttemptGates& a : then) {
            const QString when = a.ran_at.empty() ? tr("time not recorded") : qs(a.ran_at);
            if (a.missing.empty()) {
                gates << tr("%1 (%2): ✔ every gate was met").arg(qs(a.experiment_id), when);
                continue;
            }
            QStringList missing;
            for (const auto& g : a.missing)
                missing << u"✘ "_s + qs(g);
            gates << tr("%1 (%2): %3").arg(qs(a.experiment_id), when, missing.join(u"; "_s));
        }
    }
    setValue(m_gates, gates.join(u'\n'));
    m_gates->setToolTip(tr("The playbook's gates (methodology phases 1-7): their state now, and the ones each attempt "
                           "ran without as kwb run recorded them then"));

    m_filling = true;
    const auto& ledger = document()->study().ledger;
    m_ledger->setRowCount(static_cast<int>(ledger.size()));
    for (int row = 0; row < static_cast<int>(ledger.size()); ++row) {
        const auto& l = ledger[static_cast<size_t>(row)];
        QStringList hypotheses;
        for (const auto& h : l.hypotheses)
            hypotheses << qs(h);
        const QStringList cells {qs(l.experiment_id), qs(l.verdict), qs(l.summary), hypotheses.join(u"; "_s)};
        for (int c = 0; c < 4; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c != 3)
                item->setFlags(item->flags() & ~Qt::ItemIsEditable);
            item->setToolTip(c == 3 ? tr("Double-click to edit. Playbook phase 8: a NULL result is knowledge; write "
                                         "the hypotheses that survive this attempt, separated by ';'.%1")
                                          .arg(cells[c].isEmpty() ? QString() : u"\n"_s + cells[c])
                                    : cells[c]);
            m_ledger->setItem(row, c, item);
        }
    }
    m_filling = false;
    m_newAttempt->setEnabled(e && !e->samples.empty() && !document()->hasRunnableExperiment());
}

} // namespace kwb::gui
