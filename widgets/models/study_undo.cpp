// SPDX-License-Identifier: GPL-3.0-or-later
// Undo for every edit of the study. A command keeps the whole study before and after the edit:
// edits are small and rare next to the cost of getting a hand-written inverse of each one wrong,
// and a snapshot restores exactly what the user saw, including the engine's derived fields.
#include "models/study_document.h"

#include <QHash>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>

namespace kwb::gui {

class StudySnapshotCommand : public QUndoCommand {
public:
    StudySnapshotCommand(StudyDocument* document, const QString& text, Study before, Study after, QString mergeKey)
        : QUndoCommand(text)
        , m_document(document)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_mergeKey(std::move(mergeKey))
    {
    }

    void undo() override { m_document->applySnapshot(m_before); }
    void redo() override
    {
        // The edit was applied before the command was pushed; QUndoStack::push calls redo once.
        if (m_first) {
            m_first = false;
            return;
        }
        m_document->applySnapshot(m_after);
    }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : static_cast<int>(qHash(m_mergeKey) & 0x7fffffff); }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* next = static_cast<const StudySnapshotCommand*>(other);
        if (next->m_mergeKey != m_mergeKey)
            return false;
        m_after = next->m_after;
        return true;
    }

private:
    StudyDocument* m_document;
    Study m_before;
    Study m_after;
    QString m_mergeKey;
    bool m_first = true;
};

bool StudyDocument::edit(const QString& text, const std::function<void(Study&)>& change, const QString& mergeKey)
{
    if (m_locked) {
        m_lastError = tr("a run owns the study file: edits wait until it ends");
        return false;
    }
    Study before = m_study;
    change(m_study);
    m_undo->push(new StudySnapshotCommand(this, text, std::move(before), m_study, mergeKey));
    markModified();
    return true;
}

void StudyDocument::applySnapshot(const Study& study)
{
    m_study = study;
    markModified();
}

} // namespace kwb::gui
