// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QFormLayout;
class QLabel;
class QTableWidget;
class QVBoxLayout;

namespace kwb::gui {

class StudyDocument;

// What every view of the navigator shares: a title, the playbook's rule for the phase in one
// line, and a refresh whenever the document changes (load, reload after a run, edit).
class PhasePage : public QWidget {
    Q_OBJECT
public:
    PhasePage(StudyDocument* document, const QString& title, const QString& rule, QWidget* parent = nullptr);

    virtual void refresh() = 0;

protected:
    // The rule under the title, when it depends on the study (the verdict page's profile).
    void setRule(const QString& rule);
    StudyDocument* document() const { return m_document; }
    QVBoxLayout* body() const { return m_body; }

    // Small builders so each page states its content, not its plumbing.
    static QLabel* valueLabel(QWidget* parent);
    static void setValue(QLabel* label, const QString& text); // empty -> a grey "not set"
    static QTableWidget* keyValueTable(QWidget* parent, const QStringList& headers);
    static QLabel* sectionLabel(const QString& text, QWidget* parent);

private:
    StudyDocument* m_document;
    QVBoxLayout* m_body;
    QLabel* m_rule;
};

} // namespace kwb::gui
