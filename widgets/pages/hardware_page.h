// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

#include <QJsonArray>
#include <nlohmann/json.hpp>

class QComboBox;
class QPushButton;
class QTreeWidget;

namespace kwb::gui {

class DeviceProbe;

// Phase 2: the hardware sheet the study was made on, beside what this machine offers now; the
// chosen GPU's datasheet peaks beside its measured ceilings; and the playbook's traps for the
// study's configurations on that GPU (engine/hardware/study_traps.h decides them).
class HardwarePage : public PhasePage {
    Q_OBJECT
public:
    HardwarePage(StudyDocument* document, DeviceProbe* probe, QWidget* parent = nullptr);
    void refresh() override;

    // The GPU whose limits the page checks ("recorded:0", "detected:1", "part:H200"), for tests.
    QString limitsKey() const;
    bool chooseLimits(const QString& key);
    // Whether the study runs on a CPU: its experiment's recorded device, else the device the
    // engine's backend rule would run it on here (workloads/backend_choice.h through the probe).
    // A CPU study gets the CPU's sheet ("cpu") and no GPU traps.
    bool isCpuStudy() const;

private:
    static void fill(QTreeWidget* tree, const QJsonArray& devices, const QString& gpuUnavailable = {});
    void fillChoices();
    // The device object (kwb devices shape) or catalogue entry behind a choice.
    nlohmann::json chosenDevice() const;
    void showPeaks(const nlohmann::json& device);
    void showTraps(const nlohmann::json& device);

    DeviceProbe* m_probe;
    QPushButton* m_record = nullptr;
    QComboBox* m_limitsOf = nullptr;
    QString m_choice; // the user's pick, kept across refreshes while it exists
    QLabel* m_inUse;
    QLabel* m_captured;
    QLabel* m_peaksNote;
    QLabel* m_occupancy;
    QLabel* m_warnings;
    QLabel* m_detectedNote;
    QLabel* m_gpuReason;
    QTableWidget* m_peaks;
    QTreeWidget* m_recorded;
    QTreeWidget* m_detected;
};

} // namespace kwb::gui
