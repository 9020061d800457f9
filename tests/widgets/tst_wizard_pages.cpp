// SPDX-License-Identifier: GPL-3.0-or-later
// The editable phase pages, driven offscreen by objectName: every edit lands in the study through
// an undo command, and every gate the pages show is the engine's (study/gates.h).
#include "models/device_probe.h"
#include "models/study_document.h"
#include "pages/ab_page.h"
#include "pages/hardware_page.h"
#include "pages/target_page.h"
#include "pages/tradeoff_page.h"
#include "pages/verdict_page.h"
#include "run/aa_history.h"
#include "study/arm_roles.h"
#include "study/gates.h"
#include "verdict/metric_diff.h"
#include "verdict/verdict.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

class TestWizardPages : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void targetPageFillsTheTargetAndUndoes();
    void tradeoffPageAgreesWithTheVerdict();
    void abPageBuildsASingleVariableAb();
    void cpuStudyGetsTheCpuSheet();
    void verdictPageShowsTheMissingGates();
    void verdictPageShowsTheDevicesAaHistory();
    void verdictPageShowsTheMetricDiff();
    void autosaveRestoresAfterACrash();

private:
    static void type(QLineEdit* edit, const QString& text)
    {
        edit->setFocus();
        edit->selectAll();
        QTest::keyClicks(edit, text);
        emit edit->editingFinished();
        edit->clearFocus();
    }
};

void TestWizardPages::targetPageFillsTheTargetAndUndoes()
{
    StudyDocument doc;
    doc.newStudy();
    TargetPage page(&doc);
    page.show();
    page.refresh();
    auto* gate = page.findChild<QLabel*>(u"targetGate"_s);
    QVERIFY(gate->text().contains(u"no metric"_s));

    auto* workload = page.findChild<QComboBox*>(u"targetWorkload"_s);
    workload->setCurrentText(u"gemm"_s);
    auto* metric = page.findChild<QComboBox*>(u"targetMetric"_s);
    const int timeMs = metric->findData(u"time_ms"_s);
    QVERIFY(timeMs >= 0);
    metric->setCurrentIndex(timeMs);
    emit metric->activated(timeMs);
    QCOMPARE(doc.study().target.metric, std::string("time_ms"));
    QCOMPARE(doc.study().target.unit, std::string("ms"));
    QCOMPARE(doc.study().target.direction, Direction::Lower);

    type(page.findChild<QLineEdit*>(u"targetCurrent"_s), u"30"_s);
    QVERIFY(gate->text().contains(u"from X to Y"_s)); // one number is not a target
    type(page.findChild<QLineEdit*>(u"targetGoal"_s), u"20"_s);
    type(page.findChild<QLineEdit*>(u"targetKernel"_s), u"fp32 gemm 512^3 row-major"_s);
    type(page.findChild<QLineEdit*>(u"targetReference"_s), u"naive triple loop"_s);
    type(page.findChild<QLineEdit*>(u"targetW"_s), u"one 512^3 shape"_s);
    QCOMPARE(doc.study().target.current, std::optional<double>(30));
    QCOMPARE(doc.study().target.goal, std::optional<double>(20));
    QVERIFY(target_gate(doc.study().target).met && krw_gate(doc.study().target).met);
    QVERIFY(gate->text().contains(u"Target complete"_s));

    // Every edit is one undo step.
    doc.undoStack()->undo(); // W
    doc.undoStack()->undo(); // R
    doc.undoStack()->undo(); // K
    doc.undoStack()->undo(); // goal
    QVERIFY(!doc.study().target.goal);
    QCOMPARE(doc.study().target.current, std::optional<double>(30));
    QVERIFY(page.findChild<QLineEdit*>(u"targetGoal"_s)->text().isEmpty());
    doc.undoStack()->redo();
    QCOMPARE(doc.study().target.goal, std::optional<double>(20));

    // Issue 31: the study's name is editable, and every page's heading says it.
    auto* name = page.findChild<QLineEdit*>(u"studyName"_s);
    QCOMPARE(name->text(), QString::fromStdString(doc.study().name));
    type(name, u"gemm block 32 vs 128"_s);
    QCOMPARE(doc.study().name, std::string("gemm block 32 vs 128"));
    QCOMPARE(page.findChild<QLabel*>(u"pageStudyName"_s)->text(), u"gemm block 32 vs 128"_s);
    type(name, u"  "_s); // a study keeps a name
    QCOMPARE(doc.study().name, std::string("gemm block 32 vs 128"));
    QCOMPARE(name->text(), u"gemm block 32 vs 128"_s);
    doc.undoStack()->undo();
    QCOMPARE(page.findChild<QLabel*>(u"pageStudyName"_s)->text(), QString::fromStdString(doc.study().name));
}

