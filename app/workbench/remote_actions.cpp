// SPDX-License-Identifier: GPL-3.0-or-later
#include "remote_actions.h"

#include "models/device_probe.h"
#include "models/kwb_install_run.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "pages/remote_hosts_dialog.h"
#include "study/remote_marker.h"

#include <QAction>
#include <QMenu>
#include <QSettings>
#include <QToolButton>

namespace kwb::gui {

using namespace Qt::StringLiterals;

RemoteActions::RemoteActions(
    QWidget* window, StudyDocument* document, RunController* run, DeviceProbe* probe, Hooks hooks)
    : QObject(window)
    , m_window(window)
    , m_document(document)
    , m_run(run)
    , m_probe(probe)
    , m_hooks(std::move(hooks))
    , m_button(new QToolButton(window))
    , m_menu(new QMenu(window))
    , m_reattach(new QAction(tr("Reattach"), this))
    , m_hosts(new QAction(tr("Remote hosts…"), this))
    , m_install(new QAction(this))
    , m_installRun(new KwbInstallRun(run->program(), this))
{
    m_button->setObjectName(u"runOnHostButton"_s);
    m_button->setText(tr("Run on host"));
    m_button->setToolTip(tr("Run the study on a remote host over ssh; the live views follow it here"));
    m_button->setPopupMode(QToolButton::InstantPopup);
    m_button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_button->setMenu(m_menu);
    m_menu->setToolTipsVisible(true);
    connect(m_menu, &QMenu::aboutToShow, this, &RemoteActions::rebuildMenu);
    m_reattach->setObjectName(u"reattachAction"_s);
    m_reattach->setToolTip(tr("Follow the run on a remote host again (after a dropped connection), or fetch the "
                              "study once it has ended"));
    m_hosts->setObjectName(u"remoteHostsAction"_s);
    connect(m_hosts, &QAction::triggered, this, &RemoteActions::editHosts);
    m_install->setObjectName(u"installKwbOnHostAction"_s);
    m_install->setToolTip(tr("kwb remote install: copies this kwb, its GPU plugin and the libraries they need to "
                             "the host, checks that it runs, and runs the study there with it"));
    connect(m_install, &QAction::triggered, this, &RemoteActions::installThenRun);
    connect(m_installRun, &KwbInstallRun::finished, this, [this](const KwbInstallRun::Outcome& o) {
        const QString destination = m_installRun->destination();
        m_button->setText(tr("Run on host"));
        update();
        if (!o.ok) {
            m_hooks.showError(tr("Not installed on %1: %2").arg(destination, o.error));
            return;
        }
        // The installed program is the host's from now on, in the settings as kwb's own record.
        QSettings settings;
        auto hosts = loadRemoteHosts(settings);
        for (auto& h : hosts)
            if (h.destination == destination)
                h.remoteKwb = o.installed;
        saveRemoteHosts(settings, hosts);
        m_installOffer.clear();
        rebuildMenu();
        if (m_lastHost.destination == destination) {
            m_lastHost.remoteKwb = o.installed;
            runOn(m_lastHost);
        }
    });
    connect(m_reattach, &QAction::triggered, this, [this] {
        if (!m_run->reattach())
            m_hooks.showError(m_run->lastError());
        else
            m_hooks.showLive();
    });
    connect(m_run, &RunController::stateChanged, this, &RemoteActions::update);
    connect(m_document, &StudyDocument::filePathChanged, this, &RemoteActions::reattachIfAway);
    rebuildMenu();
    update();
}

QString RemoteActions::awayOn() const
{
    if (m_document->filePath().isEmpty())
        return {};
    try {
        if (const auto record = read_remote_marker(m_document->filePath().toStdString()))
            return QString::fromStdString(record->host);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString RemoteActions::awayReason() const
{
    if (m_document->filePath().isEmpty())
        return {};
    const std::string why = remote_run_refusal(m_document->filePath().toStdString());
    return why.empty() ? QString() : tr("the study %1").arg(QString::fromStdString(why));
}

bool RemoteActions::runOn(const RemoteHost& host)
{
    if (m_run->isRunning())
        return false;
    if (m_document->filePath().isEmpty()) {
        m_hooks.showError(tr("Save the study to a file first: kwb sends a study file to the host"));
        return false;
    }
    // A finished study asks, as Run does here: continue it there, or run a new attempt there.
    QStringList extra;
    if (!m_document->study().experiments.empty() && !m_document->hasRunnableExperiment()) {
        const std::optional<QStringList> options
            = m_hooks.finishedRunOptions ? m_hooks.finishedRunOptions() : std::optional<QStringList>(QStringList {});
        if (!options)
            return false;
        extra = *options;
        if (extra.isEmpty())
            m_document->appendNewAttemptIfFinished();
    }
    if (const QString blocked = m_hooks.blockedReason(); !blocked.isEmpty()) {
        m_hooks.showError(tr("Run is locked: %1").arg(blocked));
        return false;
    }
    m_lastHost = host;
    m_installOffer.clear();
    // The hardware page shows the GPU the study is about to run on.
    m_probe->startOnHost(m_run->program(), host);
    if (!m_run->startOnHost(host, extra)) {
        m_hooks.showError(m_run->lastError());
        return false;
    }
    m_hooks.showLive();
    return true;
}

void RemoteActions::rebuildMenu()
{
    m_menu->clear();
    delete m_hardware; // the submenu is rebuilt with the list
    QSettings settings;
    const auto hosts = loadRemoteHosts(settings);
    // Run's own gate holds for a host too: the hosts are offered only when Run is.
    const QString blocked = m_hooks.blockedReason ? m_hooks.blockedReason() : QString();
    if (!m_installOffer.isEmpty()) {
        m_install->setText(tr("Install kwb on %1, then run there").arg(m_installOffer));
        m_install->setEnabled(blocked.isEmpty() && !installing());
        m_menu->addAction(m_install);
        m_menu->addSeparator();
    }
    for (const auto& host : hosts) {
        QAction* a = m_menu->addAction(tr("Run on %1").arg(host.destination), this, [this, host] { runOn(host); });
        a->setEnabled(blocked.isEmpty());
        a->setToolTip(blocked.isEmpty() ? tr("kwb run STUDY --json-progress %1").arg(host.kwbArguments().join(u' '))
                                        : tr("Locked: %1").arg(blocked));
    }
    if (hosts.isEmpty())
        m_menu->addAction(tr("(no hosts yet)"))->setEnabled(false);
    m_menu->addSeparator();
    m_hardware = m_menu->addMenu(tr("Show the hardware of"));
    QMenu* hardware = m_hardware;
    hardware->addAction(tr("this machine"), this, [this] { m_probe->start(m_run->program()); });
    for (const auto& host : hosts)
        hardware->addAction(host.destination, this, [this, host] { m_probe->startOnHost(m_run->program(), host); });
    m_menu->addAction(m_hosts);
}

void RemoteActions::editHosts()
{
    QSettings settings;
    RemoteHostsDialog dialog(loadRemoteHosts(settings), m_window, m_run->program());
    if (dialog.exec() != QDialog::Accepted)
        return;
    saveRemoteHosts(settings, dialog.hosts());
    rebuildMenu();
}

void RemoteActions::update()
{
    const bool idle = !m_run->isRunning();
    m_button->setEnabled(idle && !installing());
    const QString host = awayOn();
    // The study on disk is the remote run's until it comes back (also when following it failed):
    // nothing is saved into it here meanwhile, so the copy that comes back loses nothing.
    if (idle && (!host.isEmpty() || m_lockedForRemote)) {
        m_lockedForRemote = !host.isEmpty();
        m_document->setLocked(m_lockedForRemote);
    }
    m_reattach->setEnabled(idle && !host.isEmpty());
    m_reattach->setText(host.isEmpty() ? tr("Reattach") : tr("Reattach to %1").arg(host));
}

QString RemoteActions::onRunFinished(const QString& status)
{
    update();
    const QString remedy = m_run->remoteInstallRemedy();
    if (status != u"failed"_s || remedy.isEmpty() || remedy != m_lastHost.destination)
        return {};
    m_installOffer = remedy;
    rebuildMenu();
    return tr(" (Run on host ▸ Install kwb on %1, then run there)").arg(remedy);
}

bool RemoteActions::installing() const
{
    return m_installRun->isRunning();
}

void RemoteActions::installThenRun()
{
    if (m_installOffer.isEmpty() || m_run->isRunning() || !m_installRun->start(m_installOffer))
        return;
    m_button->setText(tr("Installing kwb on %1…").arg(m_installOffer));
    m_button->setEnabled(false);
}

void RemoteActions::reattachIfAway()
{
    update();
    // A study whose run is away on a host: follow it at once (its views fill from the replayed
    // stream, and the study comes back when the run ends).
    if (!m_run->isRunning() && !awayOn().isEmpty() && m_reattach->isEnabled())
        m_reattach->trigger();
}

} // namespace kwb::gui
