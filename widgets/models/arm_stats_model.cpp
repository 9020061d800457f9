// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/arm_stats_model.h"

#include <cmath>

namespace kwb::gui {

using namespace Qt::StringLiterals;

ArmStatsModel::ArmStatsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ArmStatsModel::setArms(const QList<ArmDistribution>& arms, const QString& unit)
{
    beginResetModel();
    m_arms = arms;
    m_unit = unit;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

const ArmDistribution* ArmStatsModel::arm(int row) const
{
    return row >= 0 && row < m_arms.size() ? &m_arms[row] : nullptr;
}

int ArmStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_arms.size());
}

int ArmStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ArmStatsModel::formatNumber(double v)
{
    if (!std::isfinite(v))
        return u"–"_s;
    const double a = std::abs(v);
    const int decimals = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
    return QString::number(v, 'f', decimals);
}

QVariant ArmStatsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ArmDistribution& a = m_arms[index.row()];
    const auto column = static_cast<Column>(index.column());
    if (role == Qt::TextAlignmentRole)
        return column == Arm ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const bool raw = role == Qt::EditRole; // EditRole gives the number itself, for tests and sorting
    auto num = [&](double v) -> QVariant { return raw ? QVariant(v) : QVariant(formatNumber(v)); };
    switch (column) {
    case Arm:
        return a.name;
    case N:
        return a.n;
    case Mean:
        return num(a.mean);
    case Median:
        return num(a.median);
    case Stddev:
        return num(a.stddev);
    case Cv:
        return raw ? QVariant(a.cv_pct)
                   : QVariant(std::isfinite(a.cv_pct) ? QString::number(a.cv_pct, 'f', 2) : u"–"_s);
    case Min:
        return num(a.min);
    case Max:
        return num(a.max);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ArmStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    // The unit on a line of its own: "median (ms)" on one line made the table wider than half a
    // 1024-pixel window (issue 11), while the numbers under it are five characters wide.
    const QString u = m_unit.isEmpty() ? QString() : u"\n("_s + m_unit + u')';
    switch (static_cast<Column>(section)) {
    case Arm:
        return tr("arm");
    case N:
        return tr("n");
    case Mean:
        return QString(tr("mean") + u);
    case Median:
        return QString(tr("median") + u);
    case Stddev:
        return QString(tr("stddev") + u);
    case Cv:
        return tr("cv %");
    case Min:
        return QString(tr("min") + u);
    case Max:
        return QString(tr("max") + u);
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace kwb::gui