void TestWizardPages::tradeoffPageAgreesWithTheVerdict()
{
    StudyDocument doc;
    doc.newStudy();
    TradeoffPage page(&doc);
    page.show();
    page.refresh();
    auto* table = page.findChild<QTableWidget*>(u"tradeoffTable"_s);
    QCOMPARE(table->rowCount(), 8);

    // Tick "generality" without saying what was given up: the page once called this named.
    const int row = static_cast<int>(
        std::find(tradeoff_axes().begin(), tradeoff_axes().end(), "generality") - tradeoff_axes().begin());
    table->item(row, 1)->setCheckState(Qt::Checked);
    QVERIFY(doc.study().tradeoffs.at(static_cast<size_t>(row)).sacrificed);
    const Profile profile = make_profile("generic", Direction::Lower);
    const SampleVerdict license = judge_samples({10, 10.1, 9.9, 10.05}, {5, 5.05, 4.95, 5.02}, profile, false);
    StudyRulesInput input;
    input.tradeoffs = doc.study().tradeoffs;
    FinalVerdict final = apply_study_rules(license, input, profile);
    QCOMPARE(page.gateMet(), final.tradeoff_named);
    QVERIFY(!page.gateMet());
    QVERIFY(page.summary().contains(QString::fromStdString(tradeoff_gate_reason())));

    table->item(row, 2)->setText(u"gemm-only tiling: other shapes keep the old path"_s);
    input.tradeoffs = doc.study().tradeoffs;
    final = apply_study_rules(license, input, profile);
    QVERIFY(page.gateMet());
    QCOMPARE(page.gateMet(), final.tradeoff_named);
    QCOMPARE(final.word, VerdictWord::License);
    QVERIFY(page.summary().contains(u"named sacrifice"_s));
}

