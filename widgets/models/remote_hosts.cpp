// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/remote_hosts.h"

#include <QSettings>

namespace kwb::gui {

using namespace Qt::StringLiterals;

QStringList RemoteHost::kwbArguments() const
{
    QStringList args {u"--host"_s, destination};
    if (!remoteKwb.isEmpty())
        args << u"--remote-kwb"_s << remoteKwb;
    if (!remoteDir.isEmpty())
        args << u"--remote-dir"_s << remoteDir;
    return args;
}

QList<RemoteHost> loadRemoteHosts(QSettings& settings)
{
    QList<RemoteHost> hosts;
    const int n = settings.beginReadArray(u"remoteHosts"_s);
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        RemoteHost h {settings.value(u"destination"_s).toString().trimmed(),
            settings.value(u"remoteKwb"_s).toString().trimmed(), settings.value(u"remoteDir"_s).toString().trimmed()};
        if (!h.destination.isEmpty())
            hosts.append(h);
    }
    settings.endArray();
    return hosts;
}

void saveRemoteHosts(QSettings& settings, const QList<RemoteHost>& hosts)
{
    settings.remove(u"remoteHosts"_s);
    settings.beginWriteArray(u"remoteHosts"_s, static_cast<int>(hosts.size()));
    for (int i = 0; i < hosts.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(u"destination"_s, hosts[i].destination);
        settings.setValue(u"remoteKwb"_s, hosts[i].remoteKwb);
        settings.setValue(u"remoteDir"_s, hosts[i].remoteDir);
    }
    settings.endArray();
}

} // namespace kwb::gui
