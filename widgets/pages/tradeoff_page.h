// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

namespace kwb::gui {

// Phase 7: the eight tradeoff axes and what was given up on each.
class TradeoffPage : public PhasePage
{
    Q_OBJECT
public:
    explicit TradeoffPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    QLabel* m_summary;
    QTableWidget* m_axes;
};

} // namespace kwb::gui
