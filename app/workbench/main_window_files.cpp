// SPDX-License-Identifier: GPL-3.0-or-later
// The window's file lifecycle: new, open, the demo, autosave recovery, save, save as, the recent
// files, and what leaving a study with unsaved edits or a run in progress asks.
#include "main_window.h"
#include "models/device_probe.h"
#include "models/json_convert.h"
#include "models/run_controller.h"
#include "pages/ab_page.h"
#include "pages/binding_page.h"
#include "pages/command_ab_dialog.h"
#include "pages/formula_page.h"
#include "pages/git_ab_dialog.h"
#include "pages/grid_page.h"
#include "pages/hardware_page.h"
#include "pages/live_page.h"
#include "pages/results_page.h"
#include "pages/slurm_dialog.h"
#include "pages/target_page.h"
#include "pages/tradeoff_page.h"
#include "pages/verdict_page.h"
#include "pages/worker_ab_dialog.h"
#include "remote_actions.h"
#include "report_export.h"

#include <QCloseEvent>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <fmt/format.h>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
constexpr int kMaxRecent = 8;
const QString kRecentKey = u"recentFiles"_s;
} // namespace

bool MainWindow::openStudy(const QString& path)
{
    if (!m_document.load(path)) {
        showError(m_document.lastError());
        return false;
    }
    m_banner->hide();
    m_recentList->hide();
    if (m_document.isReadOnly())
        showReadOnly(m_document.readOnlyReason());
    addRecent(m_document.filePath());
    offerAutosave();
    return true;
}

bool MainWindow::openFromCommandLine(const QString& path)
{
    if (openStudy(path))
        return true;
    showError(tr("Cannot open %1: %2").arg(path, m_document.lastError()));
    m_recentList->clear();
    for (const QString& recent : QSettings().value(kRecentKey).toStringList()) {
        auto* item = new QListWidgetItem(tr("%1 — %2").arg(QFileInfo(recent).fileName(), recent), m_recentList);
        item->setData(Qt::UserRole, recent);
        item->setToolTip(recent);
    }
    if (m_recentList->count() == 0)
        m_recentList->addItem(tr("No recent studies: File > Open, or File > New"));
    m_recentList->show();
    return false;
}

void MainWindow::offerAutosave()
{
    if (!m_offerAutosave || !m_document.hasAutosave())
        return;
    const QString side = m_document.autosavePath();
    const bool restore = m_askRestore ? m_askRestore(side)
                                      : QMessageBox::question(this, tr("Restore unsaved edits?"),
                                            tr("Edits of this study were autosaved to %1 but never "
                                               "saved (the workbench closed without saving). "
                                               "Restore them?")
                                                .arg(side),
                                            QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes)
            == QMessageBox::Yes;
    if (!restore) {
        m_document.discardAutosave();
        return;
    }
    if (!m_document.restoreAutosave())
        showError(m_document.lastError());
    else
        statusBar()->showMessage(tr("Restored the autosaved edits from %1; save to keep them").arg(side), 15000);
}

bool MainWindow::openDemo(bool writableCopy)
{
    QString error;
    if (writableCopy) {
        const QString copy = StudyDocument::ensureDemoCopy(&error);
        if (!copy.isEmpty() && m_document.load(copy))
            return true;
        if (error.isEmpty())
            error = m_document.lastError();
    }
    QFile bundled(StudyDocument::demoResourcePath());
    if (!bundled.open(QIODevice::ReadOnly) || !m_document.loadFromText(bundled.readAll(), bundled.fileName())) {
        showError(m_document.lastError().isEmpty() ? tr("the bundled demo study is missing") : m_document.lastError());
        return false;
    }
    if (!error.isEmpty())
        showError(tr("The demo is open read-only: %1").arg(error));
    return true;
}

void MainWindow::newStudy()
{
    if (!maySwitchStudy())
        return;
    m_document.newStudy();
    offerAutosave();
    showView(u"1"_s);
}

void MainWindow::newCommandAb()
{
    if (m_run->isRunning() || findChild<CommandAbDialog*>())
        return;
    if (!maySwitchStudy())
        return;
    auto* dialog = new CommandAbDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        // The engine made the study (command::new_command_study); like kwb new, it records this
        // machine's devices, as kwb devices reported them to the window, and is written to a file.
        Study s = dialog->study();
        s.description += " Written by the workbench (File > New command A/B).";
        if (m_probe->isFinished()) {
            s.hardware.devices = nlohmann::json::parse(QJsonDocument(m_probe->devices()).toJson().toStdString());
            s.hardware.device_in_use = m_probe->deviceInUse().toStdString();
            s.hardware.captured_at = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
        }
        m_banner->hide();
        m_document.newStudy(std::move(s));
        showView(u"5"_s);
        saveAs();
    });
    dialog->open();
}

// The dialogs whose study kwb new writes as a child (the worker described, the commits resolved,
// this machine's devices recorded): accepted, it becomes the open study, then Save As.
template<typename Dialog> void MainWindow::openKwbNewDialog(const char* menuItem)
{
    if (m_run->isRunning() || findChild<Dialog*>())
        return;
    if (!maySwitchStudy())
        return;
    auto* dialog = new Dialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, menuItem] {
        Study s = dialog->study();
        s.description += fmt::format(" Written by the workbench (File > {}).", menuItem);
        m_banner->hide();
        m_document.newStudy(std::move(s));
        showView(u"5"_s);
        saveAs();
    });
    dialog->open();
}

