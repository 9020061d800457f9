// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/remote_hosts_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

RemoteHostsDialog::RemoteHostsDialog(const QList<RemoteHost>& hosts, QWidget* parent)
    : QDialog(parent)
    , m_table(new QTableWidget(0, 3, this))
{
    setWindowTitle(tr("Remote hosts"));
    setObjectName(u"remoteHostsDialog"_s);
    auto* help = new QLabel(tr("Studies run there over ssh (docs/remote.md). The destination is what you would type "
                               "after <tt>ssh</tt>: your ~/.ssh/config, keys and agent apply. Empty fields: kwb on "
                               "the remote PATH, runs under ~/.kwb/runs."),
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
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(help);
    layout->addWidget(m_table, 1);
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

} // namespace kwb::gui
