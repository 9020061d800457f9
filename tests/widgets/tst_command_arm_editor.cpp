// SPDX-License-Identifier: GPL-3.0-or-later
// The A/B page's command-arm editor offscreen, on the stand-in benchmark
// (tests/engine/workloads/standin_bench.cpp): every field lands in the study through an undo
// command, bad input is refused with the engine's reason, and "test once" runs the command one time
// through `kwb test-arm` (the window runs nothing itself), the GUI thread free meanwhile, and shows
// what the adapter read or why it read nothing.
#include "models/study_document.h"
#include "pages/ab_page.h"
#include "pages/command_arm_editor.h"
#include "workloads/command/command_spec.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

const QString kStandin = QStringLiteral(KWB_STANDIN);

std::string standin(const QString& args)
{
    return QString(kStandin + u' ' + args).toStdString();
}

// A command A/B as `kwb new --baseline-cmd ... --treatment-cmd ...` writes it (no samples yet).
void commandStudy(StudyDocument& doc)
{
    doc.newStudy();
    Study& s = doc.mutableStudy();
    s.target.metric = "time_ms";
    s.target.unit = "ms";
    Experiment e;
    e.id = "ab-1";
    e.kind = "ab";
    e.workload = command::kCommandWorkload;
    e.metric = "time_ms";
    for (const char* name : {"baseline", "treatment"}) {
        Arm a;
        a.name = name;
        CommandSpec c;
        c.cmd = standin(u"--format gbench --noise 0 --mean %1"_s.arg(std::string(name) == "baseline" ? 2.0 : 1.5));
        c.timeout_s = 30;
        a.command = c;
        e.arms.push_back(a);
    }
    s.experiments.push_back(e);
    emit doc.changed();
}

void type(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    edit->clear();
    QTest::keyClicks(edit, text);
    emit edit->editingFinished();
    edit->clearFocus();
}

const CommandSpec& armSpec(const StudyDocument& doc, int arm)
{
    return *doc.study().experiments.at(0).arms.at(static_cast<size_t>(arm)).command;
}

} // namespace

class TestCommandArmEditor : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("KWB_PROGRAM", KWB_TEST_KWB);
    }
    void abPageShowsTheEditorForCommandArms();
    void fieldsEditTheArmAndUndo();
    void badInputIsRefusedWithTheReason();
    void adapterAndMetricApplyToBothArms();
    void testOnceShowsWhatTheAdapterRead();
    void testOnceShowsWhyNothingWasRead_data();
    void testOnceShowsWhyNothingWasRead();
    void testOnceRunsOffTheGuiThread();
    void testOnceSaysWhenKwbIsMissing();
};

void TestCommandArmEditor::abPageShowsTheEditorForCommandArms()
{
    StudyDocument doc;
    commandStudy(doc);
    AbPage page(&doc, nullptr, nullptr);
    page.show();
    page.refresh();
    auto* editor = page.commandArmEditor();
    QVERIFY(editor->isVisible());
    QVERIFY(!page.findChild<QTableWidget*>(u"armsTable"_s)->isVisible());
    auto* line = editor->findChild<QLineEdit*>(u"commandLine"_s);
    QCOMPARE(line->text(), QString::fromStdString(armSpec(doc, 0).cmd));
    editor->setArmIndex(1);
    QCOMPARE(line->text(), QString::fromStdString(armSpec(doc, 1).cmd));

    // A built-in workload's A/B shows the parameter table, not the editor.
    doc.newStudy();
    page.refresh();
    QVERIFY(!editor->isVisible());
}

void TestCommandArmEditor::fieldsEditTheArmAndUndo()
{
    StudyDocument doc;
    commandStudy(doc);
    AbPage page(&doc, nullptr, nullptr);
    page.show();
    page.refresh();
    auto* editor = page.commandArmEditor();
    editor->setArmIndex(1);
    const std::string before = armSpec(doc, 1).cmd;

    type(editor->findChild<QLineEdit*>(u"commandLine"_s),
        QString::fromStdString(standin(u"--format gbench --mean 1.25"_s)));
    QCOMPARE(armSpec(doc, 1).cmd, standin(u"--format gbench --mean 1.25"_s));
    QCOMPARE(armSpec(doc, 0).cmd, standin(u"--format gbench --noise 0 --mean 2"_s)); // the other arm is untouched

    type(editor->findChild<QLineEdit*>(u"commandEnv"_s), u"OMP_NUM_THREADS=1 \"LABEL=a b\""_s);
    QCOMPARE(armSpec(doc, 1).env.at("OMP_NUM_THREADS"), std::string("1"));
    QCOMPARE(armSpec(doc, 1).env.at("LABEL"), std::string("a b"));

    type(editor->findChild<QLineEdit*>(u"commandCheck"_s), u"true"_s);
    QCOMPARE(armSpec(doc, 1).check, std::string("true"));

    type(editor->findChild<QLineEdit*>(u"commandCwd"_s), QDir::tempPath());
    QCOMPARE(armSpec(doc, 1).cwd, QDir::tempPath().toStdString());

    auto* timeout = editor->findChild<QDoubleSpinBox*>(u"commandTimeout"_s);
    timeout->setValue(12.5);
    emit timeout->editingFinished();
    QCOMPARE(armSpec(doc, 1).timeout_s, 12.5);
    QVERIFY(editor->lastRefusal().isEmpty());

    // Every field is one undo step (edits of one arm merge); undo brings the arm back.
    while (doc.undoStack()->canUndo())
        doc.undoStack()->undo();
    QCOMPARE(armSpec(doc, 1).cmd, before);
    QVERIFY(armSpec(doc, 1).env.empty());
    QCOMPARE(armSpec(doc, 1).timeout_s, 30.0);
}

