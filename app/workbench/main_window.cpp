// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.h"

#include "history_action.h"
#include "models/device_probe.h"
#include "models/json_convert.h"
#include "models/run_controller.h"
#include "pages/ab_page.h"
#include "pages/binding_page.h"
#include "pages/command_ab_dialog.h"
#include "pages/formula_page.h"
#include "pages/grid_page.h"
#include "pages/hardware_page.h"
#include "pages/history_dialog.h"
#include "pages/live_page.h"
#include "pages/results_page.h"
#include "pages/slurm_dialog.h"
#include "pages/target_page.h"
#include "pages/tradeoff_page.h"
#include "pages/verdict_page.h"
#include "pages/verdict_story_view.h"
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

namespace kwb::gui {

using namespace Qt::StringLiterals;

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_run(new RunController(&m_document, &m_live, this))
    , m_probe(new DeviceProbe(this))
{
    setObjectName(u"mainWindow"_s);
    buildPages();
    buildActions();

    m_deviceLabel = new QLabel(this);
    m_deviceLabel->setObjectName(u"deviceLabel"_s);
    m_progressLabel = new QLabel(this);
    m_progressLabel->setObjectName(u"progressLabel"_s);
    statusBar()->addPermanentWidget(m_progressLabel);
    statusBar()->addPermanentWidget(m_deviceLabel);
    // Elapsed and ETA tick between progress lines; 4 Hz is plenty for seconds.
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(250);
    connect(m_progressTimer, &QTimer::timeout, this, &MainWindow::updateRunState);

    connect(&m_document, &StudyDocument::changed, this, &MainWindow::updateTitle);
    connect(&m_document, &StudyDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(&m_document, &StudyDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(&m_document, &StudyDocument::readOnlyChanged, this, &MainWindow::showReadOnly);
    connect(m_run, &RunController::stateChanged, this, &MainWindow::updateRunState);
    connect(m_run, &RunController::progressChanged, this, &MainWindow::updateRunState);
    connect(m_run, &RunController::errorReported, this, &MainWindow::showError);
    connect(m_run, &RunController::finished, this, &MainWindow::onRunFinished);
    connect(&m_document, &StudyDocument::changed, this, &MainWindow::updateRunState);
    connect(m_probe, &DeviceProbe::finished, this, &MainWindow::updateDevice);
    m_probe->start(RunController::defaultProgram());
    updateDevice();
    updateRunState();
    resize(1280, 800);
}

MainWindow::~MainWindow() = default;

QStringList MainWindow::viewKeys()
{
    return {u"1"_s, u"2"_s, u"3"_s, u"4"_s, u"5"_s, u"6"_s, u"7"_s, u"8"_s, u"live"_s, u"results"_s};
}

void MainWindow::buildPages()
{
    m_navigator = new QListWidget(this);
    m_navigator->setObjectName(u"phaseNavigator"_s);
    m_navigator->setFixedWidth(190);
    m_navigator->setSpacing(3);
    QFont navFont = m_navigator->font();
    navFont.setPointSizeF(navFont.pointSizeF() * 1.1);
    m_navigator->setFont(navFont);
    m_stack = new QStackedWidget(this);
    m_stack->setObjectName(u"pageStack"_s);
    m_livePage = new LivePage(&m_document, &m_live, m_run, this);
    m_resultsPage = new ResultsPage(&m_document, this);
    m_verdictPage = new VerdictPage(&m_document, this);
    m_abPage = new AbPage(&m_document, m_run, m_probe, this);
    connect(m_abPage, &AbPage::runRequested, this, &MainWindow::run);
    connect(m_abPage, &AbPage::stopRequested, this, &MainWindow::stop);
    connect(m_abPage, &AbPage::newCommandAbRequested, this, &MainWindow::newCommandAb);
    connect(m_abPage, &AbPage::newGitAbRequested, this, &MainWindow::newGitAb);
    connect(m_verdictPage, &VerdictPage::newAttemptRequested, this, &MainWindow::runNewAttempt);
    // The verdict's next step (verdict/verdict_story.h), offered on Results and on phase 8 alike.
    for (VerdictStoryView* story : {m_resultsPage->story(), m_verdictPage->story()}) {
        connect(story, &VerdictStoryView::addRunsRequested, this, [this](int perArm) { continueRuns(perArm); });
        connect(
            story, &VerdictStoryView::phaseRequested, this, [this](int phase) { showView(QString::number(phase)); });
        connect(story, &VerdictStoryView::newAttemptRequested, this, &MainWindow::runNewAttempt);
    }
    const QList<QPair<QString, PhasePage*>> pages = {
        {tr("1  Target"), new TargetPage(&m_document, this)},
        {tr("2  Hardware"), new HardwarePage(&m_document, m_probe, this)},
        {tr("3  Binding constraint"), new BindingPage(&m_document, this)},
        {tr("4  Formula"), new FormulaPage(&m_document, this)},
        {tr("5  A/B"), m_abPage},
        {tr("6  Grid"), new GridPage(&m_document, this)},
        {tr("7  Tradeoffs"), new TradeoffPage(&m_document, this)},
        {tr("8  Verdict"), m_verdictPage},
        {tr("▶  Live"), m_livePage},
        {tr("▦  Results"), m_resultsPage},
    };
    for (const auto& [label, page] : pages) {
        m_navigator->addItem(label);
        // The phase pages scroll when the window is small (1024x640) rather than squeezing their
        // fields over each other; Live and Results fill the window with their plots.
        if (page == m_livePage || page == m_resultsPage) {
            m_stack->addWidget(page);
        } else {
            auto* scroll = new QScrollArea(this);
            scroll->setWidgetResizable(true);
            scroll->setFrameShape(QFrame::NoFrame);
            scroll->setWidget(page);
            m_stack->addWidget(scroll);
        }
        page->refresh();
    }
    connect(m_navigator, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    m_navigator->setCurrentRow(0);

    m_banner = new QLabel(this);
    m_banner->setObjectName(u"messageBanner"_s);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(
        u"QLabel { background: #fdecea; color: #8a1c14; border: 1px solid #e0a39d; padding: 6px; }"_s);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->hide();

    auto* right = new QWidget(this);
    auto* layout = new QVBoxLayout(right);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_banner);
    m_recentList = new QListWidget(this);
    m_recentList->setObjectName(u"recentStudies"_s);
    m_recentList->setToolTip(tr("Recent studies: double-click or press Enter to open one"));
    m_recentList->setMaximumHeight(160);
    m_recentList->hide();
    connect(m_recentList, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (maySwitchStudy())
            openStudy(item->data(Qt::UserRole).toString());
    });
    layout->addWidget(m_recentList);
    layout->addWidget(m_stack, 1);
    auto* central = new QWidget(this);
    auto* row = new QHBoxLayout(central);
    row->addWidget(m_navigator);
    row->addWidget(right, 1);
    setCentralWidget(central);
}

void MainWindow::buildActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    m_newAction = file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newStudy);
    m_newAction->setObjectName(u"newAction"_s);
    m_newCommandAction = file->addAction(tr("New &command A/B…"), this, &MainWindow::newCommandAb);
    m_newCommandAction->setObjectName(u"newCommandAbAction"_s);
    m_newWorkerAction = file->addAction(tr("New &worker A/B…"), this, &MainWindow::newWorkerAb);
    m_newWorkerAction->setObjectName(u"newWorkerAbAction"_s);
    m_newGitAction = file->addAction(tr("New A/B from two &commits…"), this, &MainWindow::newGitAb);
    m_newGitAction->setObjectName(u"newGitAbAction"_s);
    m_newGitAction->setToolTip(tr("A new study whose arms are two commits of your repository, each built in its own "
                                  "worktree, as kwb new --git-baseline … --git-treatment … writes it"));
    m_newCommandAction->setToolTip(tr("A new study whose arms are two command lines (your own benchmark), read "
                                      "through an adapter, as kwb new --baseline-cmd … --treatment-cmd … writes it"));
    m_openAction = file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { save(); })->setObjectName(u"saveAction"_s);
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] { saveAs(); })
        ->setObjectName(u"saveAsAction"_s);
    file->addSeparator();
    addReportActions(file, this, &m_document);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    rebuildRecentMenu();

    // Every edit of every page goes through the document's undo stack.
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document.undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(u"undoAction"_s);
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_document.undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(u"redoAction"_s);
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    // Ctrl+1..8: the eight phases, in the order of the navigator.
    QMenu* go = menuBar()->addMenu(tr("&Go"));
    for (int phase = 1; phase <= 8; ++phase) {
        QAction* a = go->addAction(m_navigator->item(phase - 1)->text().simplified(), this,
            [this, phase] { showView(QString::number(phase)); });
        a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_0 + phase)));
        a->setObjectName(u"goPhase%1"_s.arg(phase));
    }

    // The ledger's history of this study's benchmark (docs/ledger.md).
    go->addSeparator();
    go->addAction(tr("Benchmark &history…"), this, [this] {
          QString why;
          if (auto* dialog = makeHistoryDialog(*this, {}, {}, &why)) {
              dialog->setAttribute(Qt::WA_DeleteOnClose);
              dialog->show();
          } else
              showError(tr("No history: %1").arg(why));
      })->setObjectName(u"historyAction"_s);

    QToolBar* bar = addToolBar(tr("Run"));
    bar->setObjectName(u"runToolBar"_s);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_runAction = bar->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run"), this, &MainWindow::run);
    m_runAction->setObjectName(u"runAction"_s);
    m_runAction->setShortcut(Qt::CTRL | Qt::Key_R);
    m_runAction->setToolTip(tr("Save the study and run its pending experiments with kwb (Ctrl+R)"));
    m_stopAction = bar->addAction(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"), this, &MainWindow::stop);
    m_stopAction->setObjectName(u"stopAction"_s);
    m_stopAction->setShortcut(Qt::Key_Escape);
    m_stopAction->setToolTip(tr("Stop after the current repetition; finished repetitions are kept (Esc)"));
    m_devicesEdit = new QLineEdit(bar);
    m_devicesEdit->setObjectName(u"devicesEdit"_s);
    m_devicesEdit->setPlaceholderText(tr("devices, e.g. 0,1"));
    m_devicesEdit->setMaximumWidth(140);
    m_devicesEdit->setToolTip(tr("Run the grid's cells in parallel, one cell per listed device "
                                 "(kwb run --devices), here or on a host; empty: one device"));
    // Run and Run on host both read it, so the run controller follows every edit.
    connect(m_devicesEdit, &QLineEdit::textChanged, m_run, &RunController::setDevices);
    bar->addWidget(m_devicesEdit);
    m_remote = new RemoteActions(this, &m_document, m_run, m_probe,
        {[this] { return runBlockedReason(); }, [this](const QString& m) { showError(m); },
            [this] { showView(u"live"_s); }, [this] { return finishedRunOptions(); }});
    bar->addWidget(m_remote->runOnHostButton());
    bar->addAction(m_remote->reattachAction());
    m_slurmAction = bar->addAction(tr("Slurm…"), this, &MainWindow::openSlurm);
    m_slurmAction->setObjectName(u"slurmAction"_s);
    m_slurmAction->setToolTip(tr("Submit the study's cells as a Slurm job array, follow them, collect them"));
}

