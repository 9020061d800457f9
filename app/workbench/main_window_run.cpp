// SPDX-License-Identifier: GPL-3.0-or-later
// The window's runs: Run (pending experiments), a new attempt, and continuing a finished
// experiment (the verdict's "Add runs"), each through the one RunController child, `kwb run`.
#include "main_window.h"
#include "models/json_convert.h"
#include "models/run_controller.h"
#include "remote_actions.h"
#include "verdict/verdict_story.h"

#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
// The finished experiment's next step in words, when the engine names one (verdict_story.h).
std::optional<NextStep> nextStepOf(const Experiment* e)
{
    if (!e || !e->verdict || !e->final_verdict)
        return std::nullopt;
    return verdict_story(*e->final_verdict, *e->verdict).next;
}
} // namespace

MainWindow::FinishedRunAnswer MainWindow::askFinishedRun(const QString& experimentId, const QString& nextStep)
{
    if (m_askFinishedRun)
        return m_askFinishedRun(experimentId, nextStep);
    QMessageBox box(QMessageBox::Question, tr("Run a finished experiment"),
        tr("%1 has finished. Continue it (add runs to the same experiment, in the same order) or run a new "
           "attempt beside it?")
            .arg(experimentId),
        QMessageBox::NoButton, this);
    if (!nextStep.isEmpty())
        box.setInformativeText(tr("The verdict's next step: %1").arg(nextStep));
    auto* cont = box.addButton(tr("Continue (add runs)"), QMessageBox::AcceptRole);
    auto* attempt = box.addButton(tr("New attempt"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cont);
    box.exec();
    if (box.clickedButton() == cont)
        return FinishedRunAnswer::Continue;
    if (box.clickedButton() == attempt)
        return FinishedRunAnswer::NewAttempt;
    return FinishedRunAnswer::Cancel;
}

MainWindow::FinishedChoice MainWindow::askAboutFinished()
{
    const Experiment* e = m_document.currentExperiment();
    const auto next = nextStepOf(e);
    FinishedChoice choice;
    choice.answer = askFinishedRun(
        e ? qs(e->id) : QString(), next && next->kind != NextStepKind::None ? qs(next->text) : QString());
    if (next && next->kind == NextStepKind::AddRuns)
        choice.perArm = next->runs_per_arm; // else kwb run --continue's own target
    return choice;
}

bool MainWindow::isFinished() const
{
    return !m_document.study().experiments.empty() && !m_document.hasRunnableExperiment();
}

void MainWindow::run()
{
    if (m_run->isRunning())
        return;
    // A finished study has nothing left for kwb to run: Run then asks whether to add runs to the
    // finished experiment or to run a new attempt, rather than starting one silently.
    if (isFinished()) {
        const FinishedChoice choice = askAboutFinished();
        switch (choice.answer) {
        case FinishedRunAnswer::Continue:
            continueRuns(choice.perArm);
            return;
        case FinishedRunAnswer::NewAttempt:
            runNewAttempt();
            return;
        case FinishedRunAnswer::Cancel:
            return;
        }
    }
    startRun([this] { return m_run->start(); });
}

std::optional<QStringList> MainWindow::finishedRunOptions()
{
    const FinishedChoice choice = askAboutFinished();
    switch (choice.answer) {
    case FinishedRunAnswer::Continue:
        return RunController::continueOptions(choice.perArm);
    case FinishedRunAnswer::NewAttempt:
        return QStringList {};
    case FinishedRunAnswer::Cancel:
        break;
    }
    return std::nullopt;
}

void MainWindow::runNewAttempt()
{
    if (m_run->isRunning())
        return;
    if (const QString id = m_document.appendNewAttemptIfFinished(); !id.isEmpty())
        statusBar()->showMessage(tr("Every experiment had finished: running a new attempt, %1").arg(id), 10000);
    startRun([this] { return m_run->start(); });
}

void MainWindow::continueRuns(std::optional<int> perArm)
{
    if (m_run->isRunning())
        return;
    if (startRun([this, perArm] { return m_run->startContinue(perArm); }))
        statusBar()->showMessage(perArm ? tr("Continuing the experiment to %1 runs per arm").arg(*perArm)
                                        : tr("Continuing the experiment to the verdict's estimate"),
            10000);
}

bool MainWindow::startRun(const std::function<bool()>& start)
{
    // kwb runs a file: a study without one gets one first.
    if (m_document.filePath().isEmpty() && !saveAs())
        return false;
    if (const QString blocked = runBlockedReason(); !blocked.isEmpty()) {
        showError(tr("Run is locked: %1").arg(blocked));
        return false;
    }
    m_banner->hide();
    if (!start()) {
        showError(m_run->lastError());
        return false;
    }
    showView(u"live"_s);
    return true;
}

void MainWindow::stop()
{
    m_run->stop();
}

void MainWindow::onRunFinished(const QString& status)
{
    addRecent(m_document.filePath());
    // Asked here, not through its own connection, so its remedy joins the one failure line shown.
    const QString remoteHint = m_remote ? m_remote->onRunFinished(status) : QString();
    if (m_closeAfterRun) {
        // The child has saved what it finished and the document was reloaded: nothing is lost.
        QTimer::singleShot(0, this, &QWidget::close);
        return;
    }
    if (status == "done"_L1) {
        statusBar()->showMessage(tr("Run finished; the study was reloaded from %1").arg(m_document.filePath()), 10000);
        showView(u"results"_s);
    } else if (status == "stopped"_L1) {
        statusBar()->showMessage(tr("Run stopped; the finished repetitions were kept"), 10000);
    } else {
        showError(tr("The run failed: %1").arg(m_run->lastError()) + remoteHint);
    }
}

} // namespace kwb::gui