void TestCommandArmEditor::badInputIsRefusedWithTheReason()
{
    StudyDocument doc;
    commandStudy(doc);
    AbPage page(&doc, nullptr, nullptr);
    page.show();
    page.refresh();
    auto* editor = page.commandArmEditor();
    auto* refusal = editor->findChild<QLabel*>(u"commandRefusal"_s);

    type(editor->findChild<QLineEdit*>(u"commandEnv"_s), u"NOEQUALS"_s);
    QVERIFY2(editor->lastRefusal().contains(u"NOEQUALS"_s), qPrintable(editor->lastRefusal()));
    QVERIFY(refusal->isVisible());
    QVERIFY(armSpec(doc, 0).env.empty());
    type(editor->findChild<QLineEdit*>(u"commandEnv"_s), QString());

    type(editor->findChild<QLineEdit*>(u"commandLine"_s), QString());
    QVERIFY2(editor->lastRefusal().contains(u"command.cmd is empty"_s), qPrintable(editor->lastRefusal()));
    QVERIFY(!armSpec(doc, 0).cmd.empty());

    type(editor->findChild<QLineEdit*>(u"commandCwd"_s), u"/nonexistent/kwb-dir"_s);
    QVERIFY2(editor->lastRefusal().contains(u"not a directory"_s), qPrintable(editor->lastRefusal()));
    QVERIFY(armSpec(doc, 0).cwd.empty());
    QVERIFY(!doc.undoStack()->canUndo()); // nothing refused reached the study

    // A valid edit clears the refusal.
    type(editor->findChild<QLineEdit*>(u"commandCwd"_s), QString());
    type(editor->findChild<QLineEdit*>(u"commandLine"_s),
        QString::fromStdString(standin(u"--format gbench --mean 3"_s)));
    QVERIFY(editor->lastRefusal().isEmpty());
    QVERIFY(!refusal->isVisible());
}

void TestCommandArmEditor::adapterAndMetricApplyToBothArms()
{
    StudyDocument doc;
    commandStudy(doc);
    AbPage page(&doc, nullptr, nullptr);
    page.show();
    page.refresh();
    auto* editor = page.commandArmEditor();
    auto* adapter = editor->findChild<QComboBox*>(u"commandAdapter"_s);
    adapter->setCurrentText(u"gbench"_s);
    emit adapter->activated(adapter->currentIndex());
    QCOMPARE(armSpec(doc, 0).adapter, std::string("gbench"));
    QCOMPARE(armSpec(doc, 1).adapter, std::string("gbench"));

    // The metric list offers the adapter's keys; choosing one re-targets the experiment and the
    // target that named the old metric.
    auto* metric = editor->findChild<QComboBox*>(u"commandMetric"_s);
    QVERIFY(metric->findText(u"time_ms"_s) >= 0);
    QVERIFY(metric->findText(u"cpu_time_ms"_s) >= 0 || metric->findText(u"cpu_time"_s) >= 0);
    metric->setCurrentText(u"ttft_ms"_s);
    emit metric->activated(metric->currentIndex());
    QCOMPARE(doc.study().experiments[0].metric, std::string("ttft_ms"));
    QCOMPARE(doc.study().target.metric, std::string("ttft_ms"));
    doc.undoStack()->undo();
    QCOMPARE(doc.study().experiments[0].metric, std::string("time_ms"));
    QCOMPARE(doc.study().target.metric, std::string("time_ms"));
}

