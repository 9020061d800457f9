// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/formula_page.h"

#include "models/json_convert.h"
#include "models/study_document.h"

#include <QFormLayout>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

FormulaPage::FormulaPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("4 · Formula"),
                tr("Predict the delta from hardware × workload constants, with its magnitude. "
                   "No formula, no run."),
                parent)
{
    setObjectName(u"formulaPage"_s);
    auto* form = new QFormLayout;
    form->addRow(tr("Formula (delta %)"), m_formula = valueLabel(this));
    form->addRow(tr("Predicted delta"), m_predicted = valueLabel(this));
    form->addRow(tr("Rationale"), m_rationale = valueLabel(this));
    m_formula->setFont(QFont(u"monospace"_s));
    body()->addLayout(form);
    body()->addWidget(sectionLabel(tr("Constants"), this));
    m_variables = keyValueTable(this, {tr("name"), tr("value")});
    body()->addWidget(m_variables, 1);
}

void FormulaPage::refresh()
{
    const auto& p = document()->study().prediction;
    setValue(m_formula, qs(p.formula));
    setValue(m_predicted, p.predicted_delta_pct ? tr("%1 % (positive = better)").arg(*p.predicted_delta_pct, 0, 'f', 1)
                                                : QString());
    setValue(m_rationale, qs(p.rationale));
    m_variables->setRowCount(static_cast<int>(p.variables.size()));
    int row = 0;
    for (const auto& [name, value] : p.variables) {
        m_variables->setItem(row, 0, new QTableWidgetItem(qs(name)));
        m_variables->setItem(row, 1, new QTableWidgetItem(QString::number(value, 'g', 6)));
        ++row;
    }
}

} // namespace kwb::gui
