// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/device_identity.h"
#include "study/study_file.h"
#include "study/study_json.h"
#include "study/study_lock.h"
#include "study/study_text.h"
#include "util/atomic_file.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kwb;

namespace {

// A file in a folder and a relative link to it beside that folder: root/data/real.json and
// root/link.json -> data/real.json.
struct LinkedFile {
    struct Paths {
        std::filesystem::path root, real, link;
    };
    QTemporaryDir dir;
    Paths paths;
    explicit LinkedFile(std::string_view contents)
    {
        paths.root = dir.path().toStdString();
        paths.real = paths.root / "data" / "real.json";
        paths.link = paths.root / "link.json";
        std::filesystem::create_directory(paths.root / "data");
        write_file_atomically(paths.real, contents);
        std::filesystem::create_symlink("data/real.json", paths.link);
    }
};

Study sample_study()
{
    Study s;
    s.name = "gemm block size";
    s.description = "does a 128 block beat 32?";
    s.target = {"time_ms", Direction::Lower, "ms", 12.5, 9.0, "fp32 GEMM 512^3", "naive triple loop", "one shape"};
    s.prediction.formula = "100 * (1 - t_new / t_old)";
    s.prediction.variables = {{"t_new", 9.0}, {"t_old", 12.5}};
    s.prediction.predicted_delta_pct = 28.0;
    Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"block", 32}}}, {"treatment", {{"block", 128}}}};
    e.plan.order = RunOrder::RandomisedBlocks;
    e.plan.stop = StopRule::Decision;
    Sample x;
    x.arm = "treatment";
    x.rep = 0;
    x.position = 1;
    x.metrics = {{"time_ms", 9.25}};
    x.iterations = {9.2, 9.3};
    x.clock_mhz = 1980;
    x.mem_clock_mhz = 3201;
    x.power_w = 612.5;
    x.throttle_reasons = {"sw_power_cap"};
    x.launches = 40;
    x.throttled = true;
    e.samples.push_back(x);
    e.arms[1].check = CorrectnessCheck {true, 0.004, 0.001, 0.02, "gemm vs cuBLASLt", "2026-11-30T00:00:00Z"};
    e.device = {"cuda", "NVIDIA H200", "GPU-8c1a2b3c-0000-1111-2222-333344445555", 0, "580.159.04"};
    e.launches_per_rep = 40;
    e.limitations = {"no CUPTI: live counters not recorded"};
    e.lanes.push_back({"cpu_util", "%", {0.0, 0.5}, {97.0, 99.5}});
    e.split_half = SplitHalfCheck {
        5, 1, {"NOISE", "NOISE", "KILL", "NOISE", "NOISE"}, "interleaved halves, then seeded halvings"};
    e.stop_reason = "decision: NOISE for 3 pairs";
    e.plan.max_runs_per_arm = 40;
    s.experiments.push_back(e);
    s.tradeoffs.push_back({"memory-budget", true, "128 KiB of scratch"});
    s.ledger.push_back({"ab-1", "2026-11-30T00:00:00Z", "LICENSE", "14% faster", {"bigger tiles amortise loads"}});
    s.binding.constraint = "compute-suboptimal";
    s.binding.axis = "feed the tensor pipe";
    s.binding.evidence = {"tensor pipe 25.0 % < 40%"};
    s.binding.warnings = {"profiler view and wall-clock disagree"};
    s.binding.limitations = {"no NVML"};
    s.binding.thresholds = {{"tensor_low_pct", 40.0}};
    s.binding.kernels = nlohmann::json::array({{{"name", "gemm_tiled"}, {"launches", 3}}});
    s.binding.experiment = "ab-1";
    s.binding.arm = "baseline";
    s.binding.source = "cupti";
    s.binding.measured_at = "2026-11-30T00:00:00.000Z";
    return s;
}

} // namespace

class TestStudy : public QObject {
    Q_OBJECT

private slots:
    void roundTripKeepsEveryField()
    {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "s.json";
        Study s = sample_study();
        save_study(s, path);
        const Study back = load_study(path);
        QCOMPARE(study_to_json(back).dump(), study_to_json(s).dump());
        QCOMPARE(back.experiments.at(0).samples.at(0).iterations.size(), size_t(2));
        QCOMPARE(back.experiments.at(0).plan.order, RunOrder::RandomisedBlocks);
        QVERIFY(!back.modified_at.empty());
    }

