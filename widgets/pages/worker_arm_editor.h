// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QJsonObject;
class QLabel;
class QLineEdit;
class QPushButton;

namespace kwb::gui {

class StudyDocument;
class TestArmRun;

// The A/B page's editor of a worker experiment (docs/worker-protocol.md): per arm the worker's
// command line, working directory, environment overrides, the timeout of one repetition and the
// tolerance of the baseline-as-reference check; below them what the worker described when kwb new
// started it (its name, device, timer, parameters). The parameters themselves are the page's table.
// Every edit is checked by the engine's worker::validate before it reaches the study and goes
// through the document's undo stack; a finished experiment is shown, not edited.
//
// "Test once" asks `kwb test-arm --worker-json -` to start the shown arm's worker, describe,
// prepare, check it against its reference with a fresh seed, and time one launch; it shows the
// check and the time, or in one line why the worker is not usable.
class WorkerArmEditor : public QWidget {
    Q_OBJECT
public:
    explicit WorkerArmEditor(StudyDocument* document, QWidget* parent = nullptr);
    ~WorkerArmEditor() override;

    void showExperiment(int experimentIndex);
    int armIndex() const;
    void setArmIndex(int arm);

    QString lastRefusal() const { return m_refusal; }
    QString testResult() const;
    bool isTesting() const { return m_test_run != nullptr; }

signals:
    // The last "test once" finished; ok: the worker passed its check and timed the judged metric.
    void testFinished(bool ok);

public slots:
    void testOnce();

private:
    void fill();
    void fieldEdited();
    void refuse(const QString& why);
    void testOnceFinished(const QJsonObject& answer, const QString& failure);

    StudyDocument* m_document;
    int m_experiment = -1;
    bool m_filling = false;
    QString m_refusal;
    TestArmRun* m_test_run = nullptr;

    QComboBox* m_arm;
    QLineEdit* m_command;
    QLineEdit* m_cwd;
    QLineEdit* m_env;
    QDoubleSpinBox* m_timeout;
    QDoubleSpinBox* m_atol;
    QDoubleSpinBox* m_rtol;
    QLabel* m_described;
    QLabel* m_refusalLabel;
    QPushButton* m_test;
    QLabel* m_result;
};

} // namespace kwb::gui
