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
