// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/worker_ab_dialog.h"

#include "models/kwb_new_run.h"
#include "models/run_controller.h"
#include "study/plan_limits.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace kwb::gui {

WorkerAbDialog::WorkerAbDialog(QWidget* parent)
    : QDialog(parent)
    , m_kwb(new KwbNewRun(this))
{
    setObjectName(u"workerAbDialog"_s);
    setWindowTitle(tr("New worker A/B"));
    auto* intro = new QLabel(tr("Your own kernel as the arms: a worker command that speaks the worker protocol "
                                "(python3 -m kwb_worker my_kernel.py, or a program built on kwb/worker.h), run once "
                                "per arm and timed, checked and judged like the built-in workloads. The arms differ "
                                "in one of the worker's parameters. kwb new starts the worker once to read them."),
        this);
    intro->setWordWrap(true);
    m_command = new QLineEdit(this);
    m_command->setObjectName(u"workerAbCommand"_s);
    m_command->setPlaceholderText(u"python3 -m kwb_worker examples/triton_matmul/matmul.py"_s);
    m_cwd = new QLineEdit(this);
    m_cwd->setObjectName(u"workerAbCwd"_s);
    m_cwd->setPlaceholderText(tr("where the window runs"));
    m_params = new QLineEdit(this);
    m_params->setObjectName(u"workerAbParams"_s);
    m_params->setPlaceholderText(u"M=8192 N=8192 K=8192 cache=cold"_s);
    m_params->setToolTip(tr("Values both arms share, NAME=VALUE, space separated (kwb new --param)"));
    m_vary = new QLineEdit(this);
    m_vary->setObjectName(u"workerAbVary"_s);
    m_vary->setPlaceholderText(u"BLOCK_K=32,64"_s);
    m_vary->setToolTip(tr("The one parameter the arms differ in: NAME=BASELINE,TREATMENT (kwb new --vary)"));
    m_runs = new QSpinBox(this);
    m_runs->setObjectName(u"workerAbRuns"_s);
    m_runs->setRange(1, 10000);
    m_runs->setValue(kDefaultRunsPerArm);
    auto* form = new QFormLayout;
    form->addRow(tr("Worker command"), m_command);
    form->addRow(tr("Working folder"), m_cwd);
    form->addRow(tr("Shared parameters"), m_params);
    form->addRow(tr("Varied parameter"), m_vary);
    form->addRow(tr("Runs per arm"), m_runs);

    m_error = new QLabel(this);
    m_error->setObjectName(u"workerAbError"_s);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(u"color: #c62828;"_s);
    m_error->hide();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_create = buttons->addButton(tr("Create"), QDialogButtonBox::AcceptRole);
    m_create->setObjectName(u"workerAbCreate"_s);
    m_create->setToolTip(tr("kwb new describes the worker and checks the parameters; Save As follows"));
    connect(buttons, &QDialogButtonBox::accepted, this, &WorkerAbDialog::create);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_kwb, &KwbNewRun::finished, this, [this](const QString& failure) {
        m_create->setEnabled(true);
        if (!failure.isEmpty()) {
            refuse(failure);
            return;
        }
        m_study = m_kwb->study();
        emit createFinished(true);
        accept();
    });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addStretch(1);
    layout->addWidget(buttons);
    resize(640, sizeHint().height());
}

WorkerAbDialog::~WorkerAbDialog() = default; // KwbNewRun ends a describe in flight (kwb ends its worker)

bool WorkerAbDialog::isCreating() const
{
    return m_kwb->isRunning();
}

QString WorkerAbDialog::lastError() const
{
    return m_lastError;
}

void WorkerAbDialog::refuse(const QString& why)
{
    m_lastError = why;
    m_error->setText(why);
    m_error->show();
    emit createFinished(false);
}

void WorkerAbDialog::create()
{
    if (m_kwb->isRunning())
        return;
    m_error->hide();
    m_lastError.clear();
    if (m_command->text().trimmed().isEmpty()) {
        refuse(tr("Worker command: give the command that starts the worker"));
        return;
    }
    if (m_vary->text().trimmed().isEmpty()) {
        refuse(tr("Varied parameter: name the parameter the arms differ in, NAME=BASELINE,TREATMENT"));
        return;
    }
    QStringList args {u"--worker"_s, m_command->text().trimmed(), u"--vary"_s, m_vary->text().trimmed(), u"--runs"_s,
        QString::number(m_runs->value())};
    if (!m_cwd->text().trimmed().isEmpty())
        args << u"--cwd"_s << m_cwd->text().trimmed();
    for (const QString& p : QProcess::splitCommand(m_params->text()))
        args << u"--param"_s << p;
    m_create->setEnabled(false);
    m_kwb->start(RunController::defaultProgram(), args);
}

} // namespace kwb::gui
