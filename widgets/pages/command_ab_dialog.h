// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace kwb::gui {

class CommandArmEditor;
class StudyDocument;

// File > New command A/B (and the A/B page's button): a new study of two external commands, the
// study `kwb new --baseline-cmd ... --treatment-cmd ...` writes. Each arm is edited in the A/B
// page's own command-arm editor (command line, folder, environment, timeout, check; the adapter and
// metric of both; "test once"), on a draft the dialog keeps to itself. Create hands the arms, the
// metric, the name and the runs to the engine's command::new_command_study, the one owner of kwb
// new's rules; what it refuses is shown with the field it names, and the dialog stays open.
class CommandAbDialog : public QDialog {
    Q_OBJECT
public:
    explicit CommandAbDialog(QWidget* parent = nullptr);
    ~CommandAbDialog() override;

    CommandArmEditor* armEditor() const { return m_editor; }
    // The study Create made; meaningful once the dialog was accepted.
    const Study& study() const { return m_study; }
    // Why the last Create was refused; empty when it succeeded or was not pressed.
    QString lastError() const;

public slots:
    // Builds the study through the engine: accepts the dialog, or shows why not.
    void create();

private:
    StudyDocument* m_draft;
    CommandArmEditor* m_editor;
    QLineEdit* m_name;
    QSpinBox* m_runs;
    QLabel* m_error;
    QPushButton* m_create;
    Study m_study;
};

} // namespace kwb::gui