    void brokenFilesNameTheProblem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        // A plain literal: moc loses its place on a raw string with unbalanced braces.
        QTest::addRow("truncated") << "{\"schema_version\": 2, \"name\": \"x\", \"experi"
                                   << "not valid JSON";
        QTest::addRow("not an object") << "[1, 2]"
                                       << "not a Kernel Workbench study";
        QTest::addRow("no version") << R"({"name": "x"})"
                                    << "'schema_version' missing";
        QTest::addRow("newer") << R"({"schema_version": 99, "name": "x"})"
                               << "newer Kernel Workbench";
        QTest::addRow("no name") << R"({"schema_version": 2})"
                                 << "field 'name': missing";
        QTest::addRow("bad runs")
            << R"({"schema_version": 2, "name": "x", "experiments": [{"id": "a", "workload": "gemm",
            "metric": "t", "arms": [], "plan": {"runs_per_arm": "five"}}]})"
            << "field 'experiments[0].plan.runs_per_arm': expected an integer";
        QTest::addRow("bad sample")
            << R"({"schema_version": 2, "name": "x", "experiments": [{"id": "a", "workload": "g",
            "metric": "t", "arms": [], "samples": [{"arm": "baseline", "rep": 0}]}]})"
            << "field 'experiments[0].samples[0].position': missing";
        QTest::addRow("bad order") << R"({"schema_version": 2, "name": "x", "experiments": [{"id": "a", "workload": "g",
            "metric": "t", "arms": [], "plan": {"order": "zigzag"}}]})"
                                   << "unknown value \"zigzag\"";
        QTest::addRow("runs beyond int")
            << R"({"schema_version": 2, "name": "x", "experiments": [{"id": "a", "workload": "g",
            "metric": "t", "arms": [], "plan": {"runs_per_arm": 4294967297}}]})"
            << "field 'experiments[0].plan.runs_per_arm': 4294967297 is out of range";
        QTest::addRow("warm-ups beyond int")
            << R"({"schema_version": 2, "name": "x", "experiments": [{"id": "a", "workload": "g",
            "metric": "t", "arms": [], "plan": {"warmup_runs": 4294967296}}]})"
            << "plan.warmup_runs': 4294967296 is out of range";
        QTest::addRow("position beyond int")
            << R"({"schema_version": 2, "name": "x", "experiments": [{"id": "a", "workload": "g",
            "metric": "t", "arms": [], "samples": [{"arm": "baseline", "rep": 0, "position": 9223372036854775807}]}]})"
            << "samples[0].position': 9223372036854775807 is out of range";
        QTest::addRow("version beyond int") << R"({"schema_version": 4294967298, "name": "x"})"
                                            << "newer Kernel Workbench";
        // Names that become part of a path (study/path_names.h), and ids that must be unique.
        QTest::addRow("id stepping out") << R"({"schema_version": 3, "name": "x", "experiments": [{"id": "../../trav",
            "workload": "g", "metric": "t", "arms": []}]})"
                                         << "field 'experiments[0].id': \"../../trav\" contains '/'";
        QTest::addRow("absolute id")
            << R"({"schema_version": 3, "name": "x", "experiments": [{"id": "a", "workload": "g",
            "metric": "t", "arms": []}, {"id": "/tmp/abs", "workload": "g", "metric": "t", "arms": []}]})"
            << "field 'experiments[1].id': \"/tmp/abs\" contains '/'";
        QTest::addRow("id of dots") << R"({"schema_version": 3, "name": "x", "experiments": [{"id": "..",
            "workload": "g", "metric": "t", "arms": []}]})"
                                    << "field 'experiments[0].id': \"..\" starts with '.'";
        QTest::addRow("empty id") << R"({"schema_version": 3, "name": "x", "experiments": [{"id": "",
            "workload": "g", "metric": "t", "arms": []}]})"
                                  << "field 'experiments[0].id': \"\" is empty";
        QTest::addRow("control character in an id")
            << "{\"schema_version\": 3, \"name\": \"x\", \"experiments\": [{\"id\": \"a\\u001b[2J\", \"workload\": "
               "\"g\", \"metric\": \"t\", \"arms\": []}]}"
            << "field 'experiments[0].id': \"a\\u001b[2J\" contains the byte 0x1b";
        QTest::addRow("absurd id") << QString::fromLatin1(
            R"({"schema_version": 3, "name": "x", "experiments": [{"id": "%1", "workload": "g",
            "metric": "t", "arms": []}]})")
                                          .arg(QString(5000, QLatin1Char('x')))
                                   << "is 5000 characters long (at most 100)";
        QTest::addRow("arm name with a slash") << R"({"schema_version": 3, "name": "x", "experiments": [{"id": "a",
            "workload": "g", "metric": "t", "arms": [{"name": "baseline"}, {"name": "x/../../y"}]}]})"
                                               << "field 'experiments[0].arms[1].name': \"x/../../y\" contains '/'";
        QTest::addRow("grid id with a slash")
            << R"({"schema_version": 3, "name": "x", "grids": [{"id": "../g", "variables": []}]})"
            << "field 'grids[0].id': \"../g\" contains '/'";
        QTest::addRow("two experiments of one id")
            << R"({"schema_version": 3, "name": "x", "experiments": [{"id": "ab-1", "workload": "g", "metric": "t",
            "arms": []}, {"id": "ab-2", "workload": "g", "metric": "t", "arms": []}, {"id": "ab-1", "workload": "g",
            "metric": "t", "arms": []}]})"
            << "field 'experiments[2].id': two experiments have the id 'ab-1' (experiments[0] and [2]); ids must be "
               "unique in a study";
        QTest::addRow("two grids of one id")
            << R"({"schema_version": 3, "name": "x", "grids": [{"id": "grid-1", "variables": []},
            {"id": "grid-1", "variables": []}]})"
            << "field 'grids[1].id': two grids have the id 'grid-1'";
    }

    void brokenFilesNameTheProblem()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parse_study(text.toStdString(), "broken.json");
            QFAIL("a broken study loaded");
        } catch (const StudyLoadError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith(u"broken.json: "), qPrintable(what));
            QVERIFY2(what.contains(expected), qPrintable(what));
            QVERIFY2(!what.contains(u'\n'), "the error is one line");
        }
    }

    void failedLoadLeavesTheFileUntouched()
    {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "broken.json";
        const std::string text = "{\"schema_version\": 2, \"name\": ";
        write_file_atomically(path, text);
        QVERIFY_THROWS_EXCEPTION(StudyLoadError, load_study(path));
        QCOMPARE(read_file(path), text);
    }

    void versionOneMigrates()
    {
        const Study s = parse_study(R"({"schema_version": 1, "name": "old", "notes": "kept",
            "target": {"metric": "ttft_ms", "direction": "lower", "unit": "ms", "current": 210, "goal": 180}})",
            "old.json");
        QCOMPARE(s.schema_version, kStudySchemaVersion);
        QCOMPARE(s.description, std::string("kept"));
        QCOMPARE(*s.target.goal, 180.0);
        QVERIFY(s.experiments.empty());
    }

    void versionTwoMigratesWithoutCalibration()
    {
        // A v2 experiment was planned without calibrated repetitions: resumed, it must keep its
        // workload's own iteration count, so its plan reads min_rep_ms 0; new plans default to 10.
        const Study s = parse_study(R"({"schema_version": 2, "name": "old", "experiments": [
            {"id": "a", "workload": "gemm", "metric": "time_ms", "arms": [], "plan": {"runs_per_arm": 4}},
            {"id": "b", "workload": "gemm", "metric": "time_ms", "arms": []}]})",
            "v2.json");
        QCOMPARE(s.schema_version, kStudySchemaVersion);
        QCOMPARE(s.experiments.at(0).plan.min_rep_ms, 0.0);
        QCOMPARE(s.experiments.at(0).plan.runs_per_arm, 4);
        QCOMPARE(s.experiments.at(1).plan.min_rep_ms, 0.0);
        QVERIFY(s.experiments.at(0).device.empty());
        QVERIFY(!s.experiments.at(0).launches_per_rep);
        QCOMPARE(RunPlan {}.min_rep_ms, 10.0);
    }

    void bindingWithoutTheProfileFieldsLoads()
    {
        // A v2 binding section (constraint, notes, metrics only): the profile's fields default.
        const Study s = parse_study(R"({"schema_version": 2, "name": "old",
            "binding": {"constraint": "memory-bandwidth", "notes": "from ncu", "metrics": {"dram_pct": 83}}})",
            "v2.json");
        QCOMPARE(s.binding.constraint, std::string("memory-bandwidth"));
        QCOMPARE(s.binding.notes, std::string("from ncu"));
        QVERIFY(s.binding.measured_at.empty());
        QVERIFY(s.binding.evidence.empty());
        QVERIFY(s.binding.kernels.is_array() && s.binding.kernels.empty());
        QVERIFY(s.binding.thresholds.is_object() && s.binding.thresholds.empty());
    }

    void sameDeviceMeansSameModel()
    {
        const DeviceIdentity h200a {"cuda", "NVIDIA H200", "GPU-a", 0, ""};
        const DeviceIdentity h200b {"cuda", "NVIDIA H200", "GPU-b", 1, ""};
        const DeviceIdentity a100 {"cuda", "NVIDIA A100-SXM4-80GB", "GPU-c", 0, ""};
        const DeviceIdentity cpu {"cpu", "NVIDIA H200", "", std::nullopt, ""};
        QVERIFY(same_device(h200a, h200b));
        QVERIFY(!same_device(h200a, a100));
        QVERIFY(!same_device(h200a, cpu));
        QVERIFY(same_device(DeviceIdentity {}, a100)); // not yet recorded: anything goes
        QCOMPARE(describe(h200a), std::string("NVIDIA H200 (cuda 0, GPU-a)"));
        const auto id = identity_from_sheet(
            {{"kind", "cuda"}, {"name", "NVIDIA H200"}, {"index", 0}, {"uuid", "GPU-a"}, {"driver_version", 13000}});
        QCOMPARE(id.model, std::string("NVIDIA H200"));
        QCOMPARE(*id.index, 0);
        QCOMPARE(id.driver, std::string("13000"));
    }

    void deviceIdentityIsSpelledAsTheSheet()
    {
        // One spelling of a device's model: "name", as `kwb devices` and the hardware sheet say it.
        const DeviceIdentity h200 {"cuda", "NVIDIA H200", "GPU-a", 0, "580.95"};
        const nlohmann::json j = device_identity_json(h200);
        QCOMPARE(j.at("name").get<std::string>(), std::string("NVIDIA H200"));
        QVERIFY(!j.contains("model"));
        QCOMPARE(device_identity_from(JsonReader(j, "device")).model, h200.model);
        // A line of the A/A history written before schema 6 still reads.
        const nlohmann::json old = {{"kind", "cuda"}, {"model", "NVIDIA H200"}, {"uuid", "GPU-a"}};
        QCOMPARE(device_identity_from(JsonReader(old, "device")).model, std::string("NVIDIA H200"));

        // A version 5 study is migrated: device.model becomes device.name, and is saved so.
        const Study s = parse_study(R"({"schema_version": 5, "name": "v5", "experiments": [{"id": "a",
            "workload": "gemm", "metric": "time_ms", "arms": [], "device": {"kind": "cuda",
            "model": "NVIDIA H200", "uuid": "GPU-a", "index": 0, "driver": ""}}]})",
            "v5.json");
        QCOMPARE(s.schema_version, kStudySchemaVersion);
        QCOMPARE(s.experiments.at(0).device.model, std::string("NVIDIA H200"));
        const auto saved = nlohmann::json::parse(study_text(s));
        QCOMPARE(saved["experiments"][0]["device"]["name"].get<std::string>(), std::string("NVIDIA H200"));
        QVERIFY(!saved["experiments"][0]["device"].contains("model"));
        QVERIFY(same_device(s.experiments.at(0).device, h200));
    }

    // Schema 7 adds an experiment's expect_differ (kwb new --expect-differ): a version 6 study reads
    // with none declared and is saved as 7; a declared list is kept; a malformed one is refused.
    void schema6MigratesToSevenWithExpectDiffer()
    {
        const Study old = parse_study(R"({"schema_version": 6, "name": "v6", "experiments": [{"id": "a",
            "workload": "command", "metric": "time_ms", "arms": []}]})",
            "v6.json");
        QVERIFY(kStudySchemaVersion >= 7);
        QCOMPARE(old.schema_version, kStudySchemaVersion);
        QVERIFY(old.experiments.at(0).expect_differ.empty());
        const auto saved = nlohmann::json::parse(study_text(old));
        QCOMPARE(saved["schema_version"].get<int>(), kStudySchemaVersion);
        QVERIFY(!saved["experiments"][0].contains("expect_differ")); // none declared: not written
        Study s = old;
        s.experiments[0].expect_differ = {"benchmark", "Grid Size"};
        const Study back = parse_study(study_text(s), "v7.json");
        QCOMPARE(back.experiments.at(0).expect_differ, (std::vector<std::string> {"benchmark", "Grid Size"}));
        for (const char* bad : {R"("expect_differ": [3])", R"("expect_differ": [""])", R"("expect_differ": "x")"}) {
            const std::string text = fmt::format(R"({{"schema_version": 7, "name": "v7", "experiments": [{{"id": "a",
                "workload": "command", "metric": "time_ms", "arms": [], {}}}]}})",
                bad);
            try {
                (void)parse_study(text, "bad.json");
                QFAIL(bad);
            } catch (const StudyLoadError& e) {
                QVERIFY2(std::string(e.what()).find("expect_differ") != std::string::npos, e.what());
            }
        }
    }

    // Schema 9 adds a kwb bisect step's search record: a version 8 study reads with none and is saved
    // as 9 without the field; a record is kept; one that cannot be a search's state is refused.
    void schema8MigratesToNineWithBisectRecords()
    {
        const Study old = parse_study(R"({"schema_version": 8, "name": "v8", "experiments": [{"id": "bisect-1",
            "workload": "command", "metric": "time_ms", "arms": []}]})",
            "v8.json");
        QCOMPARE(kStudySchemaVersion, 9);
        QCOMPARE(old.schema_version, kStudySchemaVersion);
        QVERIFY(!old.experiments.at(0).bisect);
        QVERIFY(!nlohmann::json::parse(study_text(old))["experiments"][0].contains("bisect"));
        Study s = old;
        s.experiments[0].bisect = BisectStepRecord {std::string(40, 'b'), 5, 2};
        const Study back = parse_study(study_text(s), "v9.json");
        QVERIFY(back.experiments.at(0).bisect);
        QCOMPARE(back.experiments.at(0).bisect->bad_sha, std::string(40, 'b'));
        QCOMPARE(back.experiments.at(0).bisect->commits_in_range, 5);
        QCOMPARE(back.experiments.at(0).bisect->commits_left, 2);
        for (const char* bad : {R"({"bad_sha": "", "commits_in_range": 2, "commits_left": 0})",
                 R"({"bad_sha": "b", "commits_in_range": 2, "commits_left": 2})",
                 R"({"bad_sha": "b", "commits_in_range": 0, "commits_left": 0})",
                 R"({"bad_sha": "b", "commits_in_range": 2, "commits_left": -1})", R"("x")"}) {
            const std::string text = fmt::format(R"({{"schema_version": 9, "name": "v9", "experiments": [{{"id": "a",
                "workload": "command", "metric": "time_ms", "arms": [], "bisect": {}}}]}})",
                bad);
            try {
                (void)parse_study(text, "bad.json");
                QFAIL(bad);
            } catch (const StudyLoadError& e) {
                QVERIFY2(std::string(e.what()).find("bisect") != std::string::npos, e.what());
            }
        }
    }

    void nullMeasurementsLoad()
    {
        // What a save writes for a repetition that returned NaN or infinity (JSON has neither).
        const Study s = parse_study(R"({"schema_version": 2, "name": "x", "experiments": [{"id": "a", "workload": "g",
            "metric": "t", "arms": [], "samples": [{"arm": "baseline", "rep": 0, "position": 0, "discarded": true,
            "metrics": {"t": null, "gflops": 2.5}, "iterations": [1.0, null]}]}]})",
            "nan.json");
        const Sample& x = s.experiments.at(0).samples.at(0);
        QCOMPARE(x.metrics.count("t"), size_t(0));
        QCOMPARE(x.metrics.at("gflops"), 2.5);
        QCOMPARE(x.iterations.size(), size_t(2));
        QVERIFY(std::isnan(x.iterations[1]));
    }

    void saveThroughASymlinkUpdatesItsTarget()
    {
        const LinkedFile f("old\n");
        const auto& [root, real, link] = f.paths;
        Study s = sample_study();
        save_study(s, link);
        QVERIFY(std::filesystem::is_symlink(link));
        QCOMPARE(load_study(real).name, s.name);
        for (const auto& entry : std::filesystem::directory_iterator(root / "data"))
            QCOMPARE(entry.path().filename().string(), std::string("real.json")); // no temporary left
    }

    void lockThroughASymlinkLocksItsTarget()
    {
        const LinkedFile f("{}\n");
        const auto& [root, real, link] = f.paths;
        QCOMPARE(link_target(link), real);
        QCOMPARE(study_lock_path(link), study_lock_path(real));
        QCOMPARE(study_lock_path(real).parent_path(), real.parent_path());
        LockHolder holder;
        auto through_link = StudyLock::try_acquire(link, &holder);
        QVERIFY(through_link && through_link->held());
        QVERIFY(study_lock_holder(real).has_value()); // a writer of the target sees the link's lock
        QVERIFY(!study_lock_holder(root / "other.json").has_value());
    }

    // One writer per file: a hard link is a second name with a second sidecar, and the inode lock
    // refuses it, also after the holder's save gave its own name a new inode.
    void lockThroughAHardLinkIsRefused()
    {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        const auto one = root / "one.json", two = root / "two.json";
        Study s = sample_study();
        save_study(s, one);
        std::filesystem::create_hard_link(one, two);
        LockHolder holder;
        auto first = StudyLock::try_acquire(one, &holder);
        QVERIFY(first && first->held());
        QVERIFY(!StudyLock::try_acquire(two, &holder));
        if (::access("/proc/locks", R_OK) == 0) // where the kernel lists locks, the holder is named
            QCOMPARE(holder.pid, static_cast<long>(::getpid()));
        QVERIFY(study_lock_holder(two).has_value());
        QVERIFY(!std::filesystem::exists(study_lock_path(two))); // the refused one left nothing behind

        save_study(s, one); // a new inode for one.json; two.json keeps the old one
        QVERIFY(!std::filesystem::equivalent(one, two));
        QVERIFY(!StudyLock::try_acquire(two, &holder));
        QVERIFY(study_lock_holder(two).has_value());

        first->release();
        auto after = StudyLock::try_acquire(two, &holder);
        QVERIFY(after && after->held());
    }

    void lockingANonRegularStudyIsRefused()
    {
        QTemporaryDir dir;
        const std::filesystem::path fifo = std::filesystem::path(dir.path().toStdString()) / "s.json";
        QCOMPARE(::mkfifo(fifo.c_str(), 0644), 0);
        LockHolder holder;
        QVERIFY_THROWS_EXCEPTION(NotARegularFile, StudyLock::try_acquire(fifo, &holder));
        QVERIFY(!std::filesystem::exists(study_lock_path(fifo)));
        QVERIFY(!study_lock_holder(fifo).has_value());
    }

    void missingFileIsAnError() { QVERIFY_THROWS_EXCEPTION(StudyLoadError, load_study("/nonexistent/dir/s.json")); }

    void judgedValuesSkipWarmupAndDiscarded()
    {
        Experiment e;
        auto add = [&](const char* arm, int pos, double v, bool warm, bool discarded) {
            Sample s;
            s.arm = arm;
            s.position = pos;
            s.metrics["t"] = v;
            s.warmup = warm;
            s.discarded = discarded;
            e.samples.push_back(s);
        };
        add("baseline", 3, 3.0, false, false);
        add("baseline", 0, 99.0, true, false);
        add("baseline", 1, 1.0, false, false);
        add("baseline", 2, 42.0, false, true);
        add("treatment", 4, 7.0, false, false);
        QCOMPARE(judged_values(e, "baseline", "t"), (std::vector<double> {1.0, 3.0}));
    }
};

QTEST_GUILESS_MAIN(TestStudy)
#include "tst_study.moc"
