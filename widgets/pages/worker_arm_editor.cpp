// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/worker_arm_editor.h"

#include "models/env_text.h"
#include "models/json_convert.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "models/test_arm_run.h"
#include "study/worker_spec.h"
#include "workloads/worker/worker_check.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 6);
}

QDoubleSpinBox* toleranceBox(QWidget* parent, const QString& name, const QString& tip)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setObjectName(name);
    box->setRange(0, 1e9);
    box->setDecimals(9);
    box->setToolTip(tip);
    return box;
}

// What kwb new recorded of the worker's describe answer, in one short paragraph.
QString describedText(const WorkerDescription& d)
{
    QStringList params;
    for (const auto& p : d.params)
        params << (p.values.empty() ? qs(p.name) : u"%1 (%2 values)"_s.arg(qs(p.name)).arg(p.values.size()));
    const QString device = d.device.kind == "cuda"
        ? QObject::tr("GPU %1").arg(d.device.name.empty() ? qs(d.device.uuid) : qs(d.device.name))
        : QObject::tr("the CPU");
    return QObject::tr("Described by the worker when the study was made: %1%2 on %3, timed with %4, %5; "
                       "parameters: %6.")
        .arg(d.worker.empty() ? QObject::tr("(unnamed)") : qs(d.worker),
            d.version.empty() ? QString() : u" "_s + qs(d.version), device, qs(d.timer),
            d.has_reference ? QObject::tr("checked against its own reference")
                            : QObject::tr("checked against the baseline's output"),
            params.isEmpty() ? QObject::tr("none") : params.join(u", "_s));
}

} // namespace

WorkerArmEditor::WorkerArmEditor(StudyDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
{
    setObjectName(u"workerArmEditor"_s);
    auto* form = new QFormLayout;
    m_arm = new QComboBox(this);
    m_arm->setObjectName(u"workerArm"_s);
    m_arm->setToolTip(tr("The arm whose worker the fields below edit"));
    m_command = new QLineEdit(this);
    m_command->setObjectName(u"workerCommand"_s);
    m_command->setToolTip(tr("The worker process of this arm, started once per experiment by /bin/sh and driven over "
                             "the worker protocol. kwb run checks that it still describes the study's parameters"));
    m_cwd = new QLineEdit(this);
    m_cwd->setObjectName(u"workerCwd"_s);
    m_cwd->setPlaceholderText(tr("where kwb runs"));
    m_cwd->setToolTip(tr("The folder the worker runs in (empty: where kwb runs)"));
    m_env = new QLineEdit(this);
    m_env->setObjectName(u"workerEnv"_s);
    m_env->setPlaceholderText(tr("K=V overrides, space separated (quote a value with spaces)"));
    m_env->setToolTip(tr("Environment overrides: a matched control, so keep them equal between arms"));
    m_timeout = new QDoubleSpinBox(this);
    m_timeout->setObjectName(u"workerTimeout"_s);
    m_timeout->setRange(0.1, 604800);
    m_timeout->setDecimals(1);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setToolTip(tr("A repetition (one time request) answered later is a failed repetition; the worker is "
                             "restarted once"));
    m_atol = toleranceBox(this, u"workerAtol"_s,
        tr("Absolute tolerance of the check against the baseline's output: |t - b| <= atol + rtol x |b|"));
    m_rtol = toleranceBox(this, u"workerRtol"_s, tr("Relative tolerance of the check against the baseline's output"));
    form->addRow(tr("Arm"), m_arm);
    form->addRow(tr("Worker command"), m_command);
    form->addRow(tr("Working directory"), m_cwd);
    form->addRow(tr("Environment"), m_env);
    form->addRow(tr("Timeout per repetition"), m_timeout);
    form->addRow(tr("Check: atol"), m_atol);
    form->addRow(tr("Check: rtol"), m_rtol);
    m_described = new QLabel(this);
    m_described->setObjectName(u"workerDescribed"_s);
    m_described->setWordWrap(true);
    m_refusalLabel = new QLabel(this);
    m_refusalLabel->setObjectName(u"workerRefusal"_s);
    m_refusalLabel->setWordWrap(true);
    m_refusalLabel->setStyleSheet(u"color: #c62828;"_s);
    m_refusalLabel->hide();
    auto* testRow = new QHBoxLayout;
    m_test = new QPushButton(tr("Test once"), this);
    m_test->setObjectName(u"workerTestOnce"_s);
    m_test->setToolTip(tr("Start this arm's worker, check it against its reference with a fresh seed and time one "
                          "launch, as a run would; nothing is recorded"));
    m_result = new QLabel(this);
    m_result->setObjectName(u"workerTestResult"_s);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    testRow->addWidget(m_test, 0, Qt::AlignTop);
    testRow->addWidget(m_result, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_described);
    layout->addWidget(m_refusalLabel);
    layout->addLayout(testRow);

    connect(m_arm, &QComboBox::activated, this, [this] {
        m_result->clear();
        fill();
    });
    for (QLineEdit* e : {m_command, m_cwd, m_env})
        connect(e, &QLineEdit::editingFinished, this, &WorkerArmEditor::fieldEdited);
    for (QDoubleSpinBox* b : {m_timeout, m_atol, m_rtol})
        connect(b, &QDoubleSpinBox::editingFinished, this, &WorkerArmEditor::fieldEdited);
    connect(m_test, &QPushButton::clicked, this, &WorkerArmEditor::testOnce);
}

WorkerArmEditor::~WorkerArmEditor() = default;

int WorkerArmEditor::armIndex() const
{
    return std::max(0, m_arm->currentIndex());
}

void WorkerArmEditor::setArmIndex(int arm)
{
    m_arm->setCurrentIndex(arm);
    m_result->clear();
    fill();
}

QString WorkerArmEditor::testResult() const
{
    return m_result->text();
}

void WorkerArmEditor::showExperiment(int experimentIndex)
{
    m_experiment = experimentIndex;
    fill();
}

void WorkerArmEditor::fill()
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
    const WorkerSpec spec = a && a->worker ? *a->worker : WorkerSpec {};
    // Finished experiments are kept as they ran: edit a new attempt instead.
    const bool editable = a && a->worker && e->samples.empty();
    for (QWidget* w : std::initializer_list<QWidget*> {m_command, m_cwd, m_env, m_timeout, m_atol, m_rtol})
        w->setEnabled(editable);
    m_test->setEnabled(a && a->worker && !m_test_run);
    if (!m_command->hasFocus())
        m_command->setText(qs(spec.cmd));
    if (!m_cwd->hasFocus())
        m_cwd->setText(qs(spec.cwd));
    if (!m_env->hasFocus())
        m_env->setText(envText(spec.env));
    m_timeout->setValue(spec.timeout_s);
    m_atol->setValue(spec.atol);
    m_rtol->setValue(spec.rtol);
    m_described->setText(a && a->worker ? describedText(spec.description) : QString());
    m_refusalLabel->setVisible(!m_refusal.isEmpty());
    m_refusalLabel->setText(m_refusal);
    m_filling = false;
}