void TestWizardPages::abPageBuildsASingleVariableAb()
{
    StudyDocument doc;
    doc.newStudy();
    AbPage page(&doc, nullptr, nullptr);
    page.show();
    page.refresh();
    auto* start = page.findChild<QPushButton*>(u"abStart"_s);
    QVERIFY(!start->isEnabled());
    QVERIFY(start->toolTip().contains(u"no experiment"_s));

    page.findChild<QComboBox*>(u"abWorkload"_s)->setCurrentText(u"gemm"_s);
    QTest::mouseClick(page.findChild<QPushButton*>(u"createAb"_s), Qt::LeftButton);
    QCOMPARE(doc.study().experiments.size(), size_t(1));
    const Experiment& e = doc.study().experiments[0];
    QCOMPARE(e.workload, std::string("gemm"));
    QCOMPARE(e.arms.size(), size_t(2));
    QCOMPARE(e.controls.checklist.size(), standard_controls().size());
    QVERIFY(!start->isEnabled());
    QVERIFY2(start->toolTip().contains(u"target"_s), qPrintable(start->toolTip())); // phase 1 first

    // Vary block; set the treatment's block.
    auto* varied = page.findChild<QComboBox*>(u"abVaried"_s);
    const int block = varied->findText(u"block"_s);
    QVERIFY(block >= 0);
    varied->setCurrentIndex(block);
    emit varied->activated(block);
    QCOMPARE(page.variedParameter(), u"block"_s);
    auto* arms = page.findChild<QTableWidget*>(u"armsTable"_s);
    const auto rowOf = [&](const QString& name) {
        for (int r = 0; r < arms->rowCount(); ++r)
            if (arms->item(r, 0)->text() == name)
                return r;
        return -1;
    };
    arms->item(rowOf(u"block"_s), 2)->setText(u"128"_s);
    QVERIFY(doc.study().experiments[0].arms[1].params.at("block") == nlohmann::json(128));
    QVERIFY(page.findChild<QLabel*>(u"armDiff"_s)->text().contains(u"only block differs"_s));
    {
        // Issue 31: New A/B keeps what the page showed (block), not the workload's first parameter.
        StudyDocument other;
        other.newStudy();
        other.mutableStudy().experiments = doc.study().experiments;
        Sample sample;
        sample.arm = "baseline";
        sample.metrics["time_ms"] = 1;
        other.mutableStudy().experiments[0].samples.push_back(sample);
        AbPage again(&other, nullptr, nullptr);
        again.show();
        again.refresh();
        QCOMPARE(again.variedParameter(), u"block"_s);
        QTest::mouseClick(again.findChild<QPushButton*>(u"createAb"_s), Qt::LeftButton);
        QCOMPARE(other.study().experiments.size(), size_t(2));
        QCOMPARE(again.variedParameter(), u"block"_s);
        QCOMPARE(again.findChild<QComboBox*>(u"abVaried"_s)->currentText(), u"block"_s);
    }

    // A second changed variable is refused, and the study keeps one.
    const nlohmann::json before = doc.study().experiments[0].arms[1].params;
    arms->item(rowOf(u"threads"_s), 2)->setText(u"2"_s);
    QVERIFY(doc.study().experiments[0].arms[1].params == before);
    QVERIFY(page.lastRefusal().contains(u"second changed variable"_s));
    // A shared parameter goes to both arms.
    arms->item(rowOf(u"size"_s), 1)->setText(u"256"_s);
    QVERIFY(doc.study().experiments[0].arms[0].params.at("size") == nlohmann::json(256));
    QVERIFY(doc.study().experiments[0].arms[1].params.at("size") == nlohmann::json(256));

    // Target and prediction unlock Start.
    doc.edit(u"target"_s, [](Study& s) {
        s.target = {"time_ms", Direction::Lower, "ms", 30.0, 20.0, "", "", ""};
        s.prediction.predicted_delta_pct = 30;
    });
    QVERIFY2(start->isEnabled(), qPrintable(start->toolTip()));
    QVERIFY(page.runBlockedReason().isEmpty());

    // Run settings land in the plan.
    auto* stop = page.findChild<QComboBox*>(u"abStopRule"_s);
    stop->setCurrentIndex(2);
    emit stop->activated(2);
    QCOMPARE(doc.study().experiments[0].plan.stop, StopRule::Decision);
}

// Issue 31: a CPU study's hardware page checks against its CPU, not the first catalogue GPU, and
// shows no GPU traps (FP8/FP4, tiles), recorded or computed; a GPU part can still be picked.
void TestWizardPages::cpuStudyGetsTheCpuSheet()
{
    StudyDocument doc;
    doc.newStudy();
    doc.edit(u"cpu study"_s, [](Study& s) {
        s.hardware.devices = nlohmann::json::array({{{"kind", "cpu"}, {"name", "Intel(R) Xeon(R) Processor"}}});
        s.hardware.warnings = {"FP8 needs sm_89 or newer: this GPU has no FP8 tensor cores"};
        Experiment e;
        e.id = "ab-1";
        e.workload = "gemm";
        e.backend = "cpu";
        e.device = {"cpu", "Intel(R) Xeon(R) Processor", "", std::nullopt, ""};
        e.arms = {{"baseline", {{"block", 32}}}, {"treatment", {{"block", 128}}}};
        Sample a;
        a.arm = "baseline";
        a.metrics["time_ms"] = 1;
        e.samples.push_back(a);
        s.experiments.push_back(e);
    });
    DeviceProbe probe;
    probe.setResult(R"({"devices": [{"kind": "cpu", "name": "Intel(R) Xeon(R) Processor"}]})", "no CUDA driver");
    HardwarePage page(&doc, &probe);
    page.refresh();
    QVERIFY(page.isCpuStudy());
    QCOMPARE(page.limitsKey(), u"cpu"_s);
    const QString warnings = page.findChild<QLabel*>(u"hardwareWarnings"_s)->text();
    QVERIFY2(!warnings.contains(u"FP8"_s) && !warnings.contains(u"FP4"_s), qPrintable(warnings));
    QVERIFY(page.findChild<QComboBox*>(u"hardwareLimitsOf"_s)->currentText().contains(u"Xeon"_s));
    // A GPU study is not: the same study with a CUDA device recorded.
    doc.edit(u"gpu"_s, [](Study& s) { s.experiments[0].device = {"cuda", "NVIDIA H200", "GPU-1", 0, ""}; });
    QVERIFY(!page.isCpuStudy());
    QVERIFY(page.limitsKey() != u"cpu"_s);
}