void MainWindow::openSlurm()
{
    if (m_document.filePath().isEmpty() && !saveAs())
        return;
    auto* dialog = findChild<SlurmDialog*>();
    if (!dialog)
        dialog = new SlurmDialog(&m_document, m_run->program(), this);
    dialog->show();
    dialog->raise();
    dialog->refresh();
}

bool MainWindow::showView(const QString& key)
{
    const auto row = viewKeys().indexOf(key.toLower());
    if (row < 0)
        return false;
    m_navigator->setCurrentRow(static_cast<int>(row));
    return true;
}

QString MainWindow::currentView() const
{
    return viewKeys().value(m_navigator->currentRow());
}

QString MainWindow::runBlockedReason() const
{
    // A study whose run is away on a host is that run's: kwb would refuse it, so Run says why first.
    if (m_remote)
        if (const QString away = m_remote->awayReason(); !away.isEmpty())
            return away;
    return m_abPage->runBlockedReason();
}

QString MainWindow::shownError() const
{
    return m_banner->isHidden() ? QString() : m_banner->text();
}

void MainWindow::showError(const QString& message)
{
    m_banner->setText(message);
    m_banner->show();
    statusBar()->showMessage(message, 15000);
}

void MainWindow::showReadOnly(const QString& reason)
{
    // A study another process is running is shown, never saved over (one writer per study).
    if (!reason.isEmpty())
        showError(tr("Read-only: %1").arg(reason));
    else if (shownError().startsWith(tr("Read-only: ")))
        m_banner->hide();
    updateTitle();
}

