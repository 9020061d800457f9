// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace kwb::gui {

// What leaving the open study (closing the window, File > New, File > Open) must ask first, and
// what an answer means. Kept out of the window so every case is tested without a dialog; the
// window only shows the question and carries out the step.
//
// A run comes first: while `kwb run` owns the study file the document is locked and holds no
// unsaved edits (Run saved them), so the only question is whether to stop the child. Stopping is
// never a kill: the child finishes its repetition, saves what finished and exits; the window
// leaves after that.
enum class LeaveQuestion { None, StopRun, SaveChanges };
enum class LeaveAnswer { Accept, Discard, Cancel }; // Accept: Save, or Stop the run
enum class LeaveStep { Leave, SaveThenLeave, StopThenLeave, Stay };

LeaveQuestion leaveQuestion(bool running, bool modified);
LeaveStep leaveStep(LeaveQuestion question, LeaveAnswer answer);

// The question's words for the dialog: a title and one paragraph.
QString leaveQuestionTitle(LeaveQuestion question);
QString leaveQuestionText(LeaveQuestion question, const QString& studyName);

} // namespace kwb::gui
