// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/grid_page.h"

#include "models/json_convert.h"
#include "models/study_document.h"

#include <QLabel>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

GridPage::GridPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("6 · Combinational A/B"),
                tr("Where variables couple (BLOCK_M × STAGES, KV format × graph capture, tile × shape), run a "
                   "2×2 or 3×3 grid and read the interaction, not two separate A/Bs."),
                parent)
{
    setObjectName(u"gridPage"_s);
    m_summary = valueLabel(this);
    body()->addWidget(m_summary);
    body()->addStretch(1);
}

void GridPage::refresh()
{
    QStringList grids;
    for (const auto& e : document()->study().experiments)
        if (e.kind != "ab")
            grids << tr("%1 (%2, %3 arms)").arg(qs(e.id), qs(e.kind)).arg(e.arms.size());
    setValue(m_summary, grids.isEmpty()
                            ? tr("This study has no grid experiment: its variable is judged on its own by the A/B.")
                            : grids.join(u'\n'));
}

} // namespace kwb::gui
