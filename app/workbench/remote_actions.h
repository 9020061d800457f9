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
class RunController;
class StudyDocument;

// The window's remote-host actions (docs/remote.md): Run on host (a menu of the hosts in the
// settings, and Remote hosts… to edit them), Reattach, and reattaching by itself when a study
// whose run is away on a host is opened. Running on a host also asks it for its devices, so the
// Hardware page and the status bar show the remote GPU. It only wires; kwb does the work.
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

private:
    void rebuildMenu();
    void editHosts();
    void update();
    void reattachIfAway();

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
    bool m_lockedForRemote = false; // the document is locked because its run is away on a host
};

} // namespace kwb::gui
