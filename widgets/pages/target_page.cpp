// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/target_page.h"

#include "models/arm_stats_model.h"
#include "models/json_convert.h"
#include "models/study_document.h"

#include <QFormLayout>
#include <QLabel>

namespace kwb::gui {

using namespace Qt::StringLiterals;

TargetPage::TargetPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("1 · Target"),
                tr("One metric, from X to Y, with its unit; pin K (kernel semantics), R (reference oracle) "
                   "and W (workload). No numbers, no study."),
                parent)
{
    setObjectName(u"targetPage"_s);
    auto* form = new QFormLayout;
    form->addRow(tr("Metric"), m_metric = valueLabel(this));
    form->addRow(tr("Better is"), m_direction = valueLabel(this));
    form->addRow(tr("From → to"), m_fromTo = valueLabel(this));
    form->addRow(tr("K · kernel semantics"), m_kernel = valueLabel(this));
    form->addRow(tr("R · reference oracle"), m_reference = valueLabel(this));
    form->addRow(tr("W · workload"), m_workload = valueLabel(this));
    body()->addLayout(form);
    body()->addStretch(1);
}

void TargetPage::refresh()
{
    const auto& t = document()->study().target;
    const QString unit = qs(t.unit);
    setValue(m_metric, t.metric.empty() ? QString() : qs(t.metric) + (unit.isEmpty() ? QString() : u" ("_s + unit + u')'));
    setValue(m_direction, t.direction == Direction::Lower ? tr("lower (a time, a latency, bytes)")
                                                          : tr("higher (a throughput)"));
    QString fromTo;
    if (t.current && t.goal) {
        const double change = 100.0 * (*t.goal - *t.current) / *t.current;
        fromTo = tr("%1 %3 → %2 %3  (%4%5 %)")
                     .arg(ArmStatsModel::formatNumber(*t.current), ArmStatsModel::formatNumber(*t.goal), unit)
                     .arg(change > 0 ? u"+"_s : QString())
                     .arg(change, 0, 'f', 1);
    }
    setValue(m_fromTo, fromTo);
    setValue(m_kernel, qs(t.kernel));
    setValue(m_reference, qs(t.reference));
    setValue(m_workload, qs(t.workload));
}

} // namespace kwb::gui
