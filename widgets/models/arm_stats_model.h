// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/distribution_stats.h"

#include <QAbstractTableModel>

namespace kwb::gui {

// The per-arm numbers table of the Results view: n, mean, median, stddev, cv%, min, max, each
// with its unit in the header, so no number is shown without its unit, n and spread.
class ArmStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Arm, N, Mean, Median, Stddev, Cv, Min, Max, ColumnCount };

    explicit ArmStatsModel(QObject* parent = nullptr);

    void setArms(const QList<ArmDistribution>& arms, const QString& unit);
    const ArmDistribution* arm(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Numbers shown with the significant digits a timing deserves: 4 significant, fixed.
    static QString formatNumber(double v);

private:
    QList<ArmDistribution> m_arms;
    QString m_unit;
};

} // namespace kwb::gui
