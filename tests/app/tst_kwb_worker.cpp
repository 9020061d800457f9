// SPDX-License-Identifier: GPL-3.0-or-later
// Worker arms through `kwb new` and `kwb run`, as a user would (docs/worker-protocol.md): the fake
// worker described and the study validated against it (bad names and values: exit 2 naming the
// parameter), an A/B to a verdict, a wrong treatment (exit 1, no verdict), a crashing worker
// (failed repetitions, exit 1, no process left), and the per-arm checks of command arms.
#include "../process_alive.h"
#include "kwb_process.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <fstream>

using namespace kwbtest;

namespace {

QString L(const char* text)
{
    return QString::fromUtf8(text);
}

const QString kFake = QStringLiteral(KWB_BIN_DIR "/kwb_fake_worker");

using kwbtest::process_alive;

} // namespace

class TestKwbWorker : public QObject {
    Q_OBJECT
private slots:
    void new_describes_and_validates()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        auto r = kwb({L("new"), L("--worker"), kFake, L("--vary"), L("work=1,3"), L("--param"), L("variant=b"),
            L("--rtol"), L("0.01"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto e = load(study)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("workload")].toString(), L("worker"));
        const auto arms = e[L("arms")].toArray();
        const auto w = arms[1].toObject()[L("worker")].toObject();
        QCOMPARE(w[L("cmd")].toString(), kFake);
        QCOMPARE(w[L("rtol")].toDouble(), 0.01);
        QCOMPARE(w[L("description")].toObject()[L("worker")].toString(), L("fake-normal"));
        QCOMPARE(arms[1].toObject()[L("params")].toObject()[L("work")].toInt(), 3);
        QCOMPARE(arms[0].toObject()[L("params")].toObject()[L("variant")].toString(), L("b"));
        // Bad input names the parameter, in one line, exit 2.
        const QList<QPair<QStringList, QString>> bad = {
            {{L("--vary"), L("blocks=1,2")}, L("blocks")},
            {{L("--vary"), L("work=1,3"), L("--param"), L("variant=c")}, L("variant")},
            {{L("--vary"), L("work=x,y")}, L("work")},
            {{L("--grid"), L("work=1,2"), L("--grid"), L("variant=a,z")}, L("variant")},
            {{L("--vary"), L("work=1,3"), L("--atol"), L("-2e9999")}, L("--atol")},
            {{L("--vary"), L("work=1,3"), L("--rtol"), L("-1")}, L("--rtol")},
            {{L("--vary"), L("work=1,3"), L("--backend"), L("cuda")}, L("--backend cuda")}, // it runs on cpu
        };
        for (const auto& [args, name] : bad) {
            r = kwb(QStringList {L("new"), L("--worker"), kFake, L("--force"), L("--out"), study} + args);
            QVERIFY2(r.exit_code == 2, qPrintable(args.join(u' ')));
            QVERIFY2(QString::fromUtf8(r.err).contains(name), r.err.constData());
            QCOMPARE(r.err.trimmed().count('\n'), 0);
        }
        // A worker that does not speak the protocol is bad input too.
        r = kwb({L("new"), L("--worker"), kFake + L(" --mode bad-hello"), L("--vary"), L("work=1,3"), L("--force"),
            L("--out"), study});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("--worker") && r.err.contains("protocol"), r.err.constData());
        // A grid over the worker's parameters is written.
        r = kwb({L("new"), L("--worker"), kFake, L("--grid"), L("work=1,2"), L("--grid"), L("variant=a,b"),
            L("--force"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QCOMPARE(load(study)[L("experiments")].toArray().size(), 3);
    }

    void run_reaches_a_verdict()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        auto r = kwb({L("new"), L("--worker"), kFake, L("--vary"), L("work=1,3"), L("--runs"), L("6"),
            L("--min-rep-ms"), L("2"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        r = kwb({L("run"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto e = load(study)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("status")].toString(), L("done"));
        QCOMPARE(e[L("verdict")].toObject()[L("verdict")].toString(), L("KILL")); // 3x the time per launch
        QCOMPARE(e[L("device")].toObject()[L("kind")].toString(), L("cpu"));
        for (const auto& a : e[L("arms")].toArray())
            QVERIFY(a.toObject()[L("check")].toObject()[L("ok")].toBool());
    }

    void wrong_treatment_exits_1_without_verdict()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        auto r = kwb({L("new"), L("--baseline-worker"), kFake, L("--treatment-worker"), kFake + L(" --mode wrong"),
            L("--runs"), L("2"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        r = kwb({L("run"), study});
        QCOMPARE(r.exit_code, 1);
        const auto e = load(study)[L("experiments")].toArray()[0].toObject();
        QCOMPARE(e[L("status")].toString(), L("failed"));
        QVERIFY(e[L("verdict")].isNull());
        QVERIFY2(e[L("error")].toString().contains(L("correctness check")), qPrintable(e[L("error")].toString()));
    }

    void crashing_worker_fails_repetitions_and_leaves_nothing()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json")), pids = dir.filePath(L("pids"));
        auto r = kwb({L("new"), L("--baseline-worker"), kFake, L("--treatment-worker"),
            kFake + L(" --mode crash --fault-at 2 --child --pidfile ") + pids, L("--runs"), L("10"), L("--warmup"),
            L("0"), L("--min-rep-ms"), L("0"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QFile::remove(pids); // kwb new's describe ran it once
        r = kwb({L("run"), study});
        QCOMPARE(r.exit_code, 1);
        const auto e = load(study)[L("experiments")].toArray()[0].toObject();
        int failed = 0;
        for (const auto& x : e[L("samples")].toArray())
            if (x.toObject()[L("failed")].toBool()) {
                ++failed;
                QVERIFY(x.toObject()[L("stderr_tail")].toString().contains(L("crashing on purpose")));
            }
        QCOMPARE(failed, 2); // once, restarted, and again
        std::ifstream in(pids.toStdString());
        int n = 0;
        for (int pid = 0; in >> pid; ++n)
            QVERIFY2(!process_alive(pid), std::to_string(pid).c_str());
        QCOMPARE(n, 4); // two workers, each with a child
    }

    void test_arm_checks_and_times_a_worker_once()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        auto r = kwb({L("new"), L("--baseline-worker"), kFake, L("--treatment-worker"),
            kFake + L(" --mode crash --fault-at 1"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QByteArray before = read_all(study);
        r = kwb({L("test-arm"), study, L("--arm"), L("baseline"), L("--json")});
        QVERIFY2(r.exit_code == 0, QByteArray(r.out + r.err).constData());
        const QJsonObject a = QJsonDocument::fromJson(r.out).object();
        QVERIFY(a[L("ok")].toBool());
        QVERIFY(a[L("check")].toObject()[L("ok")].toBool());
        QVERIFY(a[L("value")].toDouble() > 0); // time_ms of one launch
        QCOMPARE(read_all(study), before); // nothing recorded
        // The crashing treatment: its timed launch fails, exit 1, with the worker's own words.
        r = kwb({L("test-arm"), study, L("--arm"), L("treatment")});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.out.startsWith("Not usable: "), r.out.constData());
    }

    // The window's Test once sends the arm as it holds it, unsaved: --worker-json.
    void test_arm_takes_an_unsaved_worker_arm()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        auto r = kwb({L("new"), L("--baseline-worker"), kFake, L("--treatment-worker"), kFake + L(" --mode wrong"),
            L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto arms = load(study)[L("experiments")].toArray()[0].toObject()[L("arms")].toArray();
        const auto write = [&](const QString& name, const QJsonObject& o) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(o).toJson());
        };
        QJsonObject worker = arms[0].toObject()[L("worker")].toObject();
        worker[L("cmd")] = QString(kFake + L(" --reference"));
        write(L("good.json"), {{L("worker"), worker}, {L("params"), QJsonObject {{L("work"), 2}}}});
        r = kwb(
            {L("test-arm"), L("--worker-json"), dir.filePath(L("good.json")), L("--arm"), L("treatment"), L("--json")});
        QVERIFY2(r.exit_code == 0, QByteArray(r.out + r.err).constData());
        const QJsonObject a = QJsonDocument::fromJson(r.out).object();
        QVERIFY(a[L("check")].toObject()[L("ok")].toBool());
        QCOMPARE(a[L("arm")].toString(), L("treatment"));
        QVERIFY(a[L("value")].toDouble() > 0);
        // Against its own reference, a wrong output fails the check: exit 1.
        worker[L("cmd")] = QString(kFake + L(" --mode wrong --reference"));
        write(L("wrong.json"), {{L("worker"), worker}});
        r = kwb({L("test-arm"), L("--worker-json"), dir.filePath(L("wrong.json"))});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.out.startsWith("Not usable: the check failed"), r.out.constData());
        // Bad input, one line, exit 2: no worker object, a bad field, two sources at once.
        write(L("none.json"), {{L("params"), QJsonObject {}}});
        r = kwb({L("test-arm"), L("--worker-json"), dir.filePath(L("none.json"))});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("worker"), r.err.constData());
        worker[L("timeout_s")] = -1;
        write(L("bad.json"), {{L("worker"), worker}});
        r = kwb({L("test-arm"), L("--worker-json"), dir.filePath(L("bad.json"))});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("timeout_s"), r.err.constData());
        r = kwb({L("test-arm"), study, L("--worker-json"), dir.filePath(L("good.json"))});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("one of the three"), r.err.constData());
    }

    void per_arm_checks_of_command_arms()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        const QString standin = QStringLiteral(KWB_BIN_DIR "/kwb_standin_bench --format gbench");
        auto r = kwb({L("new"), L("--baseline-cmd"), standin, L("--treatment-cmd"), standin + L(" --mean 11"),
            L("--baseline-check"), L("true"), L("--treatment-check"), L("exit 4"), L("--runs"), L("2"), L("--out"),
            study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto arms = load(study)[L("experiments")].toArray()[0].toObject()[L("arms")].toArray();
        QCOMPARE(arms[0].toObject()[L("command")].toObject()[L("check")].toString(), L("true"));
        QCOMPARE(arms[1].toObject()[L("command")].toObject()[L("check")].toString(), L("exit 4"));
        r = kwb({L("run"), study});
        QCOMPARE(r.exit_code, 1); // the treatment's own check fails
        QVERIFY2(r.err.contains("treatment"), r.err.constData());
        // One shared check or one per arm, not both.
        r = kwb({L("new"), L("--baseline-cmd"), standin, L("--treatment-cmd"), standin + L(" --mean 11"),
            L("--check-cmd"), L("true"), L("--baseline-check"), L("true"), L("--force"), L("--out"), study});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("--baseline-check"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestKwbWorker)
#include "tst_kwb_worker.moc"
