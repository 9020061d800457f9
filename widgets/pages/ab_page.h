// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"

#include <nlohmann/json_fwd.hpp>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QPushButton;
class QCheckBox;
class QGridLayout;
class QSpinBox;

namespace kwb {
struct Experiment;
}

namespace kwb::gui {

class CommandArmEditor;
class CommitArmsPanel;
class WorkerArmEditor;
class DeviceProbe;
class RunController;

// Phase 5: the single-variable A/B, edited here: the workload, its shared parameters and the one
// varied parameter (a second changed variable is refused), the engine's arm diff, the matched-
// controls checklist (ticked by the engine where it can measure), the run settings, and Start /
// Stop with progress. Start stays locked until the engine's gates allow a run (study/gates.h).
class AbPage : public PhasePage {
    Q_OBJECT
public:
    AbPage(StudyDocument* document, RunController* run, DeviceProbe* probe, QWidget* parent = nullptr);
    void refresh() override;

    QString variedParameter() const { return m_varied; }
    // The reason Start is locked, empty when it may run (the same text as its tooltip).
    QString runBlockedReason() const;
    QString lastRefusal() const { return m_refusal; }
    CommandArmEditor* commandArmEditor() const { return m_commandArms; }
    WorkerArmEditor* workerArmEditor() const { return m_workerArms; }
    CommitArmsPanel* commitArmsPanel() const { return m_commitArms; }

signals:
    void runRequested();
    void stopRequested();
    // "New command A/B…": the window opens its File > New command A/B (a new study of two commands).
    void newCommandAbRequested();
    // "New A/B from commits…": the window opens File > New A/B from two commits.
    void newGitAbRequested();

private:
    void createExperiment();
    void cellEdited(int row, int column);
    void variedChosen();
    // The matched-controls checklist (ab_page_controls.cpp).
    void fillControls(const Experiment& e, const nlohmann::json& defaults);
    void controlToggled(int row, int column);
    // The run settings (ab_page_plan.cpp).
    QGridLayout* buildPlanSettings();
    void fillPlan(const Experiment& e);
    void settingsEdited();
    void updateRunButtons();
    int experimentIndex() const;
    void showCommandDiff(const Experiment& e);

    RunController* m_run;
    DeviceProbe* m_probe;
    QString m_varied;
    QString m_refusal;
    bool m_filling = false;

    QPushButton* m_create;
    QPushButton* m_newCommand;
    QPushButton* m_newGit;
    QLabel* m_workloadLabel;
    QLabel* m_backendLabel;
    QLabel* m_variedLabel;
    QLabel* m_armsLabel;
    QComboBox* m_workload;
    QComboBox* m_backend;
    QComboBox* m_variedBox;
    QLabel* m_experiment;
    QLabel* m_diff;
    QTableWidget* m_arms;
    QTableWidget* m_controls;
    QSpinBox* m_runs;
    QSpinBox* m_warmup;
    QComboBox* m_order;
    QComboBox* m_stop;
    QDoubleSpinBox* m_duration;
    QComboBox* m_profile;
    QLineEdit* m_guards;
    QCheckBox* m_aaArm;
    QPushButton* m_start;
    QPushButton* m_stopButton;
    QLabel* m_progress;
    CommandArmEditor* m_commandArms = nullptr;
    WorkerArmEditor* m_workerArms = nullptr;
    CommitArmsPanel* m_commitArms = nullptr;
};

} // namespace kwb::gui