void TestWizardPages::verdictPageShowsTheMissingGates()
{
    StudyDocument doc;
    doc.newStudy();
    doc.edit(u"experiment"_s, [](Study& s) {
        Experiment e;
        e.id = "ab-1";
        e.arms = {{"baseline", {}}, {"treatment", {}}};
        Sample a;
        a.arm = "baseline";
        a.metrics["time_ms"] = 1;
        e.samples.push_back(a);
        e.missing_gates = missing_gates(s, e);
        s.experiments.push_back(e);
    });
    VerdictPage page(&doc);
    page.refresh();
    QVERIFY(page.gatesText().contains(u"tradeoff: none named"_s));
    QVERIFY(page.gatesText().contains(u"prediction"_s));
    QVERIFY(!page.gatesText().contains(u"Flags: none"_s));

    // Issue 31: gates now and gates then. Naming a tradeoff after the run meets the gate now; the
    // attempt's line still says it ran without one, with when it ran.
    doc.edit(u"tradeoff"_s, [](Study& s) { s.tradeoffs = {{"loc-complexity", true, "a second code path"}}; });
    const QStringList lines = page.gatesText().split(u'\n');
    const auto nowEnd = lines.indexOf(u"Gates when each attempt ran:"_s);
    QVERIFY2(lines.first().startsWith(u"Gates now: ✔ "_s) && nowEnd > 0, qPrintable(page.gatesText()));
    const QStringList now = lines.mid(0, nowEnd);
    QVERIFY2(now.first().contains(u"tradeoff (phase 7)"_s), qPrintable(page.gatesText()));
    QVERIFY(!now.join(u'\n').contains(u"tradeoff: none named"_s));
    const QString then = lines.mid(nowEnd + 1).join(u'\n');
    QVERIFY2(
        then.startsWith(u"ab-1 (time not recorded): "_s) && then.contains(u"tradeoff: none named"_s), qPrintable(then));
}

// The A/A history of the experiment's device, read through the engine from XDG_STATE_HOME: a
// private history with 1 false alarm in 5 A/A runs on this device model (and others elsewhere).
// 1 in 5: Clopper-Pearson 95% CI 0.505-71.64% (tests/data/stats/clopper_pearson_cases.json, scipy).
void TestWizardPages::verdictPageShowsTheDevicesAaHistory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray oldState = qgetenv("XDG_STATE_HOME");
    qputenv("XDG_STATE_HOME", dir.path().toUtf8());
    const DeviceIdentity here {"cpu", "Test CPU X", "", std::nullopt, ""};
    const DeviceIdentity other {"cuda", "NVIDIA H200", "GPU-1", 0, "580"};
    const auto path = aa_history_path();
    QCOMPARE(QString::fromStdString(path.string()), dir.filePath(u"kernel-workbench/aa-history.jsonl"_s));
    for (const char* word : {"NOISE", "NOISE", "LICENSE", "NOISE", "NOISE"})
        append_aa_history(path, {"2026-12-01T00:00:00Z", here, "s.json", "ab-1", 6, word, 0.1});
    for (const char* word : {"KILL", "KILL"})
        append_aa_history(path, {"2026-12-01T00:00:00Z", other, "g.json", "ab-1", 6, word, -9.0});

    StudyDocument doc;
    doc.newStudy();
    VerdictPage page(&doc);
    page.refresh();
    QVERIFY2(page.aaHistoryText().isEmpty(), qPrintable(page.aaHistoryText())); // nothing ran on a device yet

    doc.edit(u"experiment"_s, [&](Study& s) {
        Experiment e;
        e.id = "ab-1";
        e.arms = {{"baseline", {}}, {"treatment", {}}};
        e.device = here;
        s.experiments.push_back(e);
    });
    page.refresh();
    QCOMPARE(
        page.aaHistoryText(), u"A/A history on Test CPU X: 1 false alarm in 5 A/A runs (20%, 95% CI 0.505-71.64%)"_s);
    QVERIFY(page.aaText().isEmpty()); // no A/A arm in this experiment: the history still shows

    doc.edit(u"aa"_s, [](Study& s) { add_aa_arm(s.experiments[0]); });
    page.refresh();
    QCOMPARE(page.aaText(), u"A/A arm: no verdict yet."_s);

    doc.edit(u"device"_s, [](Study& s) { s.experiments[0].device.model = "Test CPU Y"; });
    page.refresh();
    QCOMPARE(page.aaHistoryText(), u"A/A history on Test CPU Y: no A/A run recorded yet"_s);
    if (oldState.isNull())
        qunsetenv("XDG_STATE_HOME");
    else
        qputenv("XDG_STATE_HOME", oldState);
}

