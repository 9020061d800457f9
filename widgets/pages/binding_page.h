// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

namespace kwb::gui {

// Phase 3: the measured binding constraint and its evidence.
class BindingPage : public PhasePage {
    Q_OBJECT
public:
    explicit BindingPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    QLabel* m_constraint;
    QLabel* m_notes;
    QTableWidget* m_metrics;
};

} // namespace kwb::gui
