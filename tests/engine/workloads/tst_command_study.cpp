// SPDX-License-Identifier: GPL-3.0-or-later
// The one owner of kwb new's command-form rules (workloads/command/command_study.h), which kwb
// new and the window's File > New command A/B both call: defaults, the plan, and a refusal that
// names its field for every rule.
#include "study/study_file.h"
#include "workloads/command/adapter.h"
#include "workloads/command/command_study.h"
#include "workloads/command/command_workload.h"

#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::command;

namespace {

CommandStudyRequest request(const std::string& base = "./bench --a", const std::string& treat = "./bench --b")
{
    CommandStudyRequest r;
    r.baseline.cmd = base;
    r.treatment.cmd = treat;
    return r;
}

std::string refusedField(const CommandStudyRequest& r)
{
    try {
        (void)new_command_study(r);
    } catch (const CommandStudyError& e) {
        return e.field();
    }
    return "(accepted)";
}

} // namespace

class TestCommandStudy : public QObject {
    Q_OBJECT
private slots:
    void writesWhatKwbNewWrote()
    {
        Study s = new_command_study(request());
        QCOMPARE(s.experiments.size(), std::size_t(1));
        const Experiment& e = s.experiments.front();
        QCOMPARE(e.id, std::string("ab-1"));
        QCOMPARE(e.workload, std::string(kCommandWorkload));
        QCOMPARE(e.metric, std::string("time_ms")); // auto: a kernel benchmark's time
        QCOMPARE(e.plan.runs_per_arm, kDefaultRunsPerArm);
        QCOMPARE(e.plan.min_rep_ms, 0.0);
        QCOMPARE(e.arms[0].name, std::string("baseline"));
        QCOMPARE(e.arms[1].command->cmd, std::string("./bench --b"));
        QCOMPARE(s.name, std::string("command A/B: time_ms"));
        QCOMPARE(s.target.metric, std::string("time_ms"));
        QCOMPARE(s.target.unit, std::string("ms"));
        // It saves and loads back: never a study kwb run would refuse to read.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("s.json")).toStdString();
        save_study(s, path);
        QCOMPARE(load_study(path).experiments.front().arms[1].command->cmd, std::string("./bench --b"));
    }

    void namedAdapterJudgesItsFirstKey()
    {
        auto r = request();
        r.baseline.adapter = r.treatment.adapter = "vllm";
        const Study s = new_command_study(r);
        QCOMPARE(s.experiments.front().metric, default_metric("vllm"));
        QVERIFY(s.experiments.front().metric != "time_ms");
        QCOMPARE(s.target.direction, metric_spec(s.experiments.front().metric).direction);
        r.metric = "output_tok_s";
        QCOMPARE(new_command_study(r).target.direction, Direction::Higher);
    }

    void runsAreWholeAbbaBlocks()
    {
        auto r = request();
        r.plan.runs_per_arm = 5;
        QCOMPARE(new_command_study(r).experiments.front().plan.runs_per_arm, 6);
        r.plan.order = RunOrder::RandomisedBlocks;
        QCOMPARE(new_command_study(r).experiments.front().plan.runs_per_arm, 5);
    }

    // --expect-differ: fields the adapter reports, each once; anything else is refused by name.
    void expectDifferIsAFingerprintFieldOfTheAdapter()
    {
        auto r = request();
        r.baseline.adapter = r.treatment.adapter = "gbench";
        r.expect_differ = {"benchmark", "benchmark"};
        Study s = new_command_study(r);
        QCOMPARE(s.experiments.front().expect_differ, std::vector<std::string> {"benchmark"});
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("s.json")).toStdString();
        save_study(s, path);
        QCOMPARE(load_study(path).experiments.front().expect_differ, std::vector<std::string> {"benchmark"});
        r.expect_differ = {"model_id"}; // vllm's, not gbench's
        QCOMPARE(refusedField(r), std::string("expect_differ"));
        try {
            (void)new_command_study(r);
        } catch (const CommandStudyError& e) {
            QCOMPARE(std::string(e.what()),
                std::string("'model_id' is not a fingerprint field of the gbench adapter "
                            "(fields: benchmark)"));
        }
        r.baseline.adapter = r.treatment.adapter = "auto"; // any adapter's field, under auto
        QCOMPARE(refusedField(r), std::string("(accepted)"));
        r.expect_differ = {"Grid Size"};
        QCOMPARE(refusedField(r), std::string("(accepted)"));
        r.expect_differ = {"nosuch"};
        QCOMPARE(refusedField(r), std::string("expect_differ"));
        r.baseline.adapter = r.treatment.adapter = "console"; // reports no fingerprint at all
        r.expect_differ = {"benchmark"};
        QCOMPARE(refusedField(r), std::string("expect_differ"));
        QVERIFY(fingerprint_fields("console").empty());
        const auto every = fingerprint_fields("auto");
        for (const char* field : {"benchmark", "state", "kernel", "model_id", "tests", "concurrency"})
            QVERIFY2(std::count(every.begin(), every.end(), std::string(field)) == 1, field);
    }

    // Where the commands run: auto (the CPU unless the run names a GPU), cpu or cuda.
    void backendIsRecorded()
    {
        auto r = request();
        QCOMPARE(new_command_study(r).experiments.front().backend, std::string("auto"));
        r.backend = "cuda";
        QCOMPARE(new_command_study(r).experiments.front().backend, std::string("cuda"));
        r.backend = "gpu";
        QCOMPARE(refusedField(r), std::string("backend"));
    }

    void eachRuleNamesItsField()
    {
        QCOMPARE(refusedField(request("", "./b")), std::string("baseline"));
        QCOMPARE(refusedField(request("./a", "")), std::string("treatment"));
        QCOMPARE(refusedField(request("./a", "./a")), std::string("treatment"));
        auto r = request();
        r.treatment.env["MODE"] = "b"; // the same line in another environment is an A/B
        QCOMPARE(refusedField(r), std::string("(accepted)"));
        r = request();
        r.baseline.timeout_s = -1;
        QCOMPARE(refusedField(r), std::string("baseline"));
        r = request();
        r.treatment.cwd = "/nonexistent/kwb-dir";
        QCOMPARE(refusedField(r), std::string("treatment"));
        r = request();
        r.baseline.adapter = r.treatment.adapter = "nope";
        QCOMPARE(refusedField(r), std::string("baseline"));
        r = request();
        r.treatment.adapter = "gbench"; // one adapter reads both arms
        QCOMPARE(refusedField(r), std::string("adapter"));
        r = request();
        r.profile = "lenient";
        QCOMPARE(refusedField(r), std::string("profile"));
        r = request();
        r.plan.runs_per_arm = 0;
        QCOMPARE(refusedField(r), std::string("runs_per_arm"));
        r = request();
        r.plan.warmup_runs = 1'000'000;
        QCOMPARE(refusedField(r), std::string("warmup_runs"));
        r = request();
        r.plan.stop = StopRule::Duration;
        QCOMPARE(refusedField(r), std::string("duration_s"));
        QCOMPARE(std::string(default_metric("auto")), std::string("time_ms"));
        try {
            (void)default_metric("nope");
            QFAIL("an unknown adapter has no default metric");
        } catch (const CommandStudyError& e) {
            QCOMPARE(e.field(), std::string("adapter"));
        }
    }
};

QTEST_GUILESS_MAIN(TestCommandStudy)
#include "tst_command_study.moc"