void WorkerArmEditor::refuse(const QString& why)
{
    m_refusal = why;
    fill();
}

void WorkerArmEditor::fieldEdited()
{
    if (m_filling || m_experiment < 0)
        return;
    const auto& e = m_document->study().experiments.at(static_cast<size_t>(m_experiment));
    const size_t arm = static_cast<size_t>(armIndex());
    if (arm >= e.arms.size() || !e.arms[arm].worker || !e.samples.empty())
        return;
    const WorkerSpec& was = *e.arms[arm].worker;
    WorkerSpec spec = was;
    QString envError;
    const auto env = parseEnvText(m_env->text(), &envError);
    if (!envError.isEmpty())
        return refuse(envError);
    spec.cmd = m_command->text().trimmed().toStdString();
    spec.cwd = m_cwd->text().trimmed().toStdString();
    spec.env = env;
    spec.timeout_s = m_timeout->value();
    spec.atol = m_atol->value();
    spec.rtol = m_rtol->value();
    if (spec.cmd == was.cmd && spec.cwd == was.cwd && spec.env == was.env && spec.timeout_s == was.timeout_s
        && spec.atol == was.atol && spec.rtol == was.rtol) {
        if (!m_refusal.isEmpty())
            refuse(QString());
        return;
    }
    try {
        worker::validate(spec, e.arms[arm].name);
    } catch (const std::exception& x) {
        return refuse(qs(x.what()));
    }
    m_refusal.clear();
    const int i = m_experiment;
    m_document->edit(
        tr("Edit the %1 arm's worker").arg(qs(e.arms[arm].name)),
        [i, arm, spec](Study& s) { s.experiments[static_cast<size_t>(i)].arms[arm].worker = spec; },
        u"worker-arm-%1"_s.arg(arm));
}

void WorkerArmEditor::testOnce()
{
    if (m_test_run || m_experiment < 0)
        return;
    const auto& e = m_document->study().experiments.at(static_cast<size_t>(m_experiment));
    const size_t arm = static_cast<size_t>(armIndex());
    if (arm >= e.arms.size() || !e.arms[arm].worker)
        return;
    const WorkerSpec spec = *e.arms[arm].worker;
    try {
        worker::validate(spec, e.arms[arm].name);
    } catch (const std::exception& x) {
        m_result->setText(tr("Not run: %1").arg(qs(x.what())));
        emit testFinished(false);
        return;
    }
    const nlohmann::json input = {{"worker", worker_spec_json(spec)}, {"params", e.arms[arm].params}};
    m_test_run = new TestArmRun(this);
    connect(m_test_run, &TestArmRun::finished, this, &WorkerArmEditor::testOnceFinished);
    m_test->setEnabled(false);
    m_result->setText(tr("Starting `%1`: describe, prepare, check, one launch…").arg(qs(spec.cmd)));
    m_test_run->start(RunController::defaultProgram(),
        {u"--worker-json"_s, u"-"_s, u"--arm"_s, qs(e.arms[arm].name), u"--metric"_s, qs(e.metric), u"--json"_s},
        QByteArray::fromStdString(input.dump()));
}

void WorkerArmEditor::testOnceFinished(const QJsonObject& a, const QString& failure)
{
    m_test_run->deleteLater();
    m_test_run = nullptr;
    m_test->setEnabled(true);
    if (a.isEmpty()) {
        m_result->setText(tr("Not run: %1").arg(failure));
        emit testFinished(false);
        return;
    }
    const QJsonObject check = a.value(u"check").toObject();
    if (!a.value(u"ok").toBool()) {
        m_result->setText(tr("Not usable: %1").arg(a.value(u"error").toString().simplified()));
        emit testFinished(false);
        return;
    }
    const QString metric = a.value(u"metric").toString();
    const bool timed = !a.value(u"value").isNull() && !a.value(u"value").isUndefined();
    QString text = tr("Check passed: %1").arg(check.value(u"detail").toString());
    text += u'\n'
        + (timed ? tr("One launch timed: %1 = %2").arg(metric, number(a.value(u"value").toDouble()))
                 : tr("One launch ran, but the worker gave no %1 (the metric judged)").arg(metric));
    m_result->setText(text);
    emit testFinished(timed);
}

} // namespace kwb::gui
