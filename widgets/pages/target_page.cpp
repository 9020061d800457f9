// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/target_page.h"

#include "models/arm_stats_model.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "models/workload_catalog.h"
#include "study/gates.h"
#include "study/target_check.h"
#include "verdict/verdict.h"

#include <QComboBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <cmath>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

// Sets a field's text from the study unless the user is typing in it.
void showText(QLineEdit* edit, const QString& text)
{
    if (!edit->hasFocus() && edit->text() != text)
        edit->setText(text);
}

std::optional<double> parsedNumber(const QLineEdit* edit)
{
    bool ok = false;
    const double v = edit->text().trimmed().toDouble(&ok); // C locale, as the validator
    return ok && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

} // namespace

TargetPage::TargetPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("1 · Target"),
        tr("One metric, from X to Y, with its unit; pin K (kernel semantics), R (reference oracle) "
           "and W (workload). No numbers, no study."),
        parent)
{
    setObjectName(u"targetPage"_s);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    // The study's name: the window's title, every page's heading and the reports say it.
    m_name = new QLineEdit(this);
    m_name->setObjectName(u"studyName"_s);
    m_name->setPlaceholderText(tr("what this study answers, e.g. \"gemm block_n 128 vs 256 on H200\""));
    m_name->setToolTip(tr("The study's name: in the window's title, the pages and the reports"));
    form->addRow(tr("Study name"), m_name);
    connect(m_name, &QLineEdit::editingFinished, this, [this] {
        const std::string name = m_name->text().trimmed().toStdString();
        if (name.empty() || name == this->document()->study().name) {
            m_name->setText(qs(this->document()->study().name)); // a study always has a name
            return;
        }
        this->document()->edit(tr("Rename the study"), [name](Study& s) { s.name = name; });
    });

    m_workloadBox = new QComboBox(this);
    m_workloadBox->setObjectName(u"targetWorkload"_s);
    m_workloadBox->addItems(workloadNames());
    m_workloadBox->setToolTip(tr("The built-in workload whose metrics the target can name (the A/B on phase 5 "
                                 "uses the same workload)"));
    form->addRow(tr("Workload"), m_workloadBox);

    m_metricBox = new QComboBox(this);
    m_metricBox->setObjectName(u"targetMetric"_s);
    m_metricBox->setToolTip(tr("Playbook phase 1: one metric. Its unit and direction come from the workload."));
    form->addRow(tr("Metric"), m_metricBox);
    form->addRow(tr("Better is"), m_direction = valueLabel(this));

    auto* numbers = new QHBoxLayout;
    m_current = new QLineEdit(this);
    m_current->setObjectName(u"targetCurrent"_s);
    m_current->setPlaceholderText(tr("X: today's value"));
    m_goal = new QLineEdit(this);
    m_goal->setObjectName(u"targetGoal"_s);
    m_goal->setPlaceholderText(tr("Y: the goal"));
    for (QLineEdit* e : {m_current, m_goal}) {
        auto* v = new QDoubleValidator(0, 1e300, 12, e);
        v->setNotation(QDoubleValidator::StandardNotation);
        v->setLocale(QLocale::c());
        e->setValidator(v);
        e->setToolTip(e == m_current
                ? tr("Playbook phase 1, X: today's value of the metric, measured, in its unit (\"I want to move "
                     "from X to Y\"; no numbers, no target)")
                : tr("Playbook phase 1, Y: the value to reach, in the metric's unit; the verdict's thresholds "
                     "judge the measured change, this says whether it was enough"));
        connect(e, &QLineEdit::editingFinished, this, &TargetPage::numbersEdited);
    }
    numbers->addWidget(new QLabel(tr("from"), this));
    numbers->addWidget(m_current, 1);
    numbers->addWidget(new QLabel(tr("to"), this));
    numbers->addWidget(m_goal, 1);
    form->addRow(tr("From → to"), numbers);
    form->addRow(QString(), m_fromTo = valueLabel(this));

    const auto textField = [&](const QString& name, const QString& placeholder, std::string Target::*field,
                               const QString& what, const QString& tip) {
        auto* e = new QLineEdit(this);
        e->setObjectName(name);
        e->setPlaceholderText(placeholder);
        e->setToolTip(tip);
        connect(e, &QLineEdit::editingFinished, this, [this, e, field, what] { textEdited(e, field, what); });
        return e;
    };
    m_kernel = textField(u"targetKernel"_s, tr("exact semantics, dtypes, shapes, layouts"), &Target::kernel, tr("K"),
        tr("Playbook phase 1, K: the exact kernel semantics, dtypes, shapes, layouts and the regimes it does not "
           "support, pinned before touching code"));
    m_reference = textField(u"targetReference"_s, tr("the correctness oracle"), &Target::reference, tr("R"),
        tr("Playbook phase 1, R: the correctness oracle each arm is checked against (a reference implementation, "
           "a test, a JSON baseline); no verdict without correctness"));
    m_workload = textField(u"targetW"_s, tr("the workload distribution or focused shape"), &Target::workload, tr("W"),
        tr("Playbook phase 1, W: the workload distribution, or one focused shape (then say that generality is "
           "deferred: phase 7's generality axis)"));
    form->addRow(tr("K · kernel semantics"), m_kernel);
    form->addRow(tr("R · reference oracle"), m_reference);
    form->addRow(tr("W · workload"), m_workload);

    m_profileBox = new QComboBox(this);
    m_profileBox->setObjectName(u"targetProfile"_s);
    m_profileBox->addItems({u"generic"_s, u"strict"_s, u"speedup"_s});
    m_profileBox->setToolTip(tr("The verdict's thresholds (spec/verdict.md); stored on the A/B experiment"));
    form->addRow(tr("Verdict profile"), m_profileBox);
    form->addRow(QString(), m_profileNumbers = valueLabel(this));
    // Short lines: one line each reads better than a narrow wrapped column beside the form.
    // (the profile's numbers wrap: on one line they would push a 1024-wide window into scrolling)
    m_profileNumbers->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_profileNumbers->setMinimumWidth(420); // wrapped, but never into a narrow column
    for (QLabel* l : {m_direction, m_fromTo})
        l->setWordWrap(false);
    body()->addLayout(form);

    m_gate = valueLabel(this);
    m_gate->setObjectName(u"targetGate"_s);
    body()->addWidget(m_gate);
    body()->addWidget(sectionLabel(tr("Target against the measurement"), this));
    m_measured = valueLabel(this);
    m_measured->setObjectName(u"targetMeasured"_s);
    body()->addWidget(m_measured);
    body()->addStretch(1);

    connect(m_workloadBox, &QComboBox::currentTextChanged, this, [this] { refresh(); });
    connect(m_metricBox, &QComboBox::activated, this, &TargetPage::metricChosen);
    connect(m_profileBox, &QComboBox::activated, this, &TargetPage::profileChosen);
}

