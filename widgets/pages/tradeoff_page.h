// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

namespace kwb::gui {

// Phase 7: the eight tradeoff axes, each answered with a named sacrifice or an explicit "none".
// Whether the answers name a sacrifice is the engine's tradeoff gate (study/gates.h), the same
// function the verdict asks, so this page and the verdict cannot disagree.
class TradeoffPage : public PhasePage {
    Q_OBJECT
public:
    explicit TradeoffPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

    // The summary line as shown (tests compare it with the verdict).
    QString summary() const;
    bool gateMet() const;

private:
    void cellEdited(int row, int column);

    bool m_filling = false;
    QLabel* m_summary;
    QTableWidget* m_axes;
};

} // namespace kwb::gui
