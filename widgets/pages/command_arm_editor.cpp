// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/command_arm_editor.h"

#include "models/env_text.h"
#include "models/json_convert.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "models/test_arm_run.h"
#include "study/study_json.h"
#include "workloads/command/adapter.h"
#include "workloads/command/command_spec.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <memory>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 6);
}

} // namespace

CommandArmEditor::CommandArmEditor(StudyDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
{
    setObjectName(u"commandArmEditor"_s);
    auto* form = new QFormLayout;
    m_arm = new QComboBox(this);
    m_arm->setObjectName(u"commandArm"_s);
    m_arm->setToolTip(tr("The arm whose command the fields below edit; the A/B compares the two arms"));
    m_command = new QLineEdit(this);
    m_command->setObjectName(u"commandLine"_s);
    m_command->setToolTip(tr("The benchmark command one repetition runs, in a shell; {out} becomes a fresh result file "
                             "per repetition. Change one thing between the arms: the playbook's single variable"));
    m_command->setPlaceholderText(tr("run by /bin/sh; {out} becomes a fresh result-file path per repetition"));
    m_cwd = new QLineEdit(this);
    m_cwd->setObjectName(u"commandCwd"_s);
    m_cwd->setToolTip(tr("The folder the command runs in (empty: where kwb runs)"));
    m_cwd->setPlaceholderText(tr("where kwb runs"));
    m_env = new QLineEdit(this);
    m_env->setObjectName(u"commandEnv"_s);
    m_env->setToolTip(tr("Environment overrides as K=V, space separated (shell quoting): a matched control, so keep "
                         "them equal between arms unless they are the variable"));
    m_env->setPlaceholderText(tr("K=V overrides, space separated (quote a value with spaces)"));
    m_timeout = new QDoubleSpinBox(this);
    m_timeout->setObjectName(u"commandTimeout"_s);
    m_timeout->setRange(0.1, 604800);
    m_timeout->setDecimals(1);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setToolTip(tr("A repetition running longer is killed with its process group and recorded as failed"));
    m_check = new QLineEdit(this);
    m_check->setObjectName(u"commandCheck"_s);
    m_check->setToolTip(tr("Run once per arm before timing; exit 0 means the arm's output is correct. Without it the "
                           "verdict lists correctness as a missing gate"));
    m_check->setPlaceholderText(tr("exit 0 = the output is correct; empty: the arm stays unverified (a missing gate)"));
    m_adapter = new QComboBox(this);
    m_adapter->setObjectName(u"commandAdapter"_s);
    m_adapter->addItem(u"auto"_s);
    for (const auto& name : command::adapter_names())
        m_adapter->addItem(qs(name));
    m_adapter->setToolTip(tr("Reads both arms' output (one adapter for both, so the arms are read alike); auto "
                             "detects it from the output"));
    m_metric = new QComboBox(this);
    m_metric->setObjectName(u"commandMetric"_s);
    m_metric->setEditable(true);
    m_metric->setInsertPolicy(QComboBox::NoInsert);
    m_metric->setToolTip(tr("The metric the verdict judges: a canonical name (time_ms, ttft_ms...) or the "
                            "adapter's own key (mean_ttft_ms)"));
    form->addRow(tr("Arm"), m_arm);
    form->addRow(tr("Command"), m_command);
    form->addRow(tr("Working directory"), m_cwd);
    form->addRow(tr("Environment"), m_env);
    form->addRow(tr("Timeout"), m_timeout);
    form->addRow(tr("Check command"), m_check);
    form->addRow(tr("Adapter (both arms)"), m_adapter);
    form->addRow(tr("Metric (both arms)"), m_metric);

    m_refusalLabel = new QLabel(this);
    m_refusalLabel->setObjectName(u"commandRefusal"_s);
    m_refusalLabel->setWordWrap(true);
    m_refusalLabel->setStyleSheet(u"color: #c62828;"_s);
    m_refusalLabel->hide();
    auto* testRow = new QHBoxLayout;
    m_test = new QPushButton(tr("Test once"), this);
    m_test->setObjectName(u"commandTestOnce"_s);
    m_test->setToolTip(tr("Run this arm's command one time, as a repetition would, and show what the adapter read"));
    m_result = new QLabel(this);
    m_result->setObjectName(u"commandTestResult"_s);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    testRow->addWidget(m_test, 0, Qt::AlignTop);
    testRow->addWidget(m_result, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_refusalLabel);
    layout->addLayout(testRow);

    connect(m_arm, &QComboBox::activated, this, [this] {
        m_result->clear();
        fill();
    });
    for (QLineEdit* e : {m_command, m_cwd, m_env, m_check})
        connect(e, &QLineEdit::editingFinished, this, &CommandArmEditor::armFieldEdited);
    connect(m_timeout, &QDoubleSpinBox::editingFinished, this, &CommandArmEditor::armFieldEdited);
    connect(m_adapter, &QComboBox::activated, this, &CommandArmEditor::adapterChosen);
    connect(m_metric, &QComboBox::activated, this, &CommandArmEditor::metricChosen);
    connect(m_metric->lineEdit(), &QLineEdit::editingFinished, this, &CommandArmEditor::metricChosen);
    connect(m_test, &QPushButton::clicked, this, &CommandArmEditor::testOnce);
}

CommandArmEditor::~CommandArmEditor() = default;

int CommandArmEditor::armIndex() const
{
    return std::max(0, m_arm->currentIndex());
}

void CommandArmEditor::setArmIndex(int arm)
{
    m_arm->setCurrentIndex(arm);
    m_result->clear();
    fill();
}

QString CommandArmEditor::testResult() const
{
    return m_result->text();
}

void CommandArmEditor::showExperiment(int experimentIndex)
{
    m_experiment = experimentIndex;
    fill();
}

void CommandArmEditor::fill()
{
    const auto& ex = m_document->study().experiments;
    const Experiment* e = m_experiment >= 0 && m_experiment < static_cast<int>(ex.size())
        ? &ex[static_cast<size_t>(m_experiment)]
        : nullptr;
    m_filling = true;
    const int arm = armIndex();
    m_arm->clear();
    if (e)
        for (const auto& a : e->arms)
            m_arm->addItem(qs(a.name));
    m_arm->setCurrentIndex(std::min(arm, m_arm->count() - 1));
    const Arm* a = e && m_arm->currentIndex() >= 0 ? &e->arms[static_cast<size_t>(m_arm->currentIndex())] : nullptr;
    const CommandSpec spec = a && a->command ? *a->command : CommandSpec {};
    // Finished experiments are kept as they ran: edit a new attempt instead.
    const bool editable = a && a->command && e->samples.empty();
    for (QWidget* w :
        std::initializer_list<QWidget*> {m_command, m_cwd, m_env, m_timeout, m_check, m_adapter, m_metric})
        w->setEnabled(editable);
    m_test->setEnabled(a && a->command && !m_test_run);
    if (!m_command->hasFocus())
        m_command->setText(qs(spec.cmd));
    if (!m_cwd->hasFocus())
        m_cwd->setText(qs(spec.cwd));
    if (!m_env->hasFocus())
        m_env->setText(envText(spec.env));
    m_timeout->setValue(spec.timeout_s);
    if (!m_check->hasFocus())
        m_check->setText(qs(spec.check));
    m_adapter->setCurrentText(qs(spec.adapter));
    fillMetrics(qs(spec.adapter));
    m_metric->setCurrentText(e ? qs(e->metric) : QString());
    m_refusalLabel->setVisible(!m_refusal.isEmpty());
    m_refusalLabel->setText(m_refusal);
    m_filling = false;
}

void CommandArmEditor::fillMetrics(const QString& adapter)
{
    // The chosen adapter's keys first (canonical name, then the tool's own key), then every
    // canonical metric; auto offers the canonical names only.
    QStringList names;
    try {
        if (adapter != "auto"_L1)
            for (const auto& k : command::make_adapter(adapter.toStdString())->keys())
                for (const QString& n : {qs(k.metric), qs(k.key)})
                    if (!names.contains(n) && !n.contains(u' ') && !n.contains(u'('))
                        names << n;
    } catch (const std::exception&) {
        // an adapter that needs options (keymap, regex) lists no keys of its own
    }
    for (const auto& c : command::canonical_metrics())
        if (!names.contains(qs(c.metric)))
            names << qs(c.metric);
    const QString current = m_metric->currentText();
    m_metric->clear();
    m_metric->addItems(names);
    m_metric->setCurrentText(current);
}

void CommandArmEditor::refuse(const QString& why)
{
    m_refusal = why;
    fill();
}

void CommandArmEditor::armFieldEdited()
{
    if (m_filling || m_experiment < 0)
        return;
    const auto& e = m_document->study().experiments.at(static_cast<size_t>(m_experiment));
    const size_t arm = static_cast<size_t>(armIndex());
    if (arm >= e.arms.size() || !e.arms[arm].command || !e.samples.empty())
        return;
    CommandSpec spec = *e.arms[arm].command;
    QString envError;
    const auto env = parseEnvText(m_env->text(), &envError);
    if (!envError.isEmpty())
        return refuse(envError);
    spec.cmd = m_command->text().trimmed().toStdString();
    spec.cwd = m_cwd->text().trimmed().toStdString();
    spec.env = env;
    spec.timeout_s = m_timeout->value();
    spec.check = m_check->text().trimmed().toStdString();
    const CommandSpec& was = *e.arms[arm].command;
    if (spec.cmd == was.cmd && spec.cwd == was.cwd && spec.env == was.env && spec.timeout_s == was.timeout_s
        && spec.check == was.check) {
        if (!m_refusal.isEmpty())
            refuse(QString());
        return;
    }
    // An arm without a command line yet (a draft of File > New command A/B) takes its other fields
    // as typed; the engine checks the whole arm once its command is set, and again on Create.
    if (!(spec.cmd.empty() && was.cmd.empty())) {
        try {
            command::validate(spec, e.arms[arm].name);
        } catch (const std::exception& x) {
            return refuse(qs(x.what()));
        }
    }
    m_refusal.clear();
    const int i = m_experiment;
    m_document->edit(
        tr("Edit the %1 arm's command").arg(qs(e.arms[arm].name)),
        [i, arm, spec](Study& s) { s.experiments[static_cast<size_t>(i)].arms[arm].command = spec; },
        u"command-arm-%1"_s.arg(arm));
}

void CommandArmEditor::adapterChosen()
{
    if (m_filling || m_experiment < 0)
        return;
    const std::string adapter = m_adapter->currentText().toStdString();
    const auto& e = m_document->study().experiments.at(static_cast<size_t>(m_experiment));
    // Only the adapter is new here: the engine's own constructor checks the name and each arm's
    // options (the rest of an arm, perhaps a draft without its command yet, is not this edit's).
    if (adapter != "auto")
        for (const auto& a : e.arms) {
            if (!a.command)
                continue;
            try {
                (void)command::make_adapter(adapter, a.command->adapter_options);
            } catch (const std::exception& x) {
                return refuse(tr("arm %1: command.adapter: %2").arg(qs(a.name), qs(x.what())));
            }
        }
    m_refusal.clear();
    const int i = m_experiment;
    m_document->edit(tr("Read the commands with %1").arg(qs(adapter)), [i, adapter](Study& s) {
        for (auto& a : s.experiments[static_cast<size_t>(i)].arms)
            if (a.command)
                a.command->adapter = adapter;
    });
}

void CommandArmEditor::metricChosen()
{
    if (m_filling || m_experiment < 0)
        return;
    const std::string metric = m_metric->currentText().trimmed().toStdString();
    const auto& e = m_document->study().experiments.at(static_cast<size_t>(m_experiment));
    if (metric == e.metric || !e.samples.empty())
        return;
    if (metric.empty())
        return refuse(tr("metric: name the metric the verdict judges"));
    m_refusal.clear();
    const int i = m_experiment;
    const std::string old = e.metric;
    const command::KeySpec spec = command::metric_spec(metric);
    m_document->edit(tr("Judge %1").arg(qs(metric)), [=](Study& s) {
        s.experiments[static_cast<size_t>(i)].metric = metric;
        // The target named the old metric (as kwb new writes it): it follows, with the new
        // metric's unit and direction, so the verdict judges the right way round.
        if (s.target.metric == old) {
            s.target.metric = metric;
            if (!spec.unit.empty()) {
                s.target.unit = spec.unit;
                s.target.direction = spec.direction;
            }
        }
    });
}

void CommandArmEditor::testOnce()
{
    if (m_test_run || m_experiment < 0)
        return;
    const auto& e = m_document->study().experiments.at(static_cast<size_t>(m_experiment));
    const size_t arm = static_cast<size_t>(armIndex());
    if (arm >= e.arms.size() || !e.arms[arm].command)
        return;
    const CommandSpec spec = *e.arms[arm].command;
    try {
        command::validate(spec, e.arms[arm].name);
    } catch (const std::exception& x) {
        m_result->setText(tr("Not run: %1").arg(qs(x.what())));
        emit testFinished(false);
        return;
    }
    // The window runs nothing itself: kwb runs the arm once, as it would in a run, and answers in
    // one JSON object (docs/cli.md, kwb test-arm). The arm goes as the study writes it, so an
    // unsaved edit is what is tested.
    m_test_run = new TestArmRun(this);
    connect(m_test_run, &TestArmRun::finished, this, &CommandArmEditor::testOnceFinished);
    m_test->setEnabled(false);
    m_result->setText(tr("Running `%1` once (timeout %2 s)…").arg(qs(spec.cmd), number(spec.timeout_s)));
    m_test_run->start(RunController::defaultProgram(),
        {u"--command-json"_s, u"-"_s, u"--arm"_s, qs(e.arms[arm].name), u"--metric"_s, qs(e.metric), u"--json"_s},
        QByteArray::fromStdString(command_spec_json(spec).dump()));
}

void CommandArmEditor::testOnceFinished(const QJsonObject& a, const QString& failure)
{
    m_test_run->deleteLater();
    m_test_run = nullptr;
    m_test->setEnabled(true);
    if (a.isEmpty()) {
        m_result->setText(tr("Not run: %1").arg(failure));
        emit testFinished(false);
        return;
    }
    if (!a.value(u"ok").toBool()) {
        // One line: the engine's reason (exit status, timeout, what the adapter missed).
        m_result->setText(tr("Read nothing: %1").arg(a.value(u"error").toString().simplified()));
        emit testFinished(false);
        return;
    }
    const QString adapter = a.value(u"adapter").toString(), metric = a.value(u"metric").toString();
    const QString seconds = number(a.value(u"seconds").toDouble());
    QStringList read;
    const QJsonObject metrics = a.value(u"metrics").toObject();
    for (auto it = metrics.begin(); it != metrics.end(); ++it)
        read << u"%1 = %2"_s.arg(it.key(), number(it.value().toDouble()));
    const bool judged = metrics.contains(metric);
    QString text = judged ? tr("The %1 adapter read %2 = %3 in %4 s.")
                                .arg(adapter, metric, number(metrics.value(metric).toDouble()), seconds)
                          : tr("The %1 adapter read no %2 (the metric judged) in %3 s.").arg(adapter, metric, seconds);
    text += u'\n' + tr("Read: %1").arg(read.join(u", "_s));
    if (const QJsonArray notes = a.value(u"notes").toArray(); !notes.isEmpty())
        text += u'\n' + tr("Notes: %1").arg(notes.first().toString());
    m_result->setText(text);
    emit testFinished(judged);
}

} // namespace kwb::gui
