// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/kernel_table_model.h"

#include "hardware/kernel_occupancy.h"

#include <QColor>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString figure(const std::optional<int>& v, const QString& unit)
{
    return v ? QString::number(*v) + unit : u"—"_s;
}

// One figure when both arms agree (or only one has the kernel), else "baseline → treatment".
QString pair(const QString& b, const QString& t, const KernelDiffRow& row)
{
    if (!row.baseline)
        return t;
    if (!row.treatment)
        return b;
    return b == t ? b : u"%1 → %2"_s.arg(b, t);
}

} // namespace

KernelTableModel::KernelTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void KernelTableModel::setInventories(
    const KernelInventory& baseline, const KernelInventory& treatment, const GpuPart* part)
{
    beginResetModel();
    m_baseline = baseline;
    m_treatment = treatment;
    m_diff = diff_kernels(m_baseline, m_treatment);
    m_part = part;
    endResetModel();
}

void KernelTableModel::clear()
{
    beginResetModel();
    m_baseline = m_treatment = {};
    m_diff = {};
    m_part = nullptr;
    endResetModel();
}

int KernelTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_diff.rows.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString KernelTableModel::demangled(const std::string& name)
{
    int status = 0;
    const std::unique_ptr<char, void (*)(void*)> text(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && text ? QString::fromUtf8(text.get()) : QString::fromStdString(name);
}

QString KernelTableModel::cell(const KernelDiffRow& row, int column) const
{
    const auto both = [&](auto read) {
        return pair(
            row.baseline ? read(*row.baseline) : QString(), row.treatment ? read(*row.treatment) : QString(), row);
    };
    switch (column) {
    case Name:
        return demangled(row.name);
    case Binary:
        return QString::fromStdString(row.binary);
    case Registers:
        return both([](const KernelResource& k) { return figure(k.registers, QString()); });
    case StaticSmem:
        return both([](const KernelResource& k) { return figure(k.static_smem_bytes, u" B"_s); });
    case Local:
        return both([](const KernelResource& k) { return figure(k.local_bytes, u" B"_s); });
    case Occupancy:
        if (!m_part)
            return tr("device not in the catalogue");
        return both([this](const KernelResource& k) {
            const auto o = kernel_occupancy(k, *m_part);
            return o ? u"%1% (%2)"_s.arg(o->occupancy_pct, 0, 'g', 3).arg(QString::fromStdString(o->limiter)) : u"—"_s;
        });
    case Sass:
        if (!row.baseline)
            return tr("treatment only");
        if (!row.treatment)
            return tr("baseline only");
        if (row.baseline->sass_sha256.empty() || row.treatment->sass_sha256.empty())
            return tr("not read");
        return row.code_differs ? tr("differs") : tr("same");
    default:
        return {};
    }
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const KernelDiffRow& row = m_diff.rows[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == Name && row.differs() ? u"≠ "_s + cell(row, Name) : cell(row, index.column());
    case Qt::ToolTipRole:
        return tr("%1\n%2, %3 · %4")
            .arg(demangled(row.name), QString::fromStdString(row.name), QString::fromStdString(row.arch),
                row.differs() ? tr("differs between the arms (listed first)") : tr("the same in both arms"));
    case Qt::BackgroundRole:
        return row.differs() ? QVariant(QColor(255, 236, 179)) : QVariant();
    case Qt::ForegroundRole:
        return row.differs() ? QVariant(QColor(Qt::black)) : QVariant();
    case DiffersRole:
        return row.differs();
    default:
        return {};
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("kernel");
    case Binary:
        return tr("binary");
    case Registers:
        return tr("registers / thread");
    case StaticSmem:
        return tr("static smem");
    case Local:
        return tr("local (spills)");
    case Occupancy:
        return tr("occupancy (%1 threads/block assumed)").arg(kAssumedBlockThreads);
    case Sass:
        return tr("SASS");
    default:
        return {};
    }
}

} // namespace kwb::gui
