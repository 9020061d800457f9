// SPDX-License-Identifier: GPL-3.0-or-later
// The playbook's gates have one owner (study/gates.h). These tests pin the cases where the pages
// and the verdict used to disagree: an axis marked sacrificed with nothing written was shown as a
// named tradeoff while the verdict said none was named.
#include "study/attempt_gates.h"
#include "study/experiment_shape.h"
#include "study/gates.h"
#include "study/target_check.h"
#include "verdict/verdict.h"

#include <QTest>

using namespace kwb;

class TestGates : public QObject {
    Q_OBJECT
private slots:
    void tradeoffGateAgreesWithTheVerdict_data();
    void tradeoffGateAgreesWithTheVerdict();
    void targetNeedsBothNumbers();
    void runBlockedNamesTheFirstMissingGate();
    void secondVariableBlocksUntilAcknowledged();
    void commandArmsNeedOnlyDiffer();
    void missingGatesListsEveryUnmetGate();
    void controlsAreMeasuredWhereTheEngineCan();
    void targetAgainstTheMeasurement();
    void attemptGatesAreThenNotNow();
};

void TestGates::tradeoffGateAgreesWithTheVerdict_data()
{
    QTest::addColumn<bool>("sacrificed");
    QTest::addColumn<QString>("note");
    QTest::addColumn<bool>("named");
    QTest::addRow("named") << true << "two code paths to maintain" << true;
    QTest::addRow("ticked, nothing written") << true << "" << false;
    QTest::addRow("ticked, only blanks") << true << "  \t " << false;
    QTest::addRow("note without the tick") << false << "not really" << false;
    QTest::addRow("explicit none") << false << "" << false;
}

void TestGates::tradeoffGateAgreesWithTheVerdict()
{
    QFETCH(bool, sacrificed);
    QFETCH(QString, note);
    QFETCH(bool, named);
    const std::vector<Tradeoff> tradeoffs {{"generality", sacrificed, note.toStdString()}};
    QCOMPARE(tradeoff_named(tradeoffs), named);
    QCOMPARE(tradeoff_gate(tradeoffs).met, named);

    // The verdict asks the same owner: a sample LICENSE stays a license exactly when the gate is met.
    const Profile profile = make_profile("generic", Direction::Lower);
    const SampleVerdict license = judge_samples({10, 10.1, 9.9, 10.05}, {5, 5.05, 4.95, 5.02}, profile, false);
    QCOMPARE(license.word, VerdictWord::License);
    StudyRulesInput input;
    input.tradeoffs = tradeoffs;
    const FinalVerdict final = apply_study_rules(license, input, profile);
    QCOMPARE(final.tradeoff_named, named);
    QCOMPARE(final.word, named ? VerdictWord::License : VerdictWord::Inconclusive);
    if (!named)
        QVERIFY(std::find(final.reasons.begin(), final.reasons.end(), tradeoff_gate_reason()) != final.reasons.end());

    // And the gates kwb run records say the same.
    Study study;
    study.tradeoffs = tradeoffs;
    Experiment e;
    const auto gates = missing_gates(study, e);
    const bool recorded
        = std::any_of(gates.begin(), gates.end(), [](const std::string& g) { return g.rfind("tradeoff", 0) == 0; });
    QCOMPARE(recorded, !named);
}

void TestGates::targetNeedsBothNumbers()
{
    Target t;
    QVERIFY(!target_gate(t).met);
    t.metric = "time_ms";
    t.current = 30;
    QVERIFY(!target_gate(t).met);
    QVERIFY(target_gate(t).reason.find("from X to Y") != std::string::npos);
    t.goal = 30;
    QVERIFY(!target_gate(t).met); // from X to X is no target
    t.goal = 20;
    QVERIFY(target_gate(t).met);
    QVERIFY(target_gate(t).reason.empty());
    QVERIFY(!target_gate(t).rule.empty());
}

void TestGates::runBlockedNamesTheFirstMissingGate()
{
    Study s;
    QVERIFY(run_blocked(s, nullptr).has_value());
    Experiment e;
    e.arms = {{"baseline", {{"block", 32}}}, {"treatment", {{"block", 128}}}};
    auto why = run_blocked(s, &e);
    QVERIFY(why && why->rfind("target", 0) == 0);
    s.target.metric = "time_ms";
    s.target.current = 30;
    s.target.goal = 20;
    why = run_blocked(s, &e);
    QVERIFY(why && why->rfind("prediction", 0) == 0);
    s.prediction.predicted_delta_pct = 40;
    QVERIFY(!run_blocked(s, &e).has_value());
    // Identical arms run as an A/A, in the window as in kwb run (one rule: study/experiment_shape.h).
    e.arms[1].params["block"] = 32;
    QVERIFY(!run_blocked(s, &e).has_value());
    const ShapeCheck shape = check_experiment_shape(s, e, e.arms[0].params, e.arms[1].params);
    QVERIFY(shape.ok());
    QCOMPARE(shape.notices.size(), size_t {1});
    QVERIFY(shape.notices[0].find("identical") != std::string::npos);
    e.arms[1].name = "baseline"; // what kwb run refuses, the window refuses
    why = run_blocked(s, &e);
    QVERIFY2(why && why->find("two arms are named 'baseline'") != std::string::npos, why ? why->c_str() : "");
}

void TestGates::secondVariableBlocksUntilAcknowledged()
{
    Study s;
    s.target = {"time_ms", Direction::Lower, "ms", 30.0, 20.0, "", "", ""};
    s.prediction.predicted_delta_pct = 10;
    Experiment e;
    e.arms = {{"baseline", {{"block", 32}, {"threads", 1}}}, {"treatment", {{"block", 128}, {"threads", 2}}}};
    const auto why = run_blocked(s, &e);
    QVERIFY(why && why->find("block, threads") != std::string::npos);
    e.acknowledged_multi_variable = true;
    QVERIFY(!run_blocked(s, &e).has_value());
}

