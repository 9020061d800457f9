// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

namespace kwb::gui {

// Phase 6: combinational A/B grids. Lists the study's grid experiments; the heat map comes with
// the grid runner (a later issue).
class GridPage : public PhasePage
{
    Q_OBJECT
public:
    explicit GridPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    QLabel* m_summary;
};

} // namespace kwb::gui
