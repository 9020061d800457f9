// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

namespace kwb::gui {

// Phase 5: the single-variable A/B: arms side by side with the differing parameter highlighted,
// the plan, the matched-controls checklist and how far the run got.
class AbPage : public PhasePage
{
    Q_OBJECT
public:
    explicit AbPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    QLabel* m_experiment;
    QLabel* m_plan;
    QLabel* m_progress;
    QLabel* m_diff;
    QTableWidget* m_arms;
    QTableWidget* m_controls;
};

} // namespace kwb::gui
