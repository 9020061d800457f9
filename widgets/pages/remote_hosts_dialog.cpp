// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/remote_hosts_dialog.h"

#include "models/kwb_install_run.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

RemoteHostsDialog::RemoteHostsDialog(const QList<RemoteHost>& hosts, QWidget* parent, const QString& kwbProgram)
    : QDialog(parent)
    , m_table(new QTableWidget(0, 3, this))
    , m_kwb(kwbProgram)
{
    setWindowTitle(tr("Remote hosts"));
    setObjectName(u"remoteHostsDialog"_s);
    auto* help
        = new QLabel(tr("Studies run there over ssh (docs/remote.md). The destination is what you would type "
                        "after <tt>ssh</tt>: your ~/.ssh/config, keys and agent apply. An empty remote kwb: the one "
                        "Install kwb there put there, else kwb on the remote PATH; an empty work folder: "
                        "~/.kwb/runs."),
            this);
    help->setWordWrap(true);
    m_table->setObjectName(u"remoteHostsTable"_s);
    m_table->setHorizontalHeaderLabels({tr("ssh destination"), tr("remote kwb"), tr("remote work folder")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    for (const auto& h : hosts)
        addHost(h);
    auto* add = new QPushButton(tr("Add"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    connect(add, &QPushButton::clicked, this, [this] {
        addHost({});
        m_table->editItem(m_table->item(m_table->rowCount() - 1, 0));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_table->currentRow() >= 0)
            m_table->removeRow(m_table->currentRow());
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->addButton(add, QDialogButtonBox::ActionRole);
    buttons->addButton(remove, QDialogButtonBox::ActionRole);
    m_status = new QLabel(this);
    m_status->setObjectName(u"installStatus"_s);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (!m_kwb.isEmpty()) {
        m_install = new QPushButton(tr("Install kwb there"), this);
        m_install->setObjectName(u"installKwbButton"_s);
        m_install->setToolTip(tr("Copies this kwb, its GPU plugin and the libraries they need to the selected host "
                                 "over ssh, checks that it runs, and uses it for runs there (kwb remote install)"));
        buttons->addButton(m_install, QDialogButtonBox::ActionRole);
        connect(m_install, &QPushButton::clicked, this, &RemoteHostsDialog::installOnSelectedHost);
    }
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(help);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(720, 320);
}

void RemoteHostsDialog::addHost(const RemoteHost& host)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, 0, new QTableWidgetItem(host.destination));
    m_table->setItem(row, 1, new QTableWidgetItem(host.remoteKwb));
    m_table->setItem(row, 2, new QTableWidgetItem(host.remoteDir));
}

QList<RemoteHost> RemoteHostsDialog::hosts() const
{
    QList<RemoteHost> hosts;
    const auto text = [this](int row, int column) {
        const auto* item = m_table->item(row, column);
        return item ? item->text().trimmed() : QString();
    };
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (!text(row, 0).isEmpty())
            hosts.append({text(row, 0), text(row, 1), text(row, 2)});
    return hosts;
}

void RemoteHostsDialog::installOnSelectedHost()
{
    const int row = m_table->currentRow();
    const auto* item = row >= 0 ? m_table->item(row, 0) : nullptr;
    const QString destination = item ? item->text().trimmed() : QString();
    if (destination.isEmpty()) {
        m_status->setText(tr("Choose a host with an ssh destination first."));
        return;
    }
    if (installing())
        return;
    if (!m_installRun) {
        m_installRun = new KwbInstallRun(m_kwb, this);
        connect(m_installRun, &KwbInstallRun::finished, this, [this](const KwbInstallRun::Outcome& o) {
            installFinished(m_installRun->destination(), o.ok, o.installed, o.version, o.error);
        });
    }
    m_status->setText(tr("Installing kwb on %1…").arg(destination));
    m_install->setEnabled(false);
    m_installRun->start(destination);
}

int RemoteHostsDialog::rowOf(const QString& destination) const
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, 0) && m_table->item(row, 0)->text().trimmed() == destination)
            return row;
    return -1;
}

void RemoteHostsDialog::selectHost(const QString& destination)
{
    if (const int row = rowOf(destination); row >= 0)
        m_table->setCurrentCell(row, 0);
}

void RemoteHostsDialog::installFinished(
    const QString& destination, bool ok, const QString& installed, const QString& version, const QString& error)
{
    m_install->setEnabled(true);
    if (!ok) {
        m_status->setText(tr("Not installed on %1: %2").arg(destination, error));
        return;
    }
    // The row may have moved while kwb worked: the destination names it.
    if (const int row = rowOf(destination); row >= 0)
        m_table->setItem(row, 1, new QTableWidgetItem(installed));
    m_status->setText(tr("Installed kwb %1 on %2 at %3; runs there use it.").arg(version, destination, installed));
}

bool RemoteHostsDialog::installing() const
{
    return m_installRun && m_installRun->isRunning();
}

QString RemoteHostsDialog::installStatus() const
{
    return m_status->text();
}

} // namespace kwb::gui