QString TargetPage::workloadName() const
{
    const Experiment* e = document()->currentExperiment();
    return e ? qs(e->workload) : m_workloadBox->currentText();
}

void TargetPage::metricChosen()
{
    const WorkloadDescription* w = findWorkload(workloadName().toStdString());
    if (!w)
        return;
    const std::string name = m_metricBox->currentData().toString().toStdString();
    for (const auto& m : w->metrics)
        if (m.name == name)
            document()->edit(tr("Set the target metric to %1").arg(qs(name)), [m](Study& s) {
                s.target.metric = m.name;
                s.target.unit = m.unit;
                s.target.direction = m.direction;
                // An A/B not yet run judges the target's metric.
                for (auto& e : s.experiments)
                    if (e.samples.empty())
                        e.metric = m.name;
            });
}

void TargetPage::numbersEdited()
{
    const auto current = parsedNumber(m_current);
    const auto goal = parsedNumber(m_goal);
    const auto& t = document()->study().target;
    if (current == t.current && goal == t.goal)
        return;
    document()->edit(tr("Set from X to Y"), [current, goal](Study& s) {
        s.target.current = current;
        s.target.goal = goal;
    });
}

void TargetPage::textEdited(QLineEdit* edit, std::string Target::*field, const QString& what)
{
    const std::string text = edit->text().toStdString();
    if (document()->study().target.*field == text)
        return;
    document()->edit(tr("Edit %1").arg(what), [field, text](Study& s) { s.target.*field = text; });
}

void TargetPage::profileChosen()
{
    const std::string name = m_profileBox->currentText().toStdString();
    document()->edit(tr("Use the %1 profile").arg(qs(name)), [name](Study& s) {
        for (auto& e : s.experiments)
            if (e.samples.empty() || e.profile == name)
                e.profile = name;
    });
}

