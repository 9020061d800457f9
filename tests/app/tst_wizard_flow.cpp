// SPDX-License-Identifier: GPL-3.0-or-later
// A new user, the window alone: File > New, then phase by phase to a verdict through the real
// `kwb run` child, offscreen. Every gate that locks Run is met by filling its page, never by
// writing JSON; each step asserts what landed in the study.
#include "main_window.h"
#include "models/device_probe.h"
#include "models/run_controller.h"
#include "pages/ab_page.h"
#include "pages/verdict_page.h"
#include "study/gates.h"
#include "study/study_file.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
const QString kKwb = QStringLiteral(KWB_BIN_DIR "/kwb");
constexpr int kRunTimeout = 300000; // 2 shared cores, other suites in parallel

void type(QWidget* page, const QString& name, const QString& text)
{
    auto* edit = page->findChild<QLineEdit*>(name);
    QVERIFY2(edit, qPrintable(name));
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, text);
    emit edit->editingFinished();
    edit->clearFocus();
}

void choose(QWidget* page, const QString& name, const QString& text, bool byData = false)
{
    auto* box = page->findChild<QComboBox*>(name);
    QVERIFY2(box, qPrintable(name));
    const int i = byData ? box->findData(text) : box->findText(text);
    QVERIFY2(i >= 0, qPrintable(text));
    box->setCurrentIndex(i);
    emit box->activated(i);
}

int rowOf(QTableWidget* table, const QString& name)
{
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == name)
            return r;
    return -1;
}
} // namespace

class TestWizardFlow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("KWB_PROGRAM", kKwb.toUtf8());
    }
    void emptyStudyToAVerdictInTheWindow();
};

