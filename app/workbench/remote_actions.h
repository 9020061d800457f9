// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/remote_hosts.h"

#include <QObject>
#include <QPointer>
#include <functional>
#include <optional>

class QAction;
class QMenu;
class QToolButton;
class QWidget;

namespace kwb::gui {

class DeviceProbe;
class KwbInstallRun;
class RunController;
class StudyDocument;

// The window's remote-host actions (docs/remote.md): Run on host (a menu of the hosts in the
// settings, and Remote hosts… to edit them), Reattach, and reattaching by itself when a study
// whose run is away on a host is opened. Running on a host also asks it for its devices, so the
// Hardware page and the status bar show the remote GPU. A run that kwb refused because the host's
// kwb is missing or another version (the stream's remedy) puts "Install kwb on HOST, then run there"
// at the top of the menu: `kwb remote install HOST`, the host's remote kwb set to what it installed,
// and the run started again. It only wires; kwb does the work.
class RemoteActions : public QObject {
    Q_OBJECT
public:
    struct Hooks {
        std::function<QString()> blockedReason; // Run's gate (empty: may run)
        std::function<void(const QString&)> showError;
        std::function<void()> showLive;
        // A finished study: the options that continue it (`--continue ...`), empty for a new attempt,
        // nullopt when the question was cancelled (MainWindow asks it as Run does).
        std::function<std::optional<QStringList>()> finishedRunOptions;
    };
    RemoteActions(QWidget* window, StudyDocument* document, RunController* run, DeviceProbe* probe, Hooks hooks);

    QToolButton* runOnHostButton() const { return m_button; }
    QAction* reattachAction() const { return m_reattach; }
    QAction* hostsAction() const { return m_hosts; }

    // Runs the open study on `host` (what choosing it in the menu does).
    bool runOn(const RemoteHost& host);
    // The study on disk is owned by a run on a host (its record beside it): that host, else empty.
    QString awayOn() const;
    // Why the open study cannot run here while a host's run owns it (the engine's sentence), else
    // empty: Run and Run on host are locked with it.
    QString awayReason() const;
    // The host the last refused run offers to install kwb on, else empty; its menu action.
    QString installOffer() const { return m_installOffer; }
    QAction* installAction() const { return m_install; }
    bool installing() const;
    // The window calls this when a run ends; a run refused for the host's kwb makes the install the
    // menu's first action and returns the hint that joins the failure line (empty otherwise).
    QString onRunFinished(const QString& status);

private:
    void rebuildMenu();
    void editHosts();
    void update();
    void reattachIfAway();
    void installThenRun();

    QWidget* m_window;
    StudyDocument* m_document;
    RunController* m_run;
    DeviceProbe* m_probe;
    Hooks m_hooks;
    QToolButton* m_button;
    QMenu* m_menu;
    QPointer<QMenu> m_hardware;
    QAction* m_reattach;
    QAction* m_hosts;
    QAction* m_install;
    KwbInstallRun* m_installRun;
    RemoteHost m_lastHost; // the host of the last Run on host
    QString m_installOffer;
    bool m_lockedForRemote = false; // the document is locked because its run is away on a host
};

} // namespace kwb::gui
