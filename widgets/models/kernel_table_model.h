// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_catalogue.h"
#include "study/kernel_inventory.h"

#include <QAbstractTableModel>

namespace kwb::gui {

// The kernels of an A/B's two arms (STUDY.kernels.json), one row per kernel as the engine's
// diff_kernels matches and orders them (differing kernels first): name (demangled when the C++
// runtime can), binary, registers per thread, static shared memory and local (spill) bytes, the
// occupancy those allow on the study's device (hardware/kernel_occupancy.h), and whether the SASS
// is the same. A cell shows one figure when both arms agree, "baseline → treatment" when they
// differ, "—" where nobody read it. The model holds both inventories: the diff's rows point into them.
class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Binary, Registers, StaticSmem, Local, Occupancy, Sass, ColumnCount };
    // True for a row whose kernel differs (code or resources), as Qt::UserRole.
    static constexpr int DiffersRole = Qt::UserRole;

    explicit KernelTableModel(QObject* parent = nullptr);

    // `part` null: the occupancy column says the device is not in the catalogue.
    void setInventories(const KernelInventory& baseline, const KernelInventory& treatment, const GpuPart* part);
    void clear();
    const KernelDiff& diff() const { return m_diff; }
    bool hasPart() const { return m_part != nullptr; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "_Z6kernelPKfPfi" -> "kernel(float const*, float*, int)"; the name as stored when it is not
    // a C++ mangled name.
    static QString demangled(const std::string& name);

private:
    QString cell(const KernelDiffRow& row, int column) const;

    KernelInventory m_baseline, m_treatment;
    KernelDiff m_diff;
    const GpuPart* m_part = nullptr;
};

} // namespace kwb::gui