void TestWizardFlow::emptyStudyToAVerdictInTheWindow()
{
    QTemporaryDir dir;
    qputenv("XDG_STATE_HOME", dir.filePath(u"state"_s).toUtf8()); // the A/A history stays in the test
    MainWindow w;
    w.setLeaveAsker([](LeaveQuestion) { return LeaveAnswer::Discard; });
    w.setRestoreAsker([](const QString&) { return false; });
    w.resize(1280, 800);
    w.show();
    w.findChild<QAction*>(u"newAction"_s)->trigger();
    auto* run = w.findChild<QAction*>(u"runAction"_s);
    QVERIFY(!run->isEnabled());
    QVERIFY(run->toolTip().contains(u"Locked"_s));

    // Phase 1 (Ctrl+1).
    w.findChild<QAction*>(u"goPhase1"_s)->trigger();
    QCOMPARE(w.currentView(), u"1"_s);
    QWidget* target = w.findChild<QWidget*>(u"targetPage"_s);
    target->findChild<QComboBox*>(u"targetWorkload"_s)->setCurrentText(u"gemm"_s);
    choose(target, u"targetMetric"_s, u"time_ms"_s, true);
    type(target, u"targetCurrent"_s, u"30"_s);
    type(target, u"targetGoal"_s, u"20"_s);
    type(target, u"targetKernel"_s, u"fp32 gemm 128^3"_s);
    type(target, u"targetReference"_s, u"naive triple loop"_s);
    type(target, u"targetW"_s, u"one 128^3 shape"_s);
    QVERIFY(kwb::target_gate(w.document()->study().target).met);

    // Phase 2: record the machine's sheet.
    w.findChild<QAction*>(u"goPhase2"_s)->trigger();
    QVERIFY(w.deviceProbe()->waitForFinished(60000));
    QTRY_VERIFY(w.findChild<QPushButton*>(u"recordHardware"_s)->isEnabled());
    QTest::mouseClick(w.findChild<QPushButton*>(u"recordHardware"_s), Qt::LeftButton);
    QVERIFY(!w.document()->study().hardware.devices.empty());

    // Phase 5: the A/B.
    w.findChild<QAction*>(u"goPhase5"_s)->trigger();
    AbPage* ab = w.abPage();
    ab->findChild<QComboBox*>(u"abWorkload"_s)->setCurrentText(u"gemm"_s);
    QTest::mouseClick(ab->findChild<QPushButton*>(u"createAb"_s), Qt::LeftButton);
    QCOMPARE(w.document()->study().experiments.size(), size_t(1));
    choose(ab, u"abVaried"_s, u"block"_s);
    auto* arms = ab->findChild<QTableWidget*>(u"armsTable"_s);
    arms->item(rowOf(arms, u"size"_s), 1)->setText(u"128"_s);
    arms->item(rowOf(arms, u"block"_s), 1)->setText(u"16"_s);
    arms->item(rowOf(arms, u"block"_s), 2)->setText(u"64"_s);
    auto* runs = ab->findChild<QSpinBox*>(u"abRuns"_s);
    runs->setValue(3);
    emit runs->editingFinished();
    // The controls the engine cannot measure are the user's to tick.
    auto* controls = ab->findChild<QTableWidget*>(u"controlsTable"_s);
    for (int r = 0; r < controls->rowCount(); ++r)
        if (controls->item(r, 0)->flags() & Qt::ItemIsUserCheckable)
            controls->item(r, 0)->setCheckState(Qt::Checked);
    const kwb::Experiment& e = w.document()->study().experiments[0];
    QVERIFY(e.arms[0].params.at("size") == nlohmann::json(128));
    QVERIFY(e.arms[1].params.at("size") == nlohmann::json(128));
    QVERIFY(e.arms[1].params.at("block") == nlohmann::json(64));
    QCOMPARE(e.plan.runs_per_arm, 4); // 3 rounded up to whole ABBA blocks (study/plan_limits.h)
    // The real A/A: the check box adds the baseline again as a third arm.
    auto* aaBox = ab->findChild<QCheckBox*>(u"abAaArm"_s);
    QVERIFY(aaBox && aaBox->isEnabled() && !aaBox->isChecked());
    aaBox->setChecked(true);
    QCOMPARE(w.document()->study().experiments[0].arms.size(), size_t(3));
    QCOMPARE(w.document()->study().experiments[0].arms[2].role, std::string("aa"));
    QVERIFY(kwb::controls_gate(e.controls).met);
    // Still locked: phase 4's prediction.
    QVERIFY(!w.runBlockedReason().isEmpty());
    QVERIFY2(w.runBlockedReason().startsWith(u"prediction"_s), qPrintable(w.runBlockedReason()));
    QVERIFY(ab->findChild<QPushButton*>(u"abStart"_s)->toolTip().contains(u"no formula, no run"_s));

    // Phase 4 (Ctrl+4): the prediction is the formula's, typed on the formula page. First a typo:
    // the error names the unknown variable, nothing is predicted, Run stays locked.
    w.findChild<QAction*>(u"goPhase4"_s)->trigger();
    QCOMPARE(w.currentView(), u"4"_s);
    QWidget* formula = w.findChild<QWidget*>(u"formulaPage"_s);
    auto* formulaEdit = formula->findChild<QLineEdit*>(u"formulaEdit"_s);
    QVERIFY(!formulaEdit->toolTip().isEmpty());
    formulaEdit->setFocus();
    QTest::keyClicks(formulaEdit, u"100 * (1 - baseline_block / treatmnt_block) / 4"_s);
    QVERIFY(!w.document()->study().prediction.predicted_delta_pct);
    QVERIFY(formula->findChild<QLabel*>(u"formulaError"_s)->text().contains(u"treatmnt_block"_s));
    QVERIFY2(w.runBlockedReason().startsWith(u"prediction"_s), qPrintable(w.runBlockedReason()));
    // Fixed: block 16 -> 64 predicts 100 * (1 - 16/64) / 4 = 18.75 %, from the arms' own values.
    formulaEdit->selectAll();
    QTest::keyClicks(formulaEdit, u"100 * (1 - baseline_block / treatment_block) / 4"_s);
    formulaEdit->clearFocus();
    const kwb::Prediction& p = w.document()->study().prediction;
    QCOMPARE(QString::fromStdString(p.formula), u"100 * (1 - baseline_block / treatment_block) / 4"_s);
    QVERIFY(p.predicted_delta_pct && qAbs(*p.predicted_delta_pct - 18.75) < 1e-9);
    QVERIFY2(formula->findChild<QLabel*>(u"predicted"_s)->text().contains(u"+18.75"_s),
        qPrintable(formula->findChild<QLabel*>(u"predicted"_s)->text()));
    type(formula, u"rationale"_s, u"fewer passes over A and B per FLOP"_s);
    QCOMPARE(p.rationale, std::string("fewer passes over A and B per FLOP"));
    QVERIFY2(w.runBlockedReason().isEmpty(), qPrintable(w.runBlockedReason()));
    QVERIFY(run->isEnabled());
    // The typing was one undo step with its predicted value: undo locks Run again, redo frees it.
    w.document()->undoStack()->undo(); // the rationale
    w.document()->undoStack()->undo(); // the formula
    QVERIFY(!w.document()->study().prediction.predicted_delta_pct);
    QVERIFY(!run->isEnabled());
    w.document()->undoStack()->redo();
    w.document()->undoStack()->redo();
    QVERIFY(w.document()->study().prediction.predicted_delta_pct);
    QCOMPARE(formulaEdit->text(), u"100 * (1 - baseline_block / treatment_block) / 4"_s);
    QVERIFY(run->isEnabled());

    // Phase 7: one named sacrifice.
    w.findChild<QAction*>(u"goPhase7"_s)->trigger();
    auto* axes = w.findChild<QTableWidget*>(u"tradeoffTable"_s);
    axes->item(1, 1)->setCheckState(Qt::Checked);
    axes->item(1, 2)->setText(u"block tuned for this CPU's L2"_s);
    QVERIFY(kwb::tradeoff_named(w.document()->study().tradeoffs));

    // Save (the dialog is the user's; offscreen the path is given) and Start.
    QVERIFY(w.document()->saveAs(dir.filePath(u"flow.json"_s)));
    QTest::mouseClick(ab->findChild<QPushButton*>(u"abStart"_s), Qt::LeftButton);
    QVERIFY2(w.runController()->isRunning(), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));

    // Phase 8: a verdict, every gate met when it ran, a ledger entry.
    w.findChild<QAction*>(u"goPhase8"_s)->trigger();
    const kwb::Study& study = w.document()->study();
    const kwb::Experiment& done = study.experiments.at(0);
    QCOMPARE(done.status, kwb::ExperimentStatus::Done);
    QVERIFY(done.final_verdict.has_value());
    QVERIFY2(done.missing_gates.size() == 1, "only phase 3's binding constraint was skipped");
    QVERIFY(w.verdictPage()->gatesText().contains(u"binding"_s));
    QCOMPARE(w.verdictPage()->finalVerdict(), QString::fromLatin1(kwb::to_string(done.final_verdict->word)));
    QVERIFY(!w.verdictPage()->finalVerdict().isEmpty());
    QCOMPARE(study.ledger.size(), size_t(1));
    // The A/A arm's verdict beside the A/B's, and this device's A/A history (a private one).
    QVERIFY(done.aa_verdict.has_value());
    QVERIFY2(w.verdictPage()->aaText().startsWith(u"A/A at n = 4: "_s), qPrintable(w.verdictPage()->aaText()));
    QVERIFY2(w.verdictPage()->aaHistoryText().startsWith(u"A/A history on "_s),
        qPrintable(w.verdictPage()->aaHistoryText()));
    const kwb::Study onDisk = kwb::load_study(QFile::encodeName(dir.filePath(u"flow.json"_s)).toStdString());
    QVERIFY(onDisk.experiments.at(0).final_verdict
        && onDisk.experiments.at(0).final_verdict->word == done.final_verdict->word);
    QCOMPARE(onDisk.experiments.at(0).final_verdict->reasons, done.final_verdict->reasons);
}

QTEST_MAIN(TestWizardFlow)
#include "tst_wizard_flow.moc"
