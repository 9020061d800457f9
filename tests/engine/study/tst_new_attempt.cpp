// SPDX-License-Identifier: GPL-3.0-or-later
// A new attempt of a finished study: the one engine function behind Run in the window and
// `kwb run --new-attempt`.
#include "study/grid.h"
#include "study/new_attempt.h"

#include <QTest>

using namespace kwb;

namespace {

Experiment done_ab(const std::string& id)
{
    Experiment e;
    e.id = id;
    e.workload = "gemm";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"block", 32}}, CorrectnessCheck {true, 0.0, 0.0, 1e-3, "x", "t"}},
        {"treatment", {{"block", 128}}, std::nullopt}};
    e.status = ExperimentStatus::Done;
    Sample s;
    s.arm = "baseline";
    s.metrics = {{"time_ms", 1.0}};
    e.samples = {s};
    SampleVerdict kill;
    kill.word = VerdictWord::Kill;
    e.verdict = kill;
    FinalVerdict final_kill;
    final_kill.word = VerdictWord::Kill;
    e.final_verdict = final_kill;
    e.stop_reason = "plan complete";
    e.device = {"cpu", "Xeon", "", std::nullopt, ""};
    e.launches_per_rep = 7;
    return e;
}

} // namespace

class TestNewAttempt : public QObject {
    Q_OBJECT

private slots:
    void finishedStudyGetsAFreshCopy()
    {
        Study s;
        s.experiments = {done_ab("ab-1")};
        QVERIFY(!has_runnable_experiment(s));
        const auto ids = new_attempt_if_finished(s);
        QCOMPARE(ids, std::vector<std::string> {"ab-2"});
        const Experiment& again = s.experiments.at(1);
        QCOMPARE(again.status, ExperimentStatus::Pending);
        QVERIFY(again.samples.empty() && !again.verdict && !again.final_verdict);
        QVERIFY(again.stop_reason.empty() && again.device.empty() && !again.launches_per_rep);
        QVERIFY(!again.arms[0].check);
        QCOMPARE(again.arms[1].params.at("block").get<int>(), 128);
        QCOMPARE(s.experiments.at(0).samples.size(), size_t(1)); // the earlier attempt is kept
        QVERIFY(has_runnable_experiment(s));
        QVERIFY(new_attempt_if_finished(s).empty()); // something is left to run: no change
        QCOMPARE(s.experiments.size(), size_t(2));
    }

    void sourceIsTheLastWithSamples()
    {
        Study s;
        s.experiments = {done_ab("ab-1"), done_ab("ab-2")};
        s.experiments[1].samples.clear();
        s.experiments[1].status = ExperimentStatus::Failed;
        QCOMPARE(new_attempt_source(s), 0);
        QCOMPARE(new_attempt_if_finished(s), std::vector<std::string> {"ab-3"});
    }

    void emptyStudyHasNothingToAttempt()
    {
        Study s;
        QVERIFY(new_attempt_if_finished(s).empty());
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, append_new_attempt(s, 0));
    }

    void gridCellIsAttemptedWithItsGrid()
    {
        Study s;
        s.experiments = {done_ab("ab-1")};
        // add_grid needs the variables among the arms' parameters.
        QVERIFY(!add_grid(s, s.experiments[0], {{"block", {32, 128}}, {"size", {128, 256}}}).empty());
        QCOMPARE(s.grids.size(), size_t(0));
        s.experiments[0].arms[0].params["size"] = 128;
        s.experiments[0].arms[1].params["size"] = 128;
        QVERIFY(add_grid(s, s.experiments[0], {{"block", {32, 128}}, {"size", {128, 256}}}).empty());
        QCOMPARE(s.grids.size(), size_t(1));
        for (auto& e : s.experiments)
            e.status = ExperimentStatus::Done;
        s.experiments.back().samples = s.experiments.front().samples; // the grid ran last
        const auto ids = new_attempt_if_finished(s);
        QCOMPARE(ids, (std::vector<std::string> {"grid-2-r0c1", "grid-2-r1c0", "grid-2-r1c1"}));
        QCOMPARE(s.grids.size(), size_t(2));
        QCOMPARE(s.grids[1].id, std::string("grid-2"));
        QCOMPARE(s.find_experiment("grid-2-r1c1")->group, std::string("grid-2"));
    }
};

QTEST_GUILESS_MAIN(TestNewAttempt)
#include "tst_new_attempt.moc"
