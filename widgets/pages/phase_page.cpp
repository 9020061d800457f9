// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/phase_page.h"

#include "models/study_document.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

PhasePage::PhasePage(StudyDocument* document, const QString& title, const QString& rule, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
{
    auto* outer = new QVBoxLayout(this);
    auto* heading = new QLabel(title, this);
    QFont f = heading->font();
    f.setPointSizeF(f.pointSizeF() * 1.5);
    f.setBold(true);
    heading->setFont(f);
    m_rule = new QLabel(rule, this);
    m_rule->setWordWrap(true);
    m_rule->setForegroundRole(QPalette::PlaceholderText); // muted, and readable in a dark palette
    // The study's name beside every heading: screenshots and printouts say which study they show.
    auto* headingRow = new QHBoxLayout;
    headingRow->addWidget(heading, 1);
    auto* studyName = new QLabel(this);
    studyName->setObjectName(u"pageStudyName"_s);
    studyName->setForegroundRole(QPalette::PlaceholderText);
    studyName->setTextInteractionFlags(Qt::TextSelectableByMouse);
    headingRow->addWidget(studyName, 0, Qt::AlignRight | Qt::AlignVCenter);
    outer->addLayout(headingRow);
    outer->addWidget(m_rule);
    const auto showName = [studyName, document] { studyName->setText(QString::fromStdString(document->study().name)); };
    showName();
    connect(document, &StudyDocument::changed, studyName, showName);
    m_body = new QVBoxLayout;
    outer->addLayout(m_body, 1);
    // The slot runs later, after the derived constructor, so the virtual call is safe.
    connect(document, &StudyDocument::changed, this, [this] { refresh(); });
}

void PhasePage::setRule(const QString& rule)
{
    m_rule->setText(rule);
}

QLabel* PhasePage::valueLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

void PhasePage::setValue(QLabel* label, const QString& text)
{
    if (text.trimmed().isEmpty()) {
        label->setText(tr("not set"));
        label->setStyleSheet(u"font-style: italic;"_s);
        label->setForegroundRole(QPalette::PlaceholderText);
    } else {
        label->setText(text);
        label->setStyleSheet(QString());
        label->setForegroundRole(QPalette::WindowText);
    }
}

QTableWidget* PhasePage::keyValueTable(QWidget* parent, const QStringList& headers)
{
    auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->setVisible(false);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    return table;
}

QLabel* PhasePage::sectionLabel(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    return label;
}

} // namespace kwb::gui
