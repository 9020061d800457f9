// SPDX-License-Identifier: GPL-3.0-or-later
// Worker arms in the study (schema 5, docs/study-format.md): the codec round trip, the migration
// from schema 4, the loader's errors naming the field, and the arm diff of worker arms.
#include "study/arm_diff.h"
#include "study/study_file.h"
#include "study/study_json.h"
#include "study/study_text.h"

#include <QTest>

using namespace kwb;

namespace {

WorkerSpec worker(const std::string& cmd)
{
    WorkerSpec w;
    w.cmd = cmd;
    w.cwd = "/tmp";
    w.env = {{"TRITON_CACHE_DIR", "/tmp/tc"}};
    w.timeout_s = 120;
    w.atol = 1e-3;
    w.rtol = 2e-2;
    w.description.worker = "triton-matmul";
    w.description.version = "0.1";
    w.description.params = {{"block_k", 32, {32, 64, 128}, "K tile"}, {"dtype", "bf16", {}, ""}};
    w.description.metrics = {{"tokens", "tok", Direction::Higher}};
    w.description.device = {"cuda", "GPU-8c1a", "NVIDIA H200", 0};
    w.description.timer = "cuda_events";
    w.description.has_reference = true;
    return w;
}

Study worker_study()
{
    Study s;
    s.name = "w";
    Experiment e;
    e.id = "ab-1";
    e.workload = "worker";
    e.metric = "time_ms";
    Arm a {"baseline", {{"block_k", 32}}}, b {"treatment", {{"block_k", 64}}};
    a.worker = worker("python3 matmul.py");
    b.worker = worker("python3 matmul.py");
    e.arms = {a, b};
    s.experiments.push_back(e);
    return s;
}

} // namespace

class TestWorkerSpec : public QObject {
    Q_OBJECT
private slots:
    void roundTrip()
    {
        const Study s = parse_study(study_text(worker_study()), "w.json");
        QCOMPARE(s.schema_version, kStudySchemaVersion);
        const auto& w = *s.experiments.front().arms[1].worker;
        QCOMPARE(w.cmd, std::string("python3 matmul.py"));
        QCOMPARE(w.env.at("TRITON_CACHE_DIR"), std::string("/tmp/tc"));
        QCOMPARE(w.timeout_s, 120.0);
        QCOMPARE(w.atol, 1e-3);
        QCOMPARE(w.rtol, 2e-2);
        QCOMPARE(w.description.params.size(), size_t(2));
        QCOMPARE(w.description.params[0].values.size(), size_t(3));
        QCOMPARE(w.description.params[1].default_value.get<std::string>(), std::string("bf16"));
        QCOMPARE(w.description.metrics.at(0).direction, Direction::Higher);
        QCOMPARE(w.description.device.uuid, std::string("GPU-8c1a"));
        QCOMPARE(w.description.device.index.value_or(-1), 0);
        QCOMPARE(w.description.timer, std::string("cuda_events"));
        QVERIFY(w.description.has_reference);
        QCOMPARE(study_text(s), study_text(parse_study(study_text(s), "again.json")));
    }

    void schemaFourMigrates()
    {
        const Study s = parse_study(R"({"schema_version": 4, "name": "old", "experiments": [
            {"id": "a", "workload": "command", "metric": "time_ms", "arms": [
                {"name": "baseline", "command": {"cmd": "true", "max_output_mib": 8}},
                {"name": "treatment", "command": {"cmd": "false"}}]}]})",
            "v4.json");
        QCOMPARE(s.schema_version, kStudySchemaVersion);
        for (const auto& arm : s.experiments.front().arms) {
            QVERIFY(arm.command.has_value());
            QVERIFY(!arm.worker.has_value());
        }
        QCOMPARE(s.experiments.front().arms[0].command->max_output_mib, 8.0);
        // A file of the next schema is refused, naming the version.
        const std::string newer
            = R"({"schema_version": )" + std::to_string(kStudySchemaVersion + 1) + R"(, "name": "new"})";
        QVERIFY_THROWS_EXCEPTION(StudyLoadError, parse_study(newer, "newer.json"));
    }

    void badWorkerFieldsAreNamed_data()
    {
        QTest::addColumn<QString>("patch"); // replaces the treatment's worker object
        QTest::addColumn<QString>("expected");
        QTest::addRow("empty cmd") << R"({"cmd": ""})"
                                   << "worker.cmd";
        QTest::addRow("timeout") << R"({"cmd": "w", "timeout_s": 0})"
                                 << "worker.timeout_s";
        QTest::addRow("rtol") << R"({"cmd": "w", "rtol": -1})"
                              << "worker.rtol";
        QTest::addRow("param without default") << R"({"cmd": "w", "description": {"params": [{"name": "k"}]}})"
                                               << "params[0].default";
        QTest::addRow("device kind") << R"({"cmd": "w", "description": {"device": {"kind": "tpu"}}})"
                                     << "device.kind";
    }
    void badWorkerFieldsAreNamed()
    {
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        nlohmann::json doc = nlohmann::json::parse(study_text(worker_study()));
        doc["experiments"][0]["arms"][1]["worker"] = nlohmann::json::parse(patch.toStdString());
        try {
            (void)parse_study(doc.dump(), "bad.json");
            QFAIL("loaded");
        } catch (const StudyLoadError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(expected), e.what());
        }
        // An arm is a command or a worker, never both.
        doc = nlohmann::json::parse(study_text(worker_study()));
        doc["experiments"][0]["arms"][1]["command"] = {{"cmd", "true"}};
        QVERIFY_THROWS_EXCEPTION(StudyLoadError, parse_study(doc.dump(), "both.json"));
    }

    void armDiffOfWorkers()
    {
        Study s = worker_study();
        auto& arms = s.experiments.front().arms;
        // One command: the parameters, defaults from the description (dtype bf16 on both).
        ArmDiff d = diff_arm_pair(arms[0], arms[1]);
        QCOMPARE(d.names(), std::string("block_k"));
        arms[1].params = {{"block_k", 32}, {"dtype", "bf16"}}; // the default, forced on one side
        d = diff_arm_pair(arms[0], arms[1]);
        QVERIFY(d.differences.empty()); // an A/A
        QCOMPARE(d.one_sided, std::vector<std::string> {"dtype"});
        // Settings count too.
        arms[1].worker->rtol = 0.5;
        arms[1].worker->env["TRITON_CACHE_DIR"] = "/other";
        QCOMPARE(diff_arm_pair(arms[0], arms[1]).names(), std::string("env.TRITON_CACHE_DIR, rtol"));
        // Two commands: what differs, as text, like two command arms.
        arms[1] = arms[0];
        arms[1].worker->cmd = "python3 matmul_v2.py";
        arms[1].params = {{"block_k", 64}};
        d = diff_arm_pair(arms[0], arms[1]);
        QCOMPARE(d.names(), std::string("command"));
        QCOMPARE(d.differences[0].treatment.get<std::string>(), std::string("python3 matmul_v2.py"));
    }
};

QTEST_GUILESS_MAIN(TestWorkerSpec)
#include "tst_worker_spec.moc"