void MainWindow::newWorkerAb()
{
    openKwbNewDialog<WorkerAbDialog>("New worker A/B");
}

void MainWindow::newGitAb()
{
    openKwbNewDialog<GitAbDialog>("New A/B from two commits");
}

void MainWindow::open()
{
    if (!maySwitchStudy())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open study"), QString(), tr("Studies (*.json)"));
    if (!path.isEmpty())
        openStudy(path);
}

LeaveAnswer MainWindow::askLeave(LeaveQuestion question)
{
    if (m_askLeave)
        return m_askLeave(question);
    const QString title = leaveQuestionTitle(question);
    const QString text = leaveQuestionText(question, qs(m_document.study().name));
    if (question == LeaveQuestion::StopRun) {
        const auto b
            = QMessageBox::question(this, title, text, QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
        return b == QMessageBox::Yes ? LeaveAnswer::Accept : LeaveAnswer::Cancel;
    }
    const auto b = QMessageBox::warning(
        this, title, text, QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    return b == QMessageBox::Save   ? LeaveAnswer::Accept
        : b == QMessageBox::Discard ? LeaveAnswer::Discard
                                    : LeaveAnswer::Cancel;
}

bool MainWindow::maySwitchStudy()
{
    // New and Open cannot wait for a run to wind down the way closing can; stop it first.
    if (m_run->isRunning()) {
        statusBar()->showMessage(tr("A run is in progress: stop it before opening another study"), 10000);
        return false;
    }
    const LeaveQuestion question = leaveQuestion(false, m_document.isModified());
    const LeaveStep step = question == LeaveQuestion::None ? LeaveStep::Leave : leaveStep(question, askLeave(question));
    if (step == LeaveStep::SaveThenLeave)
        return save();
    return step == LeaveStep::Leave;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_closeAfterRun && m_run->isRunning()) {
        event->ignore(); // already stopping; the window closes when the child has saved
        return;
    }
    if (m_run->isRunning() && !m_run->remoteHost().isEmpty()) {
        // A run on a host goes on without the window: let go of it; opening the study reattaches.
        m_closeAfterRun = true;
        m_run->detach();
        event->ignore();
        return;
    }
    const LeaveQuestion question = leaveQuestion(m_run->isRunning(), m_document.isModified());
    const LeaveStep step = question == LeaveQuestion::None ? LeaveStep::Leave : leaveStep(question, askLeave(question));
    switch (step) {
    case LeaveStep::Leave:
        // Leaving on purpose (saved, or edits discarded): the side file would only haunt the next open.
        m_document.discardAutosave();
        event->accept();
        return;
    case LeaveStep::SaveThenLeave:
        if (save())
            event->accept();
        else
            event->ignore();
        return;
    case LeaveStep::StopThenLeave:
        m_closeAfterRun = true;
        m_run->stop();
        statusBar()->showMessage(tr("Stopping: the window closes once kwb has saved the finished repetitions"));
        event->ignore();
        return;
    case LeaveStep::Stay:
        event->ignore();
        return;
    }
}

bool MainWindow::save()
{
    if (m_document.filePath().isEmpty())
        return saveAs();
    if (m_document.changedOnDisk()) {
        // Saving would overwrite what another program wrote: reload it, or keep the edits elsewhere.
        const QString path = m_document.filePath();
        DiskChangeAnswer answer = DiskChangeAnswer::Cancel;
        if (m_askDiskChange) {
            answer = m_askDiskChange(path);
        } else {
            QMessageBox box(QMessageBox::Warning, tr("The study changed on disk"),
                tr("%1 changed on disk since it was opened (another program wrote it). Saving would "
                   "overwrite those changes.")
                    .arg(path),
                QMessageBox::Cancel, this);
            QPushButton* reload = box.addButton(tr("Reload (discard my edits)"), QMessageBox::DestructiveRole);
            QPushButton* saveElsewhere = box.addButton(tr("Save As…"), QMessageBox::AcceptRole);
            box.setDefaultButton(saveElsewhere);
            box.exec();
            answer = box.clickedButton() == reload     ? DiskChangeAnswer::Reload
                : box.clickedButton() == saveElsewhere ? DiskChangeAnswer::SaveAs
                                                       : DiskChangeAnswer::Cancel;
        }
        if (answer == DiskChangeAnswer::SaveAs)
            return saveAs();
        if (answer == DiskChangeAnswer::Reload) {
            if (!m_document.reload()) {
                showError(m_document.lastError());
                return false;
            }
            statusBar()->showMessage(tr("Reloaded %1 from disk").arg(path), 10000);
        }
        return false;
    }
    if (!m_document.save()) {
        showError(m_document.lastError());
        return false;
    }
    return true;
}

bool MainWindow::saveAs()
{
    const QString path = m_askSavePath
        ? m_askSavePath(m_document.filePath())
        : QFileDialog::getSaveFileName(this, tr("Save study as"), m_document.filePath(), tr("Studies (*.json)"));
    if (path.isEmpty())
        return false;
    if (!m_document.saveAs(path)) {
        showError(m_document.lastError());
        return false;
    }
    addRecent(path);
    return true;
}

void MainWindow::addRecent(const QString& path)
{
    if (path.isEmpty())
        return;
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    settings.setValue(kRecentKey, recent.mid(0, kMaxRecent));
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent)
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                [this, path] {
                    if (maySwitchStudy())
                        openStudy(path);
                })
            ->setToolTip(path);
    m_recentMenu->setEnabled(!recent.isEmpty());
}

} // namespace kwb::gui
