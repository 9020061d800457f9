// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/remote_hosts.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableWidget;

namespace kwb::gui {

class KwbInstallRun;

// Run ▸ Remote hosts…: the host list, one row per host (ssh destination, remote kwb, remote work
// folder). Rows without a destination are dropped on OK. With the kwb program given, "Install kwb
// there" runs `kwb remote install HOST --json` for the selected row (docs/remote.md) and puts the
// installed program in its remote kwb column; the status line says what happened.
class RemoteHostsDialog : public QDialog {
    Q_OBJECT
public:
    explicit RemoteHostsDialog(
        const QList<RemoteHost>& hosts, QWidget* parent = nullptr, const QString& kwbProgram = QString());
    QList<RemoteHost> hosts() const;
    void addHost(const RemoteHost& host);
    void installOnSelectedHost();
    void selectHost(const QString& destination); // the row of that destination, when there is one
    bool installing() const;
    QString installStatus() const;

private:
    int rowOf(const QString& destination) const;
    void installFinished(
        const QString& destination, bool ok, const QString& installed, const QString& version, const QString& error);

    QTableWidget* m_table;
    QString m_kwb;
    QPushButton* m_install = nullptr;
    QLabel* m_status = nullptr;
    KwbInstallRun* m_installRun = nullptr;
};

} // namespace kwb::gui
