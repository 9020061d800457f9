// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/binding_page.h"

#include "models/json_convert.h"
#include "models/study_document.h"

#include <QFormLayout>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

BindingPage::BindingPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("3 · Binding constraint"),
        tr("Measure first: HBM > 80 % → memory-bound; tensor pipe < 40 % with occupancy > 50 % → "
           "compute-suboptimal; 1 block/SM with smem > 90 KB → smem-bound; > 200 launches/s → "
           "launch-bound; else already at the extremes → pivot axis."),
        parent)
{
    setObjectName(u"bindingPage"_s);
    auto* form = new QFormLayout;
    form->addRow(tr("Constraint"), m_constraint = valueLabel(this));
    form->addRow(tr("Notes"), m_notes = valueLabel(this));
    body()->addLayout(form);
    body()->addWidget(sectionLabel(tr("Evidence (as measured)"), this));
    m_metrics = keyValueTable(this, {tr("metric"), tr("value")});
    body()->addWidget(m_metrics, 1);
}

void BindingPage::refresh()
{
    const auto& b = document()->study().binding;
    setValue(m_constraint, qs(b.constraint));
    setValue(m_notes, qs(b.notes));
    const QJsonObject metrics = toQJsonObject(b.metrics);
    m_metrics->setRowCount(static_cast<int>(metrics.size()));
    int row = 0;
    for (auto it = metrics.begin(); it != metrics.end(); ++it, ++row) {
        m_metrics->setItem(row, 0, new QTableWidgetItem(it.key()));
        m_metrics->setItem(row, 1, new QTableWidgetItem(jsonScalarText(it.value())));
    }
}

} // namespace kwb::gui
