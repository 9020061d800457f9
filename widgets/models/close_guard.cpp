// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/close_guard.h"

#include <QCoreApplication>

namespace kwb::gui {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("kwb::gui::CloseGuard", text);
}
} // namespace

LeaveQuestion leaveQuestion(bool running, bool modified)
{
    if (running)
        return LeaveQuestion::StopRun;
    return modified ? LeaveQuestion::SaveChanges : LeaveQuestion::None;
}

LeaveStep leaveStep(LeaveQuestion question, LeaveAnswer answer)
{
    switch (question) {
    case LeaveQuestion::None:
        return LeaveStep::Leave;
    case LeaveQuestion::StopRun:
        // "Discard" has no meaning for a run: the finished repetitions are on disk already.
        return answer == LeaveAnswer::Accept ? LeaveStep::StopThenLeave : LeaveStep::Stay;
    case LeaveQuestion::SaveChanges:
        switch (answer) {
        case LeaveAnswer::Accept:
            return LeaveStep::SaveThenLeave;
        case LeaveAnswer::Discard:
            return LeaveStep::Leave;
        case LeaveAnswer::Cancel:
            return LeaveStep::Stay;
        }
    }
    return LeaveStep::Stay;
}

QString leaveQuestionTitle(LeaveQuestion question)
{
    switch (question) {
    case LeaveQuestion::StopRun:
        return tr("Stop the run?");
    case LeaveQuestion::SaveChanges:
        return tr("Save changes?");
    case LeaveQuestion::None:
        break;
    }
    return {};
}

QString leaveQuestionText(LeaveQuestion question, const QString& studyName)
{
    switch (question) {
    case LeaveQuestion::StopRun:
        return tr("A run of \"%1\" is in progress. Stop it? kwb finishes the current repetition and saves "
                  "every finished one to the study file before the window closes.")
            .arg(studyName);
    case LeaveQuestion::SaveChanges:
        return tr("\"%1\" has unsaved edits. Save them before leaving?").arg(studyName);
    case LeaveQuestion::None:
        break;
    }
    return {};
}

} // namespace kwb::gui
