// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/close_guard.h"
#include "models/live_series.h"
#include "models/study_document.h"

#include <QMainWindow>
#include <functional>
#include <optional>

class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QStackedWidget;

namespace kwb::gui {

class AbPage;
class DeviceProbe;
class LivePage;
class RemoteActions;
class ResultsPage;
class RunController;
class VerdictPage;

// The workbench window: a navigator over the eight phases plus Live and Results, one page per
// view, the File menu, Run/Stop, and a status bar with the device in use and the run's progress.
// It only wires things together; the study lives in the StudyDocument, runs in the RunController.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // View keys of the command line: "1".."8", "live", "results".
    static QStringList viewKeys();
    bool showView(const QString& key);
    QString currentView() const;

    bool openStudy(const QString& path);
    // The study named on the command line. A file that does not open leaves the window up with the
    // error banner and the recent studies to pick from (a double-click in a file manager must not
    // end in nothing); false then, so `--screenshot` can exit 2 instead.
    bool openFromCommandLine(const QString& path);
    QListWidget* recentList() const { return m_recentList; }
    // The bundled demo: a writable copy (Run can write into it), or read-only from the bundle.
    bool openDemo(bool writableCopy);

    StudyDocument* document() { return &m_document; }
    RunController* runController() const { return m_run; }
    DeviceProbe* deviceProbe() const { return m_probe; }
    LivePage* livePage() const { return m_livePage; }
    ResultsPage* resultsPage() const { return m_resultsPage; }
    VerdictPage* verdictPage() const { return m_verdictPage; }
    AbPage* abPage() const { return m_abPage; }
    RemoteActions* remoteActions() const { return m_remote; }
    // Why Run is locked (the engine's run gate), empty when it may run; also Run's tooltip.
    QString runBlockedReason() const;
    QString shownError() const;

    // Asks before leaving the study (close, New, Open). The default shows a QMessageBox; tests
    // answer offscreen by replacing it.
    using LeaveAsker = std::function<LeaveAnswer(LeaveQuestion)>;
    void setLeaveAsker(LeaveAsker asker) { m_askLeave = std::move(asker); }
    // Asks whether to restore an autosaved side file found on open (true: restore). The default
    // shows a QMessageBox; tests answer offscreen.
    using RestoreAsker = std::function<bool(const QString& sidePath)>;
    void setRestoreAsker(RestoreAsker asker) { m_askRestore = std::move(asker); }
    void offerAutosave();
    // Save over a file that changed on disk since it was loaded (another program wrote it) is
    // refused; the window offers to reload it or save the edits as another file. The default
    // shows a QMessageBox; tests answer offscreen.
    enum class DiskChangeAnswer { Reload, SaveAs, Cancel };
    using DiskChangeAsker = std::function<DiskChangeAnswer(const QString& path)>;
    void setDiskChangeAsker(DiskChangeAsker asker) { m_askDiskChange = std::move(asker); }
    // Where Save As writes (empty: cancelled). The default is a file dialog; tests answer offscreen.
    using SavePathAsker = std::function<QString(const QString& current)>;
    void setSavePathAsker(SavePathAsker asker) { m_askSavePath = std::move(asker); }
    void setOfferAutosave(bool offer) { m_offerAutosave = offer; }
    // Run on a finished experiment asks: continue it (add runs, the verdict's next step) or run a
    // new attempt. The default shows a QMessageBox; tests answer offscreen.
    enum class FinishedRunAnswer { Continue, NewAttempt, Cancel };
    using FinishedRunAsker = std::function<FinishedRunAnswer(const QString& experimentId, const QString& nextStep)>;
    void setFinishedRunAsker(FinishedRunAsker asker) { m_askFinishedRun = std::move(asker); }
    // True when the study may be replaced now: nothing to ask, saved, or discarded on request.
    bool maySwitchStudy();

public slots:
    void run(); // pending experiments; a finished one asks: continue or a new attempt
    void runNewAttempt(); // a new attempt of the finished A/B, kept beside the earlier ones
    // Continues the finished experiment to `perArm` runs per arm (kwb run --continue); without
    // it, to the verdict's estimate.
    void continueRuns(std::optional<int> perArm);
    void openSlurm(); // the Slurm dialog: submit, status, resubmit, collect
    void stop();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    LeaveAnswer askLeave(LeaveQuestion question);
    void buildPages();
    void buildActions();
    void newStudy();
    void newCommandAb(); // File > New command A/B: the dialog, then Save As
    void newWorkerAb(); // File > New worker A/B: kwb new --worker through the dialog, then Save As
    void newGitAb(); // File > New A/B from two commits: kwb new --git-* through the dialog, then Save As
    template<typename Dialog> void openKwbNewDialog(const char* menuItem);
    void open();
    bool save();
    bool saveAs();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void showError(const QString& message);
    void updateTitle();
    void updateRunState();
    void updateDevice();
    void onRunFinished(const QString& status);

    StudyDocument m_document;
    LiveSeries m_live;
    RunController* m_run;
    DeviceProbe* m_probe;
    QListWidget* m_navigator = nullptr;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_deviceLabel = nullptr;
    QLabel* m_progressLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QListWidget* m_recentList = nullptr; // shown under the banner when the command line's file failed
    QAction* m_runAction = nullptr;
    QAction* m_stopAction = nullptr;
    QLineEdit* m_devicesEdit = nullptr; // `0,1`: the run spreads cells over these devices
    QAction* m_slurmAction = nullptr;
    LivePage* m_livePage = nullptr;
    ResultsPage* m_resultsPage = nullptr;
    VerdictPage* m_verdictPage = nullptr;
    AbPage* m_abPage = nullptr;
    RestoreAsker m_askRestore;
    bool m_offerAutosave = true;
    QTimer* m_progressTimer = nullptr;
    QAction* m_newAction = nullptr;
    QAction* m_newCommandAction = nullptr;
    QAction* m_newWorkerAction = nullptr;
    QAction* m_newGitAction = nullptr;
    QAction* m_openAction = nullptr;
    LeaveAsker m_askLeave;
    RemoteActions* m_remote = nullptr; // Run on host, Reattach (docs/remote.md)
    DiskChangeAsker m_askDiskChange;
    SavePathAsker m_askSavePath;
    void showReadOnly(const QString& reason);
    bool startRun(const std::function<bool()>& start);
    FinishedRunAnswer askFinishedRun(const QString& experimentId, const QString& nextStep);
    struct FinishedChoice {
        FinishedRunAnswer answer = FinishedRunAnswer::Cancel;
        std::optional<int> perArm; // Continue: the verdict's estimate; null: kwb's own target
    };
    bool isFinished() const; // every experiment has run: Run asks what to do
    FinishedChoice askAboutFinished();
    // The same question for Run on host: kwb run's options that continue (empty: a new attempt).
    std::optional<QStringList> finishedRunOptions();
    FinishedRunAsker m_askFinishedRun;
    bool m_closeAfterRun = false; // the user chose to stop the run and close: close when it ends
};

} // namespace kwb::gui
