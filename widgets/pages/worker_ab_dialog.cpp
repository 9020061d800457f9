// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/worker_ab_dialog.h"

#include "study/plan_limits.h"

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
    : KwbNewDialog(u"workerAb"_s, parent)
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

    finishLayout(intro, form, tr("kwb new describes the worker and checks the parameters; Save As follows"), 640);
}

WorkerAbDialog::~WorkerAbDialog() = default;

void WorkerAbDialog::create()
{
    if (isCreating())
        return;
    clearError();
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
    startKwbNew(args);
}

} // namespace kwb::gui
