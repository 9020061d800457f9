// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

#include <QJsonArray>

class QPushButton;
class QTreeWidget;

namespace kwb::gui {

class DeviceProbe;

// Phase 2: the hardware sheet the study was made on, beside what this machine offers now.
class HardwarePage : public PhasePage {
    Q_OBJECT
public:
    HardwarePage(StudyDocument* document, DeviceProbe* probe, QWidget* parent = nullptr);
    void refresh() override;

private:
    static void fill(QTreeWidget* tree, const QJsonArray& devices, const QString& gpuUnavailable = {});

    DeviceProbe* m_probe;
    QPushButton* m_record = nullptr;
    QLabel* m_inUse;
    QLabel* m_captured;
    QLabel* m_warnings;
    QLabel* m_detectedNote;
    QLabel* m_gpuReason;
    QTreeWidget* m_recorded;
    QTreeWidget* m_detected;
};

} // namespace kwb::gui
