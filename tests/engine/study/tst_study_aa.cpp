// SPDX-License-Identifier: GPL-3.0-or-later
// Schema 3's real A/A in the study: the "aa" arm role, the A/A verdict and its summary line, the
// split-half stability check under its own name (older files migrate), whole ABBA plans, and the
// machine-load evidence that names a busy machine.
#include "study/arm_roles.h"
#include "study/gates.h"
#include "study/grid.h"
#include "study/machine_load.h"
#include "study/plan_limits.h"
#include "study/study_json.h"
#include "util/json_reader.h"
#include "verdict/aa_verdict.h"
#include "verdict/grid_interaction.h"
#include "verdict/verdict.h"

#include <QTest>

using namespace kwb;
using nlohmann::json;

namespace {

Experiment three_arms(const std::vector<double>& base, const std::vector<double>& treat, const std::vector<double>& aa)
{
    Experiment e;
    e.id = "ab-1";
    e.workload = "synthetic";
    e.metric = "value";
    e.arms = {{"baseline", {{"delta_pct", 0}}}, {"treatment", {{"delta_pct", 5}}}};
    add_aa_arm(e);
    int position = 0;
    for (size_t i = 0; i < base.size(); ++i)
        for (const auto& [arm, v] : {std::pair {"baseline", &base}, {"treatment", &treat}, {"baseline-aa", &aa}})
            if (i < v->size()) {
                Sample s;
                s.arm = arm;
                s.rep = static_cast<int>(i);
                s.position = position++;
                s.metrics["value"] = (*v)[i];
                e.samples.push_back(s);
            }
    return e;
}

json minimal_study()
{
    return json::parse(R"({"schema_version": 3, "name": "n", "experiments": [{"id": "ab-1", "workload": "synthetic",
        "metric": "value", "arms": [{"name": "baseline", "params": {}}, {"name": "treatment", "params": {}}]}]})");
}

} // namespace

