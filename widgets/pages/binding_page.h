// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

class QPushButton;

namespace kwb::gui {

class ProfileController;
class RooflinePlot;

// Phase 3: the measured binding constraint and its evidence, as `kwb profile` wrote it into the
// study: the call, the axis it suggests, the readings and thresholds behind it, the per-kernel
// table, the warning when the profiler view and the wall clock disagree, and what the pass could
// not measure, and the roofline of the current experiment's A/B against the measured roofs
// (verdict/roofline.h). "Profile" runs `kwb profile STUDY` in a child process (ProfileController).
class BindingPage : public PhasePage {
    Q_OBJECT
public:
    explicit BindingPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

    ProfileController* profileController() const { return m_profile; }
    // The "Profile" action: starts the child; false (the reason in the status line) when it cannot.
    bool startProfile();

private:
    void onProfileFinished(const QString& status);

    ProfileController* m_profile;
    QPushButton* m_profileButton;
    QLabel* m_profileStatus;
    QLabel* m_constraint;
    QLabel* m_axis;
    QLabel* m_profiled;
    QLabel* m_warnings;
    QLabel* m_limitations;
    QLabel* m_evidence;
    QLabel* m_notes;
    QTableWidget* m_kernels;
    QTableWidget* m_thresholds;
    QTableWidget* m_metrics;
    RooflinePlot* m_roofline;
};

} // namespace kwb::gui