void TestGates::commandArmsNeedOnlyDiffer()
{
    // Command arms have no parameters: their commands are diffed, and since a command line is
    // opaque (the engine cannot count the variables inside it), differing is what is asked.
    Study s;
    s.target = {"time_ms", Direction::Lower, "ms", 30.0, 20.0, "", "", ""};
    s.prediction.predicted_delta_pct = 10;
    Experiment e;
    e.workload = "command";
    e.arms = {{"baseline", nlohmann::json::object()}, {"treatment", nlohmann::json::object()}};
    e.arms[0].command = CommandSpec {};
    e.arms[0].command->cmd = "./bench";
    e.arms[1].command = e.arms[0].command;
    QVERIFY(!run_blocked(s, &e).has_value()); // identical commands: an A/A, as kwb run takes it
    QCOMPARE(check_experiment_shape(s, e, {}, {}).notices.size(), size_t {1});
    e.arms[1].command->cmd = "./bench --new";
    e.arms[1].command->env["MODE"] = "b";
    QVERIFY(!run_blocked(s, &e).has_value());
}

void TestGates::missingGatesListsEveryUnmetGate()
{
    Study s;
    Experiment e;
    const auto gates = missing_gates(s, e);
    QCOMPARE(gates.size(), size_t(6)); // target, K/R/W, binding, prediction, controls, tradeoff
    s.target = {"time_ms", Direction::Lower, "ms", 30.0, 20.0, "k", "r", "w"};
    s.binding.constraint = "memory-bandwidth";
    s.prediction.predicted_delta_pct = 10;
    e.controls.checklist = {{"same device", true}};
    s.tradeoffs = {{"generality", true, "gemm only"}};
    QVERIFY(missing_gates(s, e).empty());
}

void TestGates::controlsAreMeasuredWhereTheEngineCan()
{
    Experiment e;
    e.arms = {{"baseline", {{"block", 32}, {"size", 512}}}, {"treatment", {{"block", 128}, {"size", 512}}}};
    DeviceIdentity cpu {"cpu", "Xeon", "", std::nullopt, ""};
    auto m = measure_controls(e, nlohmann::json::object(), &cpu);
    QCOMPARE(m.size(), standard_controls().size());
    const auto find = [&](const std::string& name) {
        return *std::find_if(m.begin(), m.end(), [&](const ControlMeasurement& c) { return c.name == name; });
    };
    QCOMPARE(find("same device").measured, std::optional<bool>(true));
    QCOMPARE(find("same shapes and dtypes").measured, std::optional<bool>(true));
    QVERIFY(!find("no other process on the device").measured.has_value());
    QVERIFY(!find("stable clocks").measured.has_value()); // no clock readings on a CPU run

    e.arms[1].params["size"] = 1024; // a second variable: the shapes differ
    e.device = {"cuda", "NVIDIA H100", "GPU-1", 0, ""};
    m = measure_controls(e, nlohmann::json::object(), &cpu);
    QCOMPARE(find("same shapes and dtypes").measured, std::optional<bool>(false));
    QCOMPARE(find("same device").measured, std::optional<bool>(false));
}

void TestGates::targetAgainstTheMeasurement()
{
    Target t {"time_ms", Direction::Lower, "ms", 30.0, 20.0, "", "", ""};
    Experiment e;
    e.metric = "time_ms";
    e.arms = {{"baseline", {}}, {"treatment", {}}};
    QVERIFY(!check_target(t, e).has_value()); // no verdict yet
    SampleVerdict measured;
    measured.baseline.mean = 14.4;
    measured.treatment.mean = 8.9;
    e.verdict = measured;
    const auto c = check_target(t, e);
    QVERIFY(c.has_value());
    QCOMPARE(c->measured_baseline, 14.4);
    QVERIFY(c->baseline_off_pct && *c->baseline_off_pct < -50);
    QVERIFY(c->goal_reached);
    QVERIFY(c->comments.front().find("not measured on this workload") != std::string::npos);
    t.current = 14.0;
    QVERIFY(check_target(t, e)->comments.front().find("matches") != std::string::npos);
}

// Issue 31: what an attempt ran without stays what it was, with its time, while the study's gates
// now may be met (a profile taken on phase 3 afterwards).
void TestGates::attemptGatesAreThenNotNow()
{
    Study s;
    Experiment first;
    first.id = "ab-1";
    first.missing_gates = {"binding: not measured (phase 3)"};
    Sample a;
    a.arm = "baseline";
    a.started_at = "2026-12-01T10:00:05Z";
    Sample b = a;
    b.started_at = "2026-12-01T10:00:01Z";
    first.samples = {a, b};
    Experiment second;
    second.id = "ab-2";
    second.samples = {a};
    Experiment pending;
    pending.id = "ab-3";
    s.experiments = {first, second, pending};
    s.ledger.push_back({"ab-2", "2026-12-02T09:30:00Z", "LICENSE", "", {}});

    const auto then = attempt_gates(s);
    QCOMPARE(then.size(), size_t {2}); // ab-3 never ran
    QCOMPARE(then[0].experiment_id, std::string("ab-1"));
    QCOMPARE(then[0].ran_at, std::string("2026-12-01T10:00:01Z")); // no ledger entry: the first start
    QCOMPARE(then[0].missing, first.missing_gates);
    QCOMPARE(then[1].ran_at, std::string("2026-12-02T09:30:00Z")); // the ledger's time
    QVERIFY(then[1].missing.empty());
}

QTEST_GUILESS_MAIN(TestGates)
#include "tst_gates.moc"