// Why it is faster, on the page: a recorded H200 study with CUPTI lanes (Triton vs torch.mm worker
// arms) gets the engine's metric diff (verdict/metric_diff.h), the lanes that moved first.
void TestWizardPages::verdictPageShowsTheMetricDiff()
{
    StudyDocument doc;
    QVERIFY(doc.load(
        QStringLiteral(KWB_SOURCE_DIR "/bench/results/2026-12-02-h200-worker-arms/studies/triton-vs-torch.json")));
    VerdictPage page(&doc);
    page.refresh();
    auto* table = page.findChild<QTableWidget*>(u"metricDiffTable"_s);
    auto* summary = page.findChild<QLabel*>(u"metricDiffSummary"_s);
    QVERIFY(table && summary);
    QVERIFY(!table->isHidden());
    const Experiment& e = doc.study().experiments.front();
    const auto diff = metric_diff(e, e.arms[0].name, e.arms[1].name, 2.0);
    QVERIFY(diff);
    QCOMPARE(table->rowCount(), static_cast<int>(diff->rows.size()));
    QVERIFY(summary->text().startsWith(u"Why: "_s));
    QCOMPARE(summary->text(), u"Why: "_s + QString::fromStdString(metric_diff_summary(*diff)));
    // The lanes beyond their noise lead the table; occupancy is one of them, and l2_pct, which the
    // study recorded before it was retired for disagreeing with ncu, is not in it.
    int beyond = 0;
    for (const auto& r : diff->rows)
        beyond += r.beyond_noise ? 1 : 0;
    QVERIFY(beyond > 0);
    for (int i = 0; i < table->rowCount(); ++i)
        QCOMPARE(table->item(i, 5)->text() == u"beyond"_s, i < beyond);
    QVERIFY(!table->findItems(u"occupancy"_s, Qt::MatchExactly).isEmpty());
    QVERIFY(table->findItems(u"l2_pct"_s, Qt::MatchExactly).isEmpty());

    // A study without lanes: no table.
    StudyDocument plain;
    plain.newStudy();
    VerdictPage empty(&plain);
    empty.refresh();
    QVERIFY(empty.findChild<QTableWidget*>(u"metricDiffTable"_s)->isHidden());
}

void TestWizardPages::autosaveRestoresAfterACrash()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"s.json"_s);
    {
        StudyDocument doc;
        doc.newStudy();
        QVERIFY(doc.saveAs(path));
        doc.edit(u"rename"_s, [](Study& s) { s.name = "edited, never saved"; });
        QVERIFY(doc.autosaveNow());
        QVERIFY(QFile::exists(StudyDocument::autosavePathFor(path)));
        // "crash": the document goes away without saving or discarding.
    }
    StudyDocument doc;
    QVERIFY(doc.load(path));
    QCOMPARE(doc.study().name, std::string("Untitled study"));
    QVERIFY(doc.hasAutosave());
    QVERIFY(doc.restoreAutosave());
    QCOMPARE(doc.study().name, std::string("edited, never saved"));
    QCOMPARE(doc.filePath(), QFileInfo(path).absoluteFilePath());
    QVERIFY(doc.isModified());
    QVERIFY(doc.save());
    QVERIFY(!QFile::exists(StudyDocument::autosavePathFor(path))); // a save ends the side file
}

QTEST_MAIN(TestWizardPages)
#include "tst_wizard_pages.moc"
