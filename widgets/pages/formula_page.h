// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

namespace kwb::gui {

// Phase 4: the formula that predicts the change, its constants and its magnitude.
class FormulaPage : public PhasePage
{
    Q_OBJECT
public:
    explicit FormulaPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    QLabel* m_formula;
    QLabel* m_predicted;
    QLabel* m_rationale;
    QTableWidget* m_variables;
};

} // namespace kwb::gui
