// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/tradeoff_page.h"

#include "models/json_convert.h"
#include "models/study_document.h"
#include "study/gates.h"

#include <QHeaderView>
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
    m_summary->setObjectName(u"tradeoffSummary"_s);
    body()->addWidget(m_summary);
    m_axes
        = keyValueTable(this, {tr("axis"), tr("sacrificed?"), tr("what exactly was given up (double-click to edit)")});
    m_axes->setObjectName(u"tradeoffTable"_s);
    m_axes->setEditTriggers(
        QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    m_axes->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_axes->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_axes->setToolTip(tr("Playbook phase 7: \"no tradeoff named = not at the extremes yet\". Answer every axis; "
                          "a license needs at least one named sacrifice."));
    body()->addWidget(m_axes, 1);
    connect(m_axes, &QTableWidget::cellChanged, this, &TradeoffPage::cellEdited);
}

QString TradeoffPage::summary() const
{
    return m_summary->text();
}

bool TradeoffPage::gateMet() const
{
    return tradeoff_gate(document()->study().tradeoffs).met;
}

void TradeoffPage::cellEdited(int row, int column)
{
    if (m_filling || column == 0)
        return;
    const std::string axis = tradeoff_axes().at(static_cast<size_t>(row));
    const bool sacrificed = m_axes->item(row, 1)->checkState() == Qt::Checked;
    std::string note = m_axes->item(row, 2)->text().toStdString();
    if (!sacrificed && note == tr("none").toStdString())
        note.clear();
    document()->edit(
        tr("Tradeoff: %1").arg(qs(axis)),
        [=](Study& s) {
            for (auto& t : s.tradeoffs)
                if (t.axis == axis) {
                    t.sacrificed = sacrificed;
                    t.note = note;
                    return;
                }
            s.tradeoffs.push_back({axis, sacrificed, note});
        },
        column == 2 ? u"tradeoff-note-"_s + qs(axis) : QString());
}

void TradeoffPage::refresh()
{
    m_filling = true;
    const auto& study = document()->study();
    // Always the eight axes, in canonical order, whether or not the study answered each.
    const auto& axes = tradeoff_axes();
    m_axes->setRowCount(static_cast<int>(axes.size()));
    const Gate gate = tradeoff_gate(study.tradeoffs);
    for (size_t i = 0; i < axes.size(); ++i) {
        const Tradeoff* answer = nullptr;
        for (const auto& t : study.tradeoffs)
            if (t.axis == axes[i])
                answer = &t;
        const int row = static_cast<int>(i);
        auto* axis = new QTableWidgetItem(qs(axes[i]));
        axis->setFlags(axis->flags() & ~Qt::ItemIsEditable);
        const QString question = qs(tradeoff_question(axes[i]));
        axis->setToolTip(question + u'\n' + qs(gate.rule));
        m_axes->setItem(row, 0, axis);
        auto* mark = new QTableWidgetItem(answer && answer->sacrificed ? tr("yes") : tr("none"));
        mark->setFlags((mark->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsEditable);
        mark->setCheckState(answer && answer->sacrificed ? Qt::Checked : Qt::Unchecked);
        mark->setToolTip(tr("Tick when this axis paid for the win (playbook phase 7: every win names what was "
                            "sacrificed). %1")
                             .arg(question));
        m_axes->setItem(row, 1, mark);
        auto* note = new QTableWidgetItem(answer ? qs(answer->note) : QString());
        const bool named = answer && names_sacrifice(*answer);
        note->setToolTip(answer && answer->sacrificed && !named
                ? tr("Marked sacrificed but not named: say what exactly was given up")
                : tr("What exactly was given up, in numbers where possible. %1").arg(question));
        m_axes->setItem(row, 2, note);
        if (named)
            for (int c = 0; c < 3; ++c) {
                m_axes->item(row, c)->setBackground(QColor(255, 236, 179));
                m_axes->item(row, c)->setForeground(Qt::black);
            }
    }
    int named = 0;
    for (const auto& t : study.tradeoffs)
        named += names_sacrifice(t) ? 1 : 0;
    m_summary->setText(gate.met
            ? (named == 1 ? tr("✔ 1 axis with a named sacrifice: a license may stand.")
                          : tr("✔ %1 axes with a named sacrifice: a license may stand.").arg(named))
            : tr("✘ %1 — a LICENSE would be turned into INCONCLUSIVE.").arg(qs(tradeoff_gate_reason())));
    m_summary->setStyleSheet(gate.met ? u"color: #2e7d32;"_s : u"color: #c62828;"_s);
    m_summary->setToolTip(qs(gate.rule));
    m_filling = false;
}

} // namespace kwb::gui