void MainWindow::updateTitle()
{
    QString file = m_document.filePath().isEmpty() ? tr("not saved") : m_document.filePath();
    if (m_document.isReadOnly())
        file += tr(" (read-only)");
    setWindowTitle(tr("%1 — %2[*] — Kernel Workbench").arg(qs(m_document.study().name), file));
    setWindowModified(m_document.isModified());
}

void MainWindow::updateRunState()
{
    const bool running = m_run->isRunning();
    const QString blocked = running ? QString() : runBlockedReason();
    m_runAction->setEnabled(!running && blocked.isEmpty());
    m_runAction->setToolTip(blocked.isEmpty() ? tr("Save the study and run its pending experiments with kwb (Ctrl+R)")
                                              : tr("Locked: %1").arg(blocked));
    // The child owns the study file while it runs; another study can be opened once it stops.
    m_newAction->setEnabled(!running);
    m_newCommandAction->setEnabled(!running);
    m_newWorkerAction->setEnabled(!running);
    m_newGitAction->setEnabled(!running);
    m_devicesEdit->setEnabled(!running);
    m_slurmAction->setEnabled(!running);
    m_openAction->setEnabled(!running);
    m_recentMenu->setEnabled(!running && !m_recentMenu->isEmpty());
    m_stopAction->setEnabled(running && m_run->state() == RunController::State::Running);
    m_progressLabel->setText(m_run->progressText());
    if (running && !m_progressTimer->isActive())
        m_progressTimer->start();
    else if (!running)
        m_progressTimer->stop();
}

void MainWindow::updateDevice()
{
    m_deviceLabel->setText(tr("Device: %1").arg(m_probe->deviceInUse()));
    const QString reason = m_probe->gpuUnavailableReason();
    m_deviceLabel->setToolTip(reason.isEmpty() ? tr("GPUs were queried by kwb devices") : reason);
}

} // namespace kwb::gui
