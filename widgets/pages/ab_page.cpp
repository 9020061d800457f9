// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/ab_page.h"

#include "models/json_convert.h"
#include "models/study_document.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

AbPage::AbPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("5 · Single-variable A/B"),
                tr("One variable; matched controls (same data, threads, warm-up, duration, no other load); "
                   "interleaved repetitions; n ≥ 3 per arm and sigma < 5 %."),
                parent)
{
    setObjectName(u"abPage"_s);
    auto* form = new QFormLayout;
    form->addRow(tr("Experiment"), m_experiment = valueLabel(this));
    form->addRow(tr("Plan"), m_plan = valueLabel(this));
    form->addRow(tr("Repetitions"), m_progress = valueLabel(this));
    form->addRow(tr("Variable"), m_diff = valueLabel(this));
    body()->addLayout(form);
    auto* columns = new QHBoxLayout;
    auto* left = new QVBoxLayout;
    left->addWidget(sectionLabel(tr("Arms"), this));
    m_arms = keyValueTable(this, {tr("parameter")});
    left->addWidget(m_arms, 1);
    auto* right = new QVBoxLayout;
    right->addWidget(sectionLabel(tr("Matched controls"), this));
    m_controls = keyValueTable(this, {tr("control"), tr("checked")});
    m_controls->setObjectName(u"controlsTable"_s);
    // The control's name is the content; the check mark needs one glyph's width.
    m_controls->horizontalHeader()->setStretchLastSection(false);
    m_controls->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_controls->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_controls->setWordWrap(false);
    right->addWidget(m_controls, 1);
    columns->addLayout(left, 3);
    columns->addLayout(right, 2);
    body()->addLayout(columns, 1);
}

void AbPage::refresh()
{
    const Experiment* e = document()->currentExperiment();
    m_arms->setRowCount(0);
    m_controls->setRowCount(0);
    if (!e) {
        setValue(m_experiment, QString());
        setValue(m_plan, QString());
        setValue(m_progress, QString());
        setValue(m_diff, QString());
        return;
    }
    setValue(m_experiment, tr("%1 · workload %2 · backend %3 · metric %4 · status %5")
                               .arg(qs(e->id), qs(e->workload), qs(e->backend), qs(e->metric),
                                    qs(std::string(to_string(e->status)))));
    setValue(m_plan, tr("%1 runs per arm + %2 warm-up, order %3, stop rule %4, profile %5")
                         .arg(e->plan.runs_per_arm).arg(e->plan.warmup_runs)
                         .arg(qs(std::string(to_string(e->plan.order))), qs(std::string(to_string(e->plan.stop))),
                              qs(e->profile)));
    QStringList counts;
    for (const auto& arm : e->arms)
        counts << tr("%1: %2").arg(qs(arm.name)).arg(judged_values(*e, arm.name, e->metric).size());
    setValue(m_progress, counts.join(u" · "_s) + (e->error.empty() ? QString() : tr(" · error: %1").arg(qs(e->error))));

    // Arms as columns, parameters as rows; a row whose values differ is the variable under test.
    QStringList headers{tr("parameter")};
    QStringList keys;
    for (const auto& arm : e->arms) {
        headers << qs(arm.name);
        for (const auto& [k, v] : arm.params.items())
            if (!keys.contains(qs(k)))
                keys << qs(k);
    }
    m_arms->setColumnCount(static_cast<int>(headers.size()));
    m_arms->setHorizontalHeaderLabels(headers);
    m_arms->setRowCount(static_cast<int>(keys.size()));
    QStringList differing;
    for (int row = 0; row < keys.size(); ++row) {
        m_arms->setItem(row, 0, new QTableWidgetItem(keys[row]));
        QSet<QString> values;
        for (size_t c = 0; c < e->arms.size(); ++c) {
            const QJsonObject params = toQJsonObject(e->arms[c].params);
            const QString text = jsonScalarText(params.value(keys[row]));
            values.insert(text);
            m_arms->setItem(row, static_cast<int>(c) + 1, new QTableWidgetItem(text));
        }
        if (values.size() > 1) {
            differing << keys[row];
            for (int c = 0; c < m_arms->columnCount(); ++c)
                m_arms->item(row, c)->setBackground(QColor(255, 236, 179));
        }
    }
    setValue(m_diff, differing.isEmpty() ? tr("the arms do not differ")
                     : differing.size() == 1 ? tr("%1 (the only parameter that differs)").arg(differing.first())
                                             : tr("%1 — more than one variable differs: the delta cannot be attributed")
                                                   .arg(differing.join(u", "_s)));
    m_controls->setRowCount(static_cast<int>(e->controls.checklist.size()));
    int row = 0;
    for (const auto& [name, checked] : e->controls.checklist) {
        auto* control = new QTableWidgetItem(qs(name));
        control->setToolTip(qs(name));
        m_controls->setItem(row, 0, control);
        auto* mark = new QTableWidgetItem(checked ? u"✔"_s : u"✘"_s);
        mark->setTextAlignment(Qt::AlignCenter);
        mark->setForeground(checked ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
        m_controls->setItem(row, 1, mark);
        ++row;
    }
}

} // namespace kwb::gui
