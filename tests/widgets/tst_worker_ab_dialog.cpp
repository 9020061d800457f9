// SPDX-License-Identifier: GPL-3.0-or-later
// File > New worker A/B offscreen, on the fake worker (tests/engine/workloads/fake_worker.cpp): Create
// asks kwb new (the worker described, its parameters checked), the window keeps turning meanwhile,
// the study comes back with the worker arms kwb wrote; kwb's refusal is shown in its own words and
// the dialog stays open. The A/B page's worker-arm editor on the study it made: its fields edit the
// arm through the undo stack, bad input is refused in the engine's words, and Test once asks
// `kwb test-arm --worker-json -` (check and one launch) and shows what came back.
#include "models/study_document.h"
#include "pages/ab_page.h"
#include "pages/command_arm_editor.h"
#include "pages/worker_ab_dialog.h"
#include "pages/worker_arm_editor.h"

#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

void type(WorkerAbDialog& d, const char* field, const QString& text)
{
    auto* edit = d.findChild<QLineEdit*>(QString::fromLatin1(field));
    QVERIFY(edit);
    edit->setText(text);
}

void typeInto(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    edit->setText(text);
    emit edit->editingFinished();
    edit->clearFocus();
}

// A worker A/B as kwb new --worker writes it, made through the dialog.
bool workerStudy(StudyDocument& doc)
{
    WorkerAbDialog d;
    type(d, "workerAbCommand", QStringLiteral(KWB_FAKE_WORKER) + u" --reference"_s);
    type(d, "workerAbVary", u"work=1,3"_s);
    QSignalSpy done(&d, &WorkerAbDialog::createFinished);
    d.create();
    if (!done.wait(60000) || !done.first().first().toBool())
        return false;
    doc.newStudy();
    doc.mutableStudy() = d.study();
    emit doc.changed();
    return true;
}

const WorkerSpec& armWorker(const StudyDocument& doc, int arm)
{
    return *doc.study().experiments.at(0).arms.at(static_cast<size_t>(arm)).worker;
}

} // namespace

class TestWorkerAbDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("KWB_PROGRAM", KWB_TEST_KWB);
    }

    void createAsksKwbNew()
    {
        WorkerAbDialog d;
        type(d, "workerAbCommand", QStringLiteral(KWB_FAKE_WORKER));
        type(d, "workerAbParams", u"variant=b"_s);
        type(d, "workerAbVary", u"work=1,3"_s);
        d.findChild<QSpinBox*>(u"workerAbRuns"_s)->setValue(6);
        QSignalSpy done(&d, &WorkerAbDialog::createFinished);
        d.findChild<QPushButton*>(u"workerAbCreate"_s)->click();
        QVERIFY(d.isCreating()); // kwb runs as a child; the event loop turns
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().first().toBool(), qPrintable(d.lastError()));
        QCOMPARE(d.result(), int(QDialog::Accepted));
        const Study& s = d.study();
        QCOMPARE(s.experiments.size(), size_t {1});
        const Experiment& e = s.experiments.front();
        QCOMPARE(e.workload, std::string("worker"));
        QCOMPARE(e.plan.runs_per_arm, 6);
        QCOMPARE(e.arms.size(), size_t {2});
        QVERIFY(e.arms[0].worker && e.arms[1].worker);
        QCOMPARE(e.arms[0].worker->description.worker, std::string("fake-normal"));
        QCOMPARE(e.arms[1].params.at("work").get<int>(), 3);
        QCOMPARE(e.arms[0].params.at("variant").get<std::string>(), std::string("b"));
    }

    void refusalsStayOpen()
    {
        WorkerAbDialog d;
        QSignalSpy done(&d, &WorkerAbDialog::createFinished);
        // Nothing to run: said at once, without kwb.
        d.create();
        QCOMPARE(done.size(), 1);
        QVERIFY(d.lastError().startsWith(u"Worker command"_s));
        // A parameter the worker does not describe: kwb new's own line.
        type(d, "workerAbCommand", QStringLiteral(KWB_FAKE_WORKER));
        type(d, "workerAbVary", u"blocks=1,2"_s);
        d.create();
        QVERIFY(done.wait(60000));
        QCOMPARE(done.last().first().toBool(), false);
        QVERIFY2(d.lastError().contains(u"blocks"_s), qPrintable(d.lastError()));
        QVERIFY(!d.lastError().startsWith(u"kwb: "_s));
        QVERIFY(d.result() != int(QDialog::Accepted));
        QVERIFY(d.findChild<QPushButton*>(u"workerAbCreate"_s)->isEnabled());
    }

    void abPageShowsTheWorkerEditor()
    {
        StudyDocument doc;
        QVERIFY(workerStudy(doc));
        AbPage page(&doc, nullptr, nullptr);
        page.show();
        page.refresh();
        auto* editor = page.workerArmEditor();
        QVERIFY(editor->isVisible());
        QVERIFY(!page.commandArmEditor()->isVisible());
        QCOMPARE(
            editor->findChild<QLineEdit*>(u"workerCommand"_s)->text(), QString::fromStdString(armWorker(doc, 0).cmd));
        // What the worker described when kwb new started it.
        const QString described = editor->findChild<QLabel*>(u"workerDescribed"_s)->text();
        QVERIFY2(described.contains(u"fake-normal"_s) && described.contains(u"work"_s), qPrintable(described));
        doc.newStudy();
        page.refresh();
        QVERIFY(!editor->isVisible());
    }

    void fieldsEditTheArmAndUndo()
    {
        StudyDocument doc;
        QVERIFY(workerStudy(doc));
        WorkerArmEditor editor(&doc);
        editor.showExperiment(0);
        editor.setArmIndex(1);
        const std::string before = armWorker(doc, 1).cmd;
        typeInto(editor.findChild<QLineEdit*>(u"workerCommand"_s), QStringLiteral(KWB_FAKE_WORKER));
        QCOMPARE(armWorker(doc, 1).cmd, std::string(KWB_FAKE_WORKER));
        QCOMPARE(armWorker(doc, 0).cmd, before); // the other arm is not touched
        typeInto(editor.findChild<QLineEdit*>(u"workerEnv"_s), u"OMP_NUM_THREADS=1"_s);
        QCOMPARE(armWorker(doc, 1).env.at("OMP_NUM_THREADS"), std::string("1"));
        auto* rtol = editor.findChild<QDoubleSpinBox*>(u"workerRtol"_s);
        rtol->setValue(0.01);
        emit rtol->editingFinished();
        QCOMPARE(armWorker(doc, 1).rtol, 0.01);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(armWorker(doc, 1).cmd, before);
        QVERIFY(armWorker(doc, 1).env.empty());

        // Refused in the engine's words, the study unchanged.
        typeInto(editor.findChild<QLineEdit*>(u"workerCwd"_s), u"/no/such/folder"_s);
        QVERIFY2(editor.lastRefusal().contains(u"worker.cwd"_s), qPrintable(editor.lastRefusal()));
        QVERIFY(armWorker(doc, 1).cwd.empty());
        typeInto(editor.findChild<QLineEdit*>(u"workerEnv"_s), u"NOTKV"_s);
        QVERIFY2(editor.lastRefusal().contains(u"not K=V"_s), qPrintable(editor.lastRefusal()));
        typeInto(editor.findChild<QLineEdit*>(u"workerCommand"_s), QString());
        QVERIFY2(editor.lastRefusal().contains(u"worker.cmd is empty"_s), qPrintable(editor.lastRefusal()));
    }

    void testOnceChecksAndTimesTheArm()
    {
        StudyDocument doc;
        QVERIFY(workerStudy(doc));
        WorkerArmEditor editor(&doc);
        editor.showExperiment(0);
        QSignalSpy done(&editor, &WorkerArmEditor::testFinished);
        editor.findChild<QPushButton*>(u"workerTestOnce"_s)->click();
        QVERIFY(editor.isTesting()); // kwb runs as a child; the event loop turns
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().first().toBool(), qPrintable(editor.testResult()));
        QVERIFY2(editor.testResult().contains(u"Check passed"_s), qPrintable(editor.testResult()));
        QVERIFY2(editor.testResult().contains(u"time_ms = "_s), qPrintable(editor.testResult()));
        QVERIFY(doc.study().experiments[0].samples.empty()); // a test is not a repetition

        // An unsaved edit is what is tested: a worker whose output is wrong fails its check.
        editor.setArmIndex(1);
        typeInto(editor.findChild<QLineEdit*>(u"workerCommand"_s),
            QStringLiteral(KWB_FAKE_WORKER) + u" --mode wrong --reference"_s);
        editor.testOnce();
        QVERIFY(done.wait(60000));
        QCOMPARE(done.last().first().toBool(), false);
        QVERIFY2(editor.testResult().startsWith(u"Not usable"_s), qPrintable(editor.testResult()));
        QVERIFY2(editor.testResult().contains(u"check"_s), qPrintable(editor.testResult()));

        // A worker that does not start: why, in one line.
        typeInto(editor.findChild<QLineEdit*>(u"workerCommand"_s), u"/no/such/worker"_s);
        editor.testOnce();
        QVERIFY(done.wait(60000));
        QCOMPARE(done.last().first().toBool(), false);
        QVERIFY2(editor.testResult().startsWith(u"Not usable"_s), qPrintable(editor.testResult()));
    }
};

QTEST_MAIN(TestWorkerAbDialog)
#include "tst_worker_ab_dialog.moc"
