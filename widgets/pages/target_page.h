// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

namespace kwb::gui {

// Phase 1: one metric, from X to Y, and the K/R/W triple.
class TargetPage : public PhasePage
{
    Q_OBJECT
public:
    explicit TargetPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    QLabel* m_metric;
    QLabel* m_direction;
    QLabel* m_fromTo;
    QLabel* m_kernel;
    QLabel* m_reference;
    QLabel* m_workload;
};

} // namespace kwb::gui