void TestCommandArmEditor::testOnceShowsWhatTheAdapterRead()
{
    StudyDocument doc;
    commandStudy(doc);
    CommandArmEditor editor(&doc);
    editor.showExperiment(0);
    QSignalSpy done(&editor, &CommandArmEditor::testFinished);
    editor.findChild<QPushButton*>(u"commandTestOnce"_s)->click();
    QVERIFY(done.wait(30000));
    QCOMPARE(done.first().first().toBool(), true);
    const QString text = editor.testResult();
    // gbench writes real_time 2000 us: the adapter reads time_ms = 2.
    QVERIFY2(text.contains(u"The gbench adapter read time_ms = 2 "_s), qPrintable(text));
    QVERIFY2(text.contains(u"cpu_time_ms = 2"_s), qPrintable(text));
    QVERIFY(doc.study().experiments[0].samples.empty()); // a test is not a repetition of the study

    // A metric the adapter does not produce is named as missing, not shown as a number.
    doc.mutableStudy().experiments[0].metric = "ttft_ms";
    editor.showExperiment(0);
    editor.testOnce();
    QVERIFY(done.wait(30000));
    QCOMPARE(done.last().first().toBool(), false);
    QVERIFY2(editor.testResult().contains(u"read no ttft_ms"_s), qPrintable(editor.testResult()));
}

void TestCommandArmEditor::testOnceShowsWhyNothingWasRead_data()
{
    QTest::addColumn<QString>("args");
    QTest::addColumn<double>("timeout");
    QTest::addColumn<QString>("reason");
    QTest::addRow("non-zero exit") << u"--format gbench --exit 4"_s << 30.0 << u"exit"_s;
    QTest::addRow("garbage") << u"--format garbage"_s << 30.0 << u"no adapter recognises"_s;
    QTest::addRow("timeout") << u"--format gbench --sleep 20"_s << 0.5 << u"timed out"_s;
    QTest::addRow("empty result file") << u"--format empty --out {out}"_s << 30.0 << u"missing or empty"_s;
}

void TestCommandArmEditor::testOnceShowsWhyNothingWasRead()
{
    QFETCH(QString, args);
    QFETCH(double, timeout);
    QFETCH(QString, reason);
    StudyDocument doc;
    commandStudy(doc);
    doc.mutableStudy().experiments[0].arms[0].command->cmd = standin(args);
    doc.mutableStudy().experiments[0].arms[0].command->timeout_s = timeout;
    CommandArmEditor editor(&doc);
    editor.showExperiment(0);
    QSignalSpy done(&editor, &CommandArmEditor::testFinished);
    editor.testOnce();
    QVERIFY(done.wait(30000));
    QCOMPARE(done.first().first().toBool(), false);
    const QString text = editor.testResult();
    QVERIFY2(text.startsWith(u"Read nothing: "_s), qPrintable(text));
    QVERIFY2(text.contains(reason, Qt::CaseInsensitive), qPrintable(text));
    QVERIFY2(!text.contains(u'\n'), qPrintable(text)); // one line
}

void TestCommandArmEditor::testOnceRunsOffTheGuiThread()
{
    StudyDocument doc;
    commandStudy(doc);
    doc.mutableStudy().experiments[0].arms[0].command->cmd = standin(u"--format gbench --sleep 1"_s);
    CommandArmEditor editor(&doc);
    editor.showExperiment(0);
    QSignalSpy done(&editor, &CommandArmEditor::testFinished);
    bool ticked = false;
    editor.testOnce();
    QVERIFY(editor.isTesting());
    QVERIFY(!editor.findChild<QPushButton*>(u"commandTestOnce"_s)->isEnabled());
    // The event loop keeps turning while the command sleeps: a timer fires before the result.
    QTimer::singleShot(50, this, [&] { ticked = !editor.isTesting() ? false : true; });
    QVERIFY(done.wait(30000));
    QVERIFY(ticked);
    QVERIFY(!editor.isTesting());
    QVERIFY(editor.findChild<QPushButton*>(u"commandTestOnce"_s)->isEnabled());
}

void TestCommandArmEditor::testOnceSaysWhenKwbIsMissing()
{
    StudyDocument doc;
    commandStudy(doc);
    CommandArmEditor editor(&doc);
    editor.showExperiment(0);
    QSignalSpy done(&editor, &CommandArmEditor::testFinished);
    qputenv("KWB_PROGRAM", "/nonexistent/kwb");
    editor.testOnce();
    qputenv("KWB_PROGRAM", KWB_TEST_KWB);
    QVERIFY(done.wait(30000));
    QCOMPARE(done.first().first().toBool(), false);
    QVERIFY2(editor.testResult().contains(u"/nonexistent/kwb could not be started"_s), qPrintable(editor.testResult()));
    QVERIFY(!editor.isTesting());
}

QTEST_MAIN(TestCommandArmEditor)
#include "tst_command_arm_editor.moc"
