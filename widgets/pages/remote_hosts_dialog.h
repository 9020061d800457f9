// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/remote_hosts.h"

#include <QDialog>

class QTableWidget;

namespace kwb::gui {

// Run ▸ Remote hosts…: the host list, one row per host (ssh destination, remote kwb, remote work
// folder). Rows without a destination are dropped on OK.
class RemoteHostsDialog : public QDialog {
    Q_OBJECT
public:
    explicit RemoteHostsDialog(const QList<RemoteHost>& hosts, QWidget* parent = nullptr);
    QList<RemoteHost> hosts() const;
    void addHost(const RemoteHost& host);

private:
    QTableWidget* m_table;
};

} // namespace kwb::gui
