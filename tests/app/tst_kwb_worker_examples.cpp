// SPDX-License-Identifier: GPL-3.0-or-later
// The examples' CPU workers through kwb as a user runs them (examples/numpy_cpu, examples/cpp_cpu,
// docs/worker-protocol.md): the numpy matmul through the Python helper (python/kwb_worker) and the
// C++ matmul through include/kwb/worker.h, each an A/B of its tile size to a verdict (numpy: block
// 16 about 2.5x slower than 64 at n=256; C++: block 2 about 3.8x slower than 16, the examples'
// READMEs), and each with a wrong treatment whose
// check fails before the warm-ups: exit 1, no verdict, nothing judged.
#include "kwb_process.h"

#include <QJsonArray>
#include <QTemporaryDir>

using namespace kwbtest;

namespace {

QString L(const char* text)
{
    return QString::fromUtf8(text);
}

const QString kPython = QStringLiteral(KWB_WORKER_PYTHON);
const QString kCppWorker = QStringLiteral(KWB_CPP_CPU_WORKER);

// The worker command of one example, and the kwb new options that reach it (the helper on
// PYTHONPATH, as `pip install ./python` would have it).
QStringList worker_of(const QString& example)
{
    if (example == L("cpp"))
        return {L("--worker"), kCppWorker};
    return {L("--worker"),
        kPython + L(" -m kwb_worker ") + QStringLiteral(KWB_SOURCE_DIR "/examples/numpy_cpu/matmul.py"), L("--env"),
        QStringLiteral("PYTHONPATH=" KWB_SOURCE_DIR "/python")};
}

QJsonObject first_experiment(const QString& study)
{
    return load(study)[L("experiments")].toArray()[0].toObject();
}

} // namespace

class TestKwbWorkerExamples : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // Not a skip: the build says the worker tests exist, so a missing numpy is a failure.
        QVERIFY2(!kPython.isEmpty(), "no python3 with numpy found at configure time (install python3-numpy)");
    }

    void tile_size_ab_reaches_a_verdict_data()
    {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QString>("blocks");
        QTest::addRow("numpy through kwb_worker") << L("numpy") << L("block=16,64");
        QTest::addRow("C++ through worker.h") << L("cpp") << L("block=2,16");
    }
    void tile_size_ab_reaches_a_verdict()
    {
        QFETCH(QString, example);
        QFETCH(QString, blocks);
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        auto r = kwb(QStringList {L("new")} + worker_of(example)
            + QStringList {L("--param"), L("n=256"), L("--vary"), blocks, L("--runs"), L("6"), L("--min-rep-ms"),
                L("50"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        r = kwb({L("run"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QJsonObject e = first_experiment(study);
        QCOMPARE(e[L("status")].toString(), L("done"));
        const QJsonObject v = e[L("verdict")].toObject();
        // The treatment's larger tiles: numpy pays its per-call overhead far less often; the C++
        // loop's inner runs are 8x longer. LICENSE on a quiet machine; on a loaded one (CI runs
        // two suites at once) the stability gate may say INCONCLUSIVE, but the delta and its
        // interval still show the faster arm beyond doubt.
        const QString word = v[L("verdict")].toString();
        QVERIFY2(word == L("LICENSE") || word == L("INCONCLUSIVE"), qPrintable(word));
        QVERIFY2(v[L("ci95_delta_pct")].toArray()[0].toDouble() > 10, qPrintable(word));
        QCOMPARE(v[L("n_baseline")].toInt(), 6);
        QVERIFY(v[L("delta_pct")].toDouble() > 30);
        for (const auto& arm : e[L("arms")].toArray()) {
            const QJsonObject check = arm.toObject()[L("check")].toObject();
            QVERIFY2(check[L("ok")].toBool(), qPrintable(arm.toObject()[L("name")].toString()));
        }
        // Calibrated launches: one count for both arms, recorded per repetition.
        QVERIFY(e[L("launches_per_rep")].toInt() >= 1);
        QCOMPARE(e[L("device")].toObject()[L("kind")].toString(), L("cpu"));
    }

    void wrong_treatment_exits_1_data() { tile_size_ab_reaches_a_verdict_data(); }
    void wrong_treatment_exits_1()
    {
        QFETCH(QString, example);
        QFETCH(QString, blocks);
        Q_UNUSED(blocks);
        QTemporaryDir dir;
        const QString study = dir.filePath(L("s.json"));
        auto r = kwb(QStringList {L("new")} + worker_of(example)
            + QStringList {L("--param"), L("n=128"), L("--vary"), L("variant=blocked,wrong"), L("--runs"), L("4"),
                L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        r = kwb({L("run"), study});
        QCOMPARE(r.exit_code, 1);
        const QJsonObject e = first_experiment(study);
        QCOMPARE(e[L("status")].toString(), L("failed"));
        QVERIFY(e[L("verdict")].isNull());
        QVERIFY2(e[L("error")].toString().contains(L("correctness check")), qPrintable(e[L("error")].toString()));
        int judged = 0;
        for (const auto& s : e[L("samples")].toArray())
            judged += !s.toObject()[L("warmup")].toBool() && !s.toObject()[L("discarded")].toBool();
        QCOMPARE(judged, 0); // the check runs before the warm-ups: nothing was timed
    }
};

QTEST_MAIN(TestKwbWorkerExamples)
#include "tst_kwb_worker_examples.moc"
