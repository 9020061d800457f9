// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

class QSettings;

namespace kwb::gui {

// A host the window can run studies on (docs/remote.md): an ssh destination as `ssh` understands
// it (so ~/.ssh/config, keys and the agent apply), the kwb program there, and the folder there
// that holds remote runs. Empty fields take kwb's defaults (kwb on the remote PATH, .kwb/runs).
struct RemoteHost {
    QString destination;
    QString remoteKwb;
    QString remoteDir;

    bool operator==(const RemoteHost&) const = default;
    // The options of `kwb run` / `kwb devices` that name this host.
    QStringList kwbArguments() const;
};

// The host list kept in the window's settings (QSettings array "remoteHosts").
QList<RemoteHost> loadRemoteHosts(QSettings& settings);
void saveRemoteHosts(QSettings& settings, const QList<RemoteHost>& hosts);

} // namespace kwb::gui
