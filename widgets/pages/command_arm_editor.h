// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QJsonObject;

namespace kwb::gui {

class StudyDocument;
class TestArmRun;

// The A/B page's editor of an external-command experiment (docs/adapters.md): per arm the command
// line, working directory, environment overrides, timeout and check command; for the experiment the
// adapter that reads both arms and the metric it judges (one adapter and one metric for both arms,
// so unlike quantities never meet in one verdict). Every edit is checked by the engine's
// command::validate before it reaches the study, and goes through the document's undo stack.
//
// "Test once" runs the shown arm's command one time through `kwb test-arm` in a child process (the
// window stays live) and shows what the adapter read, or in one line why it read nothing.
class CommandArmEditor : public QWidget {
    Q_OBJECT
public:
    explicit CommandArmEditor(StudyDocument* document, QWidget* parent = nullptr);
    ~CommandArmEditor() override;

    // The experiment to edit (an index into the study's experiments; -1 or a non-command one hides
    // nothing but disables the fields). Called by the page on every document change.
    void showExperiment(int experimentIndex);
    int armIndex() const;
    void setArmIndex(int arm);

    // What the last edit was refused for (empty when it was applied) and the last test's outcome.
    QString lastRefusal() const { return m_refusal; }
    QString testResult() const;
    bool isTesting() const { return m_test_run != nullptr; }

signals:
    // The last "test once" finished; ok: the adapter read the judged metric.
    void testFinished(bool ok);

public slots:
    void testOnce();

private:
    void fill();
    void testOnceFinished(const QJsonObject& answer, const QString& failure);
    void armFieldEdited();
    void adapterChosen();
    void metricChosen();
    void refuse(const QString& why);
    void fillMetrics(const QString& adapter);

    StudyDocument* m_document;
    int m_experiment = -1;
    bool m_filling = false;
    QString m_refusal;
    TestArmRun* m_test_run = nullptr; // `kwb test-arm`, while Test once runs

    QComboBox* m_arm;
    QLineEdit* m_command;
    QLineEdit* m_cwd;
    QLineEdit* m_env;
    QDoubleSpinBox* m_timeout;
    QLineEdit* m_check;
    QComboBox* m_adapter;
    QComboBox* m_metric;
    QLabel* m_refusalLabel;
    QPushButton* m_test;
    QLabel* m_result;
};

} // namespace kwb::gui
