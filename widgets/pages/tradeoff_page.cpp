// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/tradeoff_page.h"

#include "models/json_convert.h"
#include "models/study_document.h"

#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

TradeoffPage::TradeoffPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("7 · Tradeoff"),
                tr("Name what was sacrificed. No tradeoff named = not at the extremes yet: a license with "
                   "nothing sacrificed is refused."),
                parent)
{
    setObjectName(u"tradeoffPage"_s);
    m_summary = valueLabel(this);
    body()->addWidget(m_summary);
    m_axes = keyValueTable(this, {tr("axis"), tr("sacrificed"), tr("what exactly was given up")});
    m_axes->setObjectName(u"tradeoffTable"_s);
    body()->addWidget(m_axes, 1);
}

void TradeoffPage::refresh()
{
    const auto& study = document()->study();
    // Always the eight axes, in canonical order, whether or not the study answered each.
    const auto& axes = tradeoff_axes();
    m_axes->setRowCount(static_cast<int>(axes.size()));
    int named = 0;
    for (size_t i = 0; i < axes.size(); ++i) {
        const Tradeoff* answer = nullptr;
        for (const auto& t : study.tradeoffs)
            if (t.axis == axes[i])
                answer = &t;
        const int row = static_cast<int>(i);
        m_axes->setItem(row, 0, new QTableWidgetItem(qs(axes[i])));
        m_axes->setItem(row, 1, new QTableWidgetItem(answer && answer->sacrificed ? tr("yes") : tr("no")));
        m_axes->setItem(row, 2, new QTableWidgetItem(answer ? qs(answer->note) : QString()));
        if (answer && answer->sacrificed) {
            ++named;
            for (int c = 0; c < 3; ++c)
                m_axes->item(row, c)->setBackground(QColor(255, 236, 179));
        }
    }
    setValue(m_summary, named == 0 ? tr("No tradeoff named: a LICENSE would be turned into INCONCLUSIVE.")
                                   : tr("%n axis/axes with a named sacrifice.", nullptr, named));
}

} // namespace kwb::gui
