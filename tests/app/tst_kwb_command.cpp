// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb new --baseline-cmd/--treatment-cmd` then `kwb run`, as a user would: the stand-in benchmark
// and a real Google Benchmark binary as the arms, a failing treatment (exit 1, what finished kept),
// the option errors (exit 2), and `kwb adapters --json`.
#include "kwb_process.h"

#include <QJsonArray>
#include <QTemporaryDir>

using namespace kwbtest;

namespace {

QString L(const char* text)
{
    return QString::fromUtf8(text);
}

} // namespace

namespace {

const QString kStandin = QStringLiteral(KWB_BIN_DIR "/kwb_standin_bench");
const QString kGbench = QStringLiteral(KWB_BIN_DIR "/kwb_gbench_sum");

} // namespace

class TestKwbCommand : public QObject {
    Q_OBJECT
private slots:
    void adapters_json()
    {
        const auto r = kwb({L("adapters"), L("--json")});
        QCOMPARE(r.exit_code, 0);
        const auto doc = QJsonDocument::fromJson(r.out).object();
        QStringList names;
        for (const auto& a : doc[L("adapters")].toArray())
            names << a.toObject()[L("name")].toString();
        for (const char* n :
            {"nvbench", "gbench", "ncu", "vllm", "sglang", "genai-perf", "llama-bench", "keymap", "regex"})
            QVERIFY2(names.contains(QString::fromLatin1(n)), n);
        QVERIFY(!doc[L("canonical_metrics")].toArray().isEmpty());
        QCOMPARE(kwb({L("adapters")}).exit_code, 0);
    }
    void standin_ab_reaches_a_verdict()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        // A fixed --sequence: six random draws look bimodal to the spec's rule about once in twenty
        // arms, which made this verdict depend on luck.
        const QString base_seq = dir.filePath(L("base.seq")), treat_seq = dir.filePath(L("treat.seq"));
        auto r = kwb({L("new"), L("--baseline-cmd"),
            kStandin + L(" --format vllm --mean 80 --sequence ") + base_seq + L(" --out {out}"), L("--treatment-cmd"),
            kStandin + L(" --format vllm --mean 60 --sequence ") + treat_seq + L(" --out {out}"), L("--metric"),
            L("mean_ttft_ms"), L("--runs"), L("5"), L("--timeout"), L("60"), L("--env"), L("KWB_TEST=1"),
            L("--check-cmd"), L("true"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        auto s = load(study);
        const auto e = s[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("workload")].toString(), L("command"));
        QCOMPARE(e[L("arms")].toArray()[1].toObject()[L("command")].toObject()[L("timeout_s")].toDouble(), 60.0);
        r = kwb({L("run"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        s = load(study);
        const auto done = s[L("experiments")].toArray()[0].toObject();
        QCOMPARE(done[L("status")].toString(), L("done"));
        QCOMPARE(done[L("verdict")].toObject()[L("verdict")].toString(), L("LICENSE")); // 25% lower TTFT
        QCOMPARE(done[L("samples")].toArray()[0].toObject()[L("adapter")].toString(), L("vllm"));
    }
    // --aa-arm on the command form: a third arm runs the baseline command again, interleaved, to
    // the same n. The stand-in's noise is its fixed --sequence, so the verdicts cannot be luck.
    void aa_arm_runs_the_baseline_command_again()
    {
        QTemporaryDir dir;
        qputenv("XDG_STATE_HOME", dir.filePath(L("state")).toUtf8()); // a private A/A history
        const QString study = dir.filePath(L("s.json"));
        const QString baseline = kStandin + L(" --format vllm --mean 80 --noise 0.01 --sequence ")
            + dir.filePath(L("baseline.seq")) + L(" --out {out}");
        auto r = kwb({L("new"), L("--baseline-cmd"), baseline, L("--treatment-cmd"),
            kStandin + L(" --format vllm --mean 60 --noise 0.01 --sequence ") + dir.filePath(L("treatment.seq"))
                + L(" --out {out}"),
            L("--metric"), L("mean_ttft_ms"), L("--runs"), L("6"), L("--warmup"), L("0"), L("--check-cmd"), L("true"),
            L("--aa-arm"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.err.contains("with an A/A arm (baseline-aa)"), r.err.constData());
        auto e = load(study)[L("experiments")].toArray()[0].toObject();
        const auto arms = e[L("arms")].toArray();
        QCOMPARE(arms.size(), 3);
        QCOMPARE(arms[2].toObject()[L("role")].toString(), L("aa"));
        QCOMPARE(arms[2].toObject()[L("command")].toObject()[L("cmd")].toString(), baseline);

        r = kwb({L("run"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("ab-1: A/A at n = 6: NOISE, delta "), r.out.constData());
        QVERIFY2(r.out.contains("ab-1: A/A history on "), r.out.constData());
        e = load(study)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("verdict")].toObject()[L("verdict")].toString(), L("LICENSE")); // 25% lower TTFT
        const auto aa = e[L("aa_verdict")].toObject();
        QCOMPARE(aa[L("verdict")].toString(), L("NOISE"));
        QCOMPARE(aa[L("n_baseline")].toInt(), 6);
        QCOMPARE(aa[L("n_treatment")].toInt(), 6);
        int again = 0;
        for (const auto& x : e[L("samples")].toArray())
            again += x.toObject()[L("arm")].toString() == L("baseline-aa")
                && x.toObject()[L("adapter")].toString() == L("vllm");
        QCOMPARE(again, 6); // the baseline command itself ran, read by the same adapter
        qunsetenv("XDG_STATE_HOME");
    }
    void failing_treatment_exits_1_and_keeps_samples()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        QCOMPARE(kwb({L("new"), L("--baseline-cmd"), kStandin + L(" --format gbench"), L("--treatment-cmd"),
                         kStandin + L(" --format gbench --exit 3"), L("--adapter"), L("gbench"), L("--runs"), L("5"),
                         L("--warmup"), L("0"), L("--out"), study})
                     .exit_code,
            0);
        const auto r = kwb({L("run"), study});
        QCOMPARE(r.exit_code, 1);
        const auto e = load(study)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("status")].toString(), L("failed"));
        int failed = 0, ok = 0;
        for (const auto& x : e[L("samples")].toArray()) {
            const auto o = x.toObject();
            if (o[L("failed")].toBool()) {
                ++failed;
                QCOMPARE(o[L("exit_status")].toInt(), 3);
                QVERIFY(o[L("stderr_tail")].toString().contains(L("failing on purpose")));
                QVERIFY(o[L("metrics")].toObject().isEmpty());
            } else {
                ++ok;
            }
        }
        QCOMPARE(failed, 3); // max(2, 20% of 5) + 1
        QVERIFY(ok >= 2);
    }
    // Under the failure limit a plan can complete with an arm that never succeeded (2 runs per arm,
    // max(2, 20%) = 2 failures allowed): that is a failed run, exit 1, not done with exit 0.
    void arm_without_a_successful_repetition_fails_data()
    {
        QTest::addColumn<QString>("baseline");
        QTest::addColumn<QString>("failing");
        QTest::addRow("both arms fail") << L("exit 3") << L("baseline"); // not `false` twice: two commands must differ
        QTest::addRow("treatment only") << kStandin + L(" --format gbench") << L("treatment");
    }
    void arm_without_a_successful_repetition_fails()
    {
        QFETCH(QString, baseline);
        QFETCH(QString, failing);
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        QCOMPARE(kwb({L("new"), L("--baseline-cmd"), baseline, L("--treatment-cmd"), L("false"), L("--adapter"),
                         L("gbench"), L("--runs"), L("2"), L("--warmup"), L("0"), L("--out"), study})
                     .exit_code,
            0);
        const auto r = kwb({L("run"), study});
        QCOMPARE(r.exit_code, 1);
        const QString expected = L("arm %1: all 2 of its timed repetitions failed").arg(failing);
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
        const auto e = load(study)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("status")].toString(), L("failed"));
        QVERIFY2(e[L("error")].toString().contains(expected), qPrintable(e[L("error")].toString()));
        QVERIFY(e[L("verdict")].isNull());
        QCOMPARE(e[L("samples")].toArray().size(), 4); // every repetition kept
    }
    void option_errors()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        QCOMPARE(kwb({L("new"), L("--baseline-cmd"), L("x"), L("--out"), study}).exit_code, 2);
        QCOMPARE(kwb({L("new"), L("--baseline-cmd"), L("x"), L("--treatment-cmd"), L("y"), L("--adapter"), L("nope"),
                         L("--out"), study})
                     .exit_code,
            2);
        QCOMPARE(kwb({L("new"), L("--baseline-cmd"), L("x"), L("--treatment-cmd"), L("y"), L("--timeout"), L("-1"),
                         L("--out"), study})
                     .exit_code,
            2);
        QCOMPARE(kwb({L("new"), L("--workload"), L("gemm"), L("--vary"), L("block=32,128"), L("--timeout"), L("5"),
                         L("--out"), study})
                     .exit_code,
            2);
        QCOMPARE(
            kwb({L("new"), L("--baseline-cmd"), L("x"), L("--treatment-cmd"), L("x"), L("--out"), study}).exit_code, 2);
    }
    // --expect-differ: an undeclared differing fingerprint field blocks the verdict and names the
    // option; a declared one is recorded and shown (the study, the final verdict's reasons, kwb
    // report), not a blocker; a field the adapter does not report is refused at kwb new.
    void expect_differ_declares_a_fingerprint_difference()
    {
        QTemporaryDir dir;
        const auto arm = [&](const char* mean, const char* model, const QString& seq) -> QString {
            return kStandin
                + L(" --format vllm --mean %1 --model %2 --sequence %3 --out {out}").arg(L(mean), L(model), seq);
        };
        const auto make = [&](const QString& study, const QStringList& extra) {
            QStringList args {L("new"), L("--baseline-cmd"), arm("80", "a", study + L(".b")), L("--treatment-cmd"),
                arm("60", "b", study + L(".t")), L("--metric"), L("mean_ttft_ms"), L("--runs"), L("6"), L("--warmup"),
                L("0"), L("--check-cmd"), L("true"), L("--out"), study};
            return kwb(args + extra);
        };
        const auto reasons = [](const QJsonObject& e) {
            QStringList out;
            for (const auto& x : e[L("final_verdict")].toObject()[L("reasons")].toArray())
                out << x.toString();
            return out.join(L("\n"));
        };
        const QString refused = dir.filePath(L("refused.json"));
        auto r = make(refused, {L("--adapter"), L("vllm"), L("--expect-differ"), L("benchmark")});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.startsWith("kwb: --expect-differ: 'benchmark' is not a fingerprint field of the vllm adapter "
                                  "(fields: model_id, "),
            r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(!QFile::exists(refused));
        r = kwb({L("new"), L("--workload"), L("gemm"), L("--vary"), L("block=32,128"), L("--expect-differ"),
            L("benchmark"), L("--out"), refused});
        QCOMPARE(r.exit_code, 2); // built-in arms report no fingerprint
        QVERIFY2(r.err.contains("--expect-differ: applies to external commands only"), r.err.constData());

        const QString undeclared = dir.filePath(L("undeclared.json"));
        QCOMPARE(make(undeclared, {}).exit_code, 0);
        r = kwb({L("run"), undeclared});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        auto e = load(undeclared)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("final_verdict")].toObject()[L("verdict")].toString(), L("INCONCLUSIVE"));
        QVERIFY2(reasons(e).startsWith(L("matched controls: fingerprint field 'model_id' differs between arms "
                                         "(baseline 'a', treatment 'b'); if expected, `kwb new --expect-differ "
                                         "model_id`")),
            qPrintable(reasons(e)));

        const QString declared = dir.filePath(L("declared.json"));
        r = make(declared, {L("--expect-differ"), L("model_id")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        auto s = load(declared);
        QCOMPARE(s[L("schema_version")].toInt(), 9);
        e = s[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("expect_differ")].toArray(), QJsonArray {L("model_id")});
        r = kwb({L("run"), declared});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        e = load(declared)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("verdict")].toObject()[L("verdict")].toString(), L("LICENSE")); // 25% lower TTFT
        QVERIFY2(!reasons(e).contains(L("if expected")), qPrintable(reasons(e)));
        const QString note = L("matched controls: fingerprint field 'model_id' differs between arms as declared "
                               "(--expect-differ; not a blocker): baseline 'a', treatment 'b'");
        QVERIFY2(reasons(e).contains(note), qPrintable(reasons(e)));
        r = kwb({L("report"), declared, L("--format"), L("md")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(QString::fromUtf8(r.out).contains(note), r.out.constData());
    }
    // A command that uses a GPU records that GPU (kwb new --backend cuda, or kwb run --device N on
    // the default auto), never the host's CPU; without a GPU, cuda fails the run and auto stays on
    // the CPU. Both halves run here: which one is checked depends on the machine.
    void command_on_a_gpu_records_the_gpu()
    {
        QTemporaryDir dir;
        QString gpu_name;
        for (const auto& d :
            QJsonDocument::fromJson(kwb({L("devices"), L("--json")}).out).object()[L("devices")].toArray())
            if (d.toObject()[L("kind")].toString() == L("cuda") && d.toObject()[L("index")].toInt(-1) == 0)
                gpu_name = d.toObject()[L("name")].toString();
        const auto make = [&](const QString& study, const QStringList& extra) {
            return kwb(QStringList {L("new"), L("--baseline-cmd"), kStandin + L(" --format gbench"),
                           L("--treatment-cmd"), kStandin + L(" --format gbench --mean 12"), L("--adapter"),
                           L("gbench"), L("--runs"), L("2"), L("--warmup"), L("0"), L("--out"), study}
                + extra);
        };
        const auto device = [](const QString& study) {
            return load(study)[L("experiments")].toArray()[0].toObject()[L("device")].toObject();
        };
        const QString cuda = dir.filePath(L("cuda.json"));
        QCOMPARE(make(cuda, {L("--backend"), L("cuda")}).exit_code, 0);
        QCOMPARE(load(cuda)[L("experiments")].toArray()[0].toObject()[L("backend")].toString(), L("cuda"));
        auto r = kwb({L("run"), cuda, L("--no-cupti")});
        if (gpu_name.isEmpty()) {
            QCOMPARE(r.exit_code, 1);
            QVERIFY2(r.err.contains("the commands' GPU is not visible: no CUDA device 0 here"), r.err.constData());
        } else {
            QVERIFY2(r.exit_code == 0, r.err.constData());
            QCOMPARE(device(cuda)[L("kind")].toString(), L("cuda"));
            QCOMPARE(device(cuda)[L("name")].toString(), gpu_name);
        }
        const QString automatic = dir.filePath(L("auto.json"));
        QCOMPARE(make(automatic, {}).exit_code, 0);
        QCOMPARE(load(automatic)[L("experiments")].toArray()[0].toObject()[L("backend")].toString(), L("auto"));
        r = kwb({L("run"), automatic, L("--device"), L("0"), L("--no-cupti")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QCOMPARE(device(automatic)[L("kind")].toString(), gpu_name.isEmpty() ? L("cpu") : L("cuda"));
        const QString plain = dir.filePath(L("plain.json"));
        QCOMPARE(make(plain, {}).exit_code, 0);
        QCOMPARE(kwb({L("run"), plain}).exit_code, 0);
        QCOMPARE(device(plain)[L("kind")].toString(), L("cpu")); // no device named: the host's CPU
    }
    void test_arm_runs_once_and_records_nothing()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        QCOMPARE(kwb({L("new"), L("--baseline-cmd"), kStandin + L(" --format gbench --noise 0 --mean 2"),
                         L("--treatment-cmd"), kStandin + L(" --format gbench --exit 3"), L("--adapter"), L("gbench"),
                         L("--out"), study})
                     .exit_code,
            0);
        const QByteArray before = read_all(study);
        auto r = kwb({L("test-arm"), study, L("--arm"), L("baseline"), L("--json")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QJsonObject a = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(a[L("ok")].toBool(), true);
        QCOMPARE(a[L("adapter")].toString(), L("gbench"));
        QCOMPARE(a[L("metric")].toString(), L("time_ms"));
        QCOMPARE(a[L("value")].toDouble(), 2.0); // gbench real_time 2000 us
        QCOMPARE(read_all(study), before); // nothing recorded

        // The failing arm: exit 1, the reason in one line.
        r = kwb({L("test-arm"), study, L("--arm"), L("treatment")});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.out.startsWith("Read nothing: ") && r.out.contains("exit 3"), r.out.constData());

        // A command object as the window sends it; a metric the adapter does not produce is exit 1.
        const QString spec = dir.filePath(L("arm.json"));
        QJsonObject command;
        command[L("cmd")] = QString(kStandin + L(" --format gbench --noise 0 --mean 2"));
        command[L("adapter")] = L("gbench");
        write_all(spec, QJsonDocument(command).toJson());
        r = kwb({L("test-arm"), L("--command-json"), spec, L("--metric"), L("ttft_ms")});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.out.contains("read no ttft_ms"), r.out.constData());

        // Bad input names what is wrong, exit 2.
        r = kwb({L("test-arm"), study, L("--arm"), L("nope")});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("no arm 'nope'"), r.err.constData());
        QCOMPARE(kwb({L("test-arm")}).exit_code, 2);
        write_all(spec, "{\"cwd\": \"/x\"}");
        r = kwb({L("test-arm"), L("--command-json"), spec});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("cmd"), r.err.constData());
    }
    void real_google_benchmark_binary()
    {
        if (!QFile::exists(kGbench))
            QSKIP("kwb_gbench_sum not built (libbenchmark-dev missing)");
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        const QString flags = L(" --benchmark_format=json --benchmark_min_time=0.05");
        auto r = kwb({L("new"), L("--baseline-cmd"), L("env SUM_VARIANT=plain ") + kGbench + flags,
            L("--treatment-cmd"), L("env SUM_VARIANT=split ") + kGbench + flags, L("--runs"), L("4"), L("--warmup"),
            L("1"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        r = kwb({L("run"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto e = load(study)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("status")].toString(), L("done"));
        QVERIFY(!e[L("verdict")].toObject()[L("verdict")].toString().isEmpty());
        QVERIFY(!e[L("final_verdict")].toObject()[L("verdict")].toString().isEmpty());
        for (const auto& x : e[L("samples")].toArray()) {
            const auto o = x.toObject();
            QVERIFY(!o[L("failed")].toBool());
            QCOMPARE(o[L("adapter")].toString(), L("gbench"));
            QCOMPARE(o[L("fingerprint")].toObject()[L("benchmark")].toString(), L("BM_Sum"));
            QVERIFY(o[L("metrics")].toObject()[L("time_ms")].toDouble() > 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestKwbCommand)
#include "tst_kwb_command.moc"