void TargetPage::refresh()
{
    const auto& study = document()->study();
    const auto& t = study.target;
    if (!m_name->hasFocus() && m_name->text() != qs(study.name))
        m_name->setText(qs(study.name));
    const Experiment* e = document()->currentExperiment();
    {
        const QSignalBlocker block(m_workloadBox);
        if (e)
            m_workloadBox->setCurrentText(qs(e->workload));
        m_workloadBox->setEnabled(!e);
        m_workloadBox->setToolTip(e ? tr("The A/B's workload (change it on phase 5)") : m_workloadBox->toolTip());
    }
    {
        const QSignalBlocker block(m_metricBox);
        m_metricBox->clear();
        if (const WorkloadDescription* w = findWorkload(workloadName().toStdString()))
            for (const auto& m : w->metrics)
                m_metricBox->addItem(tr("%1 (%2)").arg(qs(m.name), qs(m.unit)), qs(m.name));
        if (!t.metric.empty() && m_metricBox->findData(qs(t.metric)) < 0)
            m_metricBox->addItem(
                tr("%1 (%2, not a metric of this workload)").arg(qs(t.metric), qs(t.unit)), qs(t.metric));
        m_metricBox->setCurrentIndex(t.metric.empty() ? -1 : m_metricBox->findData(qs(t.metric)));
        m_metricBox->setPlaceholderText(tr("choose the one metric"));
    }
    setValue(m_direction,
        t.metric.empty()                      ? QString()
            : t.direction == Direction::Lower ? tr("lower (a time, a latency, bytes)")
                                              : tr("higher (a throughput)"));
    showText(m_current, t.current ? QString::number(*t.current, 'g', 12) : QString());
    showText(m_goal, t.goal ? QString::number(*t.goal, 'g', 12) : QString());
    const QString unit = qs(t.unit);
    QString fromTo;
    if (t.current && t.goal && *t.current != 0) {
        const double change = 100.0 * (*t.goal - *t.current) / *t.current;
        fromTo = tr("%1 %3 → %2 %3  (%4%5 %)")
                     .arg(ArmStatsModel::formatNumber(*t.current), ArmStatsModel::formatNumber(*t.goal), unit)
                     .arg(change > 0 ? u"+"_s : QString())
                     .arg(change, 0, 'f', 1);
    }
    setValue(m_fromTo, fromTo);
    showText(m_kernel, qs(t.kernel));
    showText(m_reference, qs(t.reference));
    showText(m_workload, qs(t.workload));

    const std::string profileName = e ? e->profile : std::string("generic");
    {
        const QSignalBlocker block(m_profileBox);
        m_profileBox->setCurrentText(qs(profileName));
        m_profileBox->setEnabled(e != nullptr);
    }
    try {
        const Profile p = make_profile(profileName, t.direction);
        setValue(m_profileNumbers,
            profileName == "speedup"
                ? tr("license at ≥ %1× speedup, kill below %2×; n ≥ %3 per arm, sigma < %4 %")
                      .arg(p.license_speedup)
                      .arg(p.kill_speedup)
                      .arg(p.min_n)
                      .arg(p.max_sigma_pct)
                : tr("license at ≥ %1 % better, kill below %2 %; n ≥ %3 per arm, sigma < %4 %, unstable above "
                     "%5 %; noise = %6 × sigma")
                        .arg(p.license_pct)
                        .arg(p.kill_pct)
                        .arg(p.min_n)
                        .arg(p.max_sigma_pct)
                        .arg(p.unstable_sigma_pct)
                        .arg(p.noise_k)
                    + (e ? QString() : tr("  (set up the A/B on phase 5 to choose another)")));
    } catch (const std::exception&) {
        setValue(m_profileNumbers, tr("custom profile (%1)").arg(qs(profileName)));
    }

    const Gate target = target_gate(t);
    const Gate krw = krw_gate(t);
    QStringList missing;
    for (const Gate& g : {target, krw})
        if (!g.met)
            missing << qs(g.reason);
    m_gate->setText(
        missing.isEmpty() ? tr("✔ Target complete: the A/B may use it.") : u"✘ "_s + missing.join(u"\n✘ "_s));
    m_gate->setStyleSheet(missing.isEmpty() ? u"color: #2e7d32;"_s : u"color: #c62828;"_s);
    m_gate->setToolTip(qs(target.rule) + u'\n' + qs(krw.rule));

    QString measured;
    if (e)
        if (const auto c = check_target(t, *e)) {
            QStringList lines;
            for (const auto& line : c->comments)
                lines << qs(line);
            measured = lines.join(u'\n');
        }
    setValue(m_measured, measured.isEmpty() ? tr("No run has measured the target's metric yet.") : measured);
}

} // namespace kwb::gui