class TestStudyAa : public QObject {
    Q_OBJECT
private slots:
    void addAaArmCopiesTheBaseline()
    {
        Experiment e = three_arms({}, {}, {});
        QCOMPARE(e.arms.size(), size_t(3));
        QCOMPARE(e.arms[2].name, std::string("baseline-aa"));
        QVERIFY(e.arms[2].params == e.arms[0].params);
        QCOMPARE(ab_arm_count(e), 2);
        QVERIFY(aa_arm(e) == &e.arms[2]);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, add_aa_arm(e));
        e.arms[0].params["delta_pct"] = 1;
        sync_aa_arm(e);
        QVERIFY(e.arms[2].params == e.arms[0].params);
        remove_aa_arm(e);
        QCOMPARE(e.arms.size(), size_t(2));
        QVERIFY(!aa_arm(e));
    }

    // Baseline and treatment are roles, not positions: an A/A arm between them is skipped.
    void abArmsAreFoundByRole()
    {
        Experiment e;
        QVERIFY(!ab_arms(e));
        e.arms = {{"base", {{"block", 32}}}};
        QVERIFY(!ab_arms(e) && ab_arms(e).baseline && !ab_arms(e).treatment);
        e.arms.push_back({"base-aa", {{"block", 32}}});
        e.arms.back().role = kAaArmRole;
        e.arms.push_back({"treat", {{"block", 128}}});
        const AbArms arms = ab_arms(e);
        QVERIFY(arms);
        QCOMPARE(arms.baseline->name, std::string("base"));
        QCOMPARE(arms.treatment->name, std::string("treat"));
        ab_arms(e).treatment->params["block"] = 64; // the mutable form edits the arm in place
        QCOMPARE(e.arms[2].params["block"].get<int>(), 64);
    }

    void aaVerdictAndItsLine()
    {
        const Experiment e = three_arms(
            {10, 10.1, 9.9, 10, 10.05, 9.95}, {9, 9.1, 8.9, 9, 9.05, 8.95}, {10.02, 10.08, 9.93, 10.01, 10.03, 9.97});
        const auto v = judge_aa_arm(e, make_profile("generic", Direction::Lower));
        QVERIFY(v.has_value());
        QCOMPARE(static_cast<int>(v->n_baseline()), 6);
        QVERIFY(v->paired.has_value()); // same blocks
        QCOMPARE(std::string(to_string(v->word)), std::string("NOISE"));
        QVERIFY(!aa_false_alarm(*v));
        const std::string line = aa_summary(*v);
        QVERIFY2(line.starts_with("A/A at n = 6: NOISE, delta "), line.c_str());
        QVERIFY2(line.find("% [") != std::string::npos, line.c_str());
    }

    void aaVerdictNeedsRuns()
    {
        const Experiment e = three_arms({10, 11, 12}, {9, 9, 9}, {});
        QVERIFY(!judge_aa_arm(e, make_profile("generic", Direction::Lower)));
        Experiment two = e;
        remove_aa_arm(two);
        QVERIFY(!judge_aa_arm(two, make_profile("generic", Direction::Lower)));
    }

    void roleRoundTripsAndIsChecked()
    {
        json j = minimal_study();
        j["experiments"][0]["arms"].push_back({{"name", "baseline-aa"}, {"params", json::object()}, {"role", "aa"}});
        const Study s = study_from_json(j);
        QCOMPARE(s.experiments[0].arms[2].role, std::string("aa"));
        QVERIFY(study_to_json(s)["experiments"][0]["arms"][2]["role"] == json("aa"));
        json bad = j;
        bad["experiments"][0]["arms"][2]["role"] = "control";
        QVERIFY_THROWS_EXCEPTION(FormatError, study_from_json(bad));
        json early = minimal_study();
        early["experiments"][0]["arms"][1]["role"] = "aa";
        QVERIFY_THROWS_EXCEPTION(FormatError, study_from_json(early));
        json twice = j;
        twice["experiments"][0]["arms"].push_back({{"name", "again"}, {"params", json::object()}, {"role", "aa"}});
        QVERIFY_THROWS_EXCEPTION(FormatError, study_from_json(twice));
    }

    void splitHalfCheckMigratesFromItsOldName()
    {
        json j = minimal_study();
        j["experiments"][0]["plan"] = {{"aa_splits", 4}};
        j["experiments"][0]["aa_calibration"]
            = {{"splits", 4}, {"false_alarms", 1}, {"verdicts", {"NOISE", "KILL", "NOISE", "NOISE"}}, {"method", "m"}};
        j["experiments"][0]["final_verdict"] = {{"verdict", "NOISE"}, {"aa", {{"splits", 4}, {"false_alarms", 1}}}};
        const Study s = study_from_json(j);
        const Experiment& e = s.experiments[0];
        QCOMPARE(e.plan.split_halves, 4);
        QVERIFY(e.split_half.has_value());
        QCOMPARE(e.split_half->false_alarms, 1);
        QVERIFY(e.final_verdict->split_half.has_value());
        QCOMPARE(e.final_verdict->split_half->splits, 4);
        const json out = study_to_json(s)["experiments"][0];
        QVERIFY(out["plan"]["split_halves"] == json(4));
        QVERIFY(!out["plan"].contains("aa_splits"));
        QVERIFY(out["split_half_check"]["splits"] == json(4));
        QVERIFY(!out.contains("aa_calibration"));
        QVERIFY(out["final_verdict"]["split_half"]["false_alarms"] == json(1));
        QVERIFY(!out["final_verdict"].contains("aa"));
    }

    void timedElapsedIsChecked()
    {
        json j = minimal_study();
        j["experiments"][0]["timed_elapsed_s"] = 12.5;
        QCOMPARE(*study_from_json(j).experiments[0].timed_elapsed_s, 12.5);
        j["experiments"][0]["timed_elapsed_s"] = -1;
        QVERIFY_THROWS_EXCEPTION(FormatError, study_from_json(j));
    }

    void sharedBuffersAreCheckedAndOptional()
    {
        json j = minimal_study();
        QVERIFY(!study_from_json(j).experiments[0].shared_buffers);
        QVERIFY(!study_to_json(study_from_json(j))["experiments"][0].contains("shared_buffers"));
        j["experiments"][0]["shared_buffers"] = false;
        QCOMPARE(study_from_json(j).experiments[0].shared_buffers, std::optional<bool>(false));
        QVERIFY(study_to_json(study_from_json(j))["experiments"][0]["shared_buffers"] == json(false));
        j["experiments"][0]["shared_buffers"] = "yes";
        QVERIFY_THROWS_EXCEPTION(FormatError, study_from_json(j));
    }

    void plansAreWholeAbbaBlocks()
    {
        QCOMPARE(kDefaultRunsPerArm, 6);
        QCOMPARE(whole_abba_runs(6), 6);
        QCOMPARE(whole_abba_runs(5), 6);
        QCOMPARE(whole_abba_runs(1), 2);
        QCOMPARE(whole_abba_runs(30), 30);
    }

    void busyMachineIsNamed()
    {
        Experiment e = three_arms({10}, {9}, {10});
        e.backend = "cpu";
        e.lanes.push_back({"other_cpu", "%", {0, 1, 2, 3}, {40, 50, 45, 45}});
        e.lanes.push_back({"bench_thread_cpu", "%", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
            {50, 55, 60, 62, 64, 65, 66, 67, 68, 69, 70}});
        for (auto& s : e.samples)
            s.clock_mhz = 2000;
        e.samples[1].clock_mhz = 1600; // the treatment's run fell by 20%
        const MachineLoad load = machine_load(e);
        QCOMPARE(*load.other_cpu_pct, 45.0);
        QVERIFY(load.heavy_other_processes());
        QVERIFY(load.thread_starved());
        QCOMPARE(*load.clock_drop_pct(), 20.0);
        const auto reasons = busy_machine_reasons(load);
        QCOMPARE(reasons.size(), size_t(1));
        const std::string& r = reasons[0];
        QVERIFY2(r.find("other processes took 45% of the CPU") != std::string::npos, r.c_str());
        QVERIFY2(r.find("the benchmark thread got 55-69% of a core") != std::string::npos, r.c_str());
        QVERIFY2(r.find("the clock fell by 20% (2000 to 1600 MHz)") != std::string::npos, r.c_str());
        std::string how;
        QVERIFY(no_heavy_process(load, how) == std::optional<bool>(false));
        record_run_measured_controls(e);
        QCOMPARE(e.controls.checklist.at("no other process on the device"), false);
    }

    void quietMachineTicksTheControl()
    {
        Experiment e = three_arms({10}, {9}, {10});
        e.backend = "cpu";
        e.lanes.push_back({"other_cpu", "%", {0, 1}, {2, 4}});
        e.lanes.push_back({"bench_thread_cpu", "%", {0, 1}, {99, 100}});
        const MachineLoad load = machine_load(e);
        QVERIFY(!load.heavy_other_processes());
        QVERIFY(!load.thread_starved());
        const auto reasons = busy_machine_reasons(load);
        QCOMPARE(reasons.size(), size_t(1));
        QVERIFY2(reasons[0].find("looked quiet") != std::string::npos, reasons[0].c_str());
        record_run_measured_controls(e);
        QCOMPARE(e.controls.checklist.at("no other process on the device"), true);
        // No lane, no measurement: the control stays the user's.
        Experiment bare = three_arms({10}, {9}, {10});
        record_run_measured_controls(bare);
        QVERIFY(!bare.controls.checklist.count("no other process on the device"));
        QVERIFY(busy_machine_reasons(machine_load(bare)).empty());
    }

    // A grid's A/A is an "aa" arm in its first cell (r0c1): no field of its own in the study, and
    // a grid made from an A/B with an A/A arm gets one.
    void gridAaArmLivesBesideTheFirstCell()
    {
        Study s;
        Experiment ab;
        ab.id = "ab-1";
        ab.workload = "synthetic";
        ab.metric = "value";
        ab.arms = {{"baseline", {{"delta_pct", 0}, {"cv_pct", 1}}}, {"treatment", {{"delta_pct", 5}, {"cv_pct", 1}}}};
        s.experiments.push_back(ab);
        QVERIFY(add_grid(s, ab, {{"delta_pct", {0, 5}}, {"cv_pct", {1, 2}}}).empty());
        const GridGroup& grid = s.grids.front();
        QVERIFY(!grid_aa_cell(s, grid));
        QCOMPARE(grid_aa_line(s, grid), std::string());
        QVERIFY(!set_grid_aa_arm(s, "grid-9", true).empty());
        QVERIFY(set_grid_aa_arm(s, "grid-1", true).empty());
        QVERIFY(set_grid_aa_arm(s, "grid-1", true).empty()); // once is enough
        const Experiment* cell = grid_aa_cell(s, s.grids.front());
        QVERIFY(cell);
        QCOMPARE(cell->id, std::string("grid-1-r0c1"));
        int aa_arms = 0;
        for (const auto& e : s.experiments)
            aa_arms += aa_arm(e) != nullptr;
        QCOMPARE(aa_arms, 1);
        QCOMPARE(cell->arms[2].name, std::string("r0c0-aa"));
        QVERIFY(cell->arms[2].params == cell->arms[0].params);
        // The cell stays a runnable grid cell; its A/A arm is no cell of the grid.
        QCOMPARE(grid_cell_problem(s, *cell, cell->arms[0].params, cell->arms[1].params), std::string());
        QCOMPARE(grid_cells_pending(s, s.grids.front()).size(), size_t(3));
        QCOMPARE(grid_aa_line(s, s.grids.front()), std::string("A/A arm beside cell r0c1: no verdict yet"));

        Experiment& carrier = *s.find_experiment("grid-1-r0c1");
        const std::vector<double> base = {10, 10.1, 9.9, 10, 10.05, 9.95},
                                  again = {10.02, 10.08, 9.93, 10.01, 10.03, 9.97};
        for (size_t i = 0; i < base.size(); ++i)
            for (const auto& [arm, v] : {std::pair {"r0c0", base[i]}, {"r0c1", 9.5}, {"r0c0-aa", again[i]}}) {
                Sample x;
                x.arm = arm;
                x.rep = static_cast<int>(i);
                x.position = static_cast<int>(carrier.samples.size());
                x.metrics["value"] = v;
                carrier.samples.push_back(x);
            }
        carrier.aa_verdict = judge_aa_arm(carrier, make_profile("generic", Direction::Lower));
        QVERIFY(carrier.aa_verdict.has_value());
        const std::string line = grid_aa_line(s, s.grids.front());
        QVERIFY2(line.starts_with("A/A at n = 6: NOISE, delta "), line.c_str());
        QVERIFY2(line.ends_with(" (the baseline cell r0c0 again, beside cell r0c1)"), line.c_str());
        QCOMPARE(grid_cells_pending(s, s.grids.front()).size(), size_t(2)); // r0c1 is judgeable now

        // Round trip: the arm's role is all the study stores.
        const Study back = study_from_json(study_to_json(s));
        QVERIFY(grid_aa_cell(back, back.grids.front()) == back.find_experiment("grid-1-r0c1"));

        QVERIFY(set_grid_aa_arm(s, "grid-1", false).empty());
        QVERIFY(!grid_aa_cell(s, s.grids.front()));
        QVERIFY(!s.find_experiment("grid-1-r0c1")->aa_verdict);

        // A grid made from an A/B that has an A/A arm gets the grid's A/A.
        add_aa_arm(s.experiments.front());
        QVERIFY(add_grid(s, s.experiments.front(), {{"delta_pct", {0, 5}}, {"cv_pct", {1, 3}}}).empty());
        const Experiment* second = grid_aa_cell(s, s.grids.back());
        QVERIFY(second);
        QCOMPARE(second->id, std::string("grid-2-r0c1"));
    }
};

QTEST_GUILESS_MAIN(TestStudyAa)
#include "tst_study_aa.moc"
