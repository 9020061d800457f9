// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb run` end to end on the CPU backend: a treatment that computes a wrong result ends with
// exit 1 and no verdict, each arm's check is kept in the study, repetitions are calibrated, and
// an experiment measured on another device model is refused (or continued with --new-device).
#include "kwb_process.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace kwbtest;

namespace {

QJsonObject first_experiment(const QString& path)
{
    return load(path).value(u"experiments").toArray().at(0).toObject();
}

} // namespace

class TestKwbRunGates : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }

private slots:
    void wrongTreatmentFailsWithoutVerdict()
    {
        const QString p = path("wrong.json");
        const auto made = kwb({QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"),
            QStringLiteral("--param"), QStringLiteral("size=128"), QStringLiteral("--vary"),
            QStringLiteral("inject_fault=none,wrong-result"), QStringLiteral("--out"), p});
        QCOMPARE(made.exit_code, 0);
        const auto r = kwb({QStringLiteral("run"), p});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("correctness check failed"), r.err.constData());
        QVERIFY2(r.err.contains("arm treatment"), r.err.constData());
        const auto e = first_experiment(p);
        QCOMPARE(e.value(u"status").toString(), QStringLiteral("failed"));
        QVERIFY(e.value(u"verdict").isNull());
        QVERIFY(e.value(u"final_verdict").isNull());
        const auto arms = e.value(u"arms").toArray();
        QCOMPARE(arms.at(0).toObject().value(u"check").toObject().value(u"ok").toBool(), true);
        const auto bad = arms.at(1).toObject().value(u"check").toObject();
        QCOMPARE(bad.value(u"ok").toBool(), false);
        QVERIFY(bad.value(u"max_abs_error").toDouble() > bad.value(u"tolerance").toDouble());
    }

    void repetitionsAreCalibratedAndChecked()
    {
        const QString p = new_gemm_study(path("calibrated.json"));
        const auto r = kwb({QStringLiteral("run"), p});
        QCOMPARE(r.exit_code, 0);
        const auto e = first_experiment(p);
        QCOMPARE(e.value(u"plan").toObject().value(u"min_rep_ms").toDouble(), 10.0);
        const int launches = e.value(u"launches_per_rep").toInt();
        QVERIFY(launches >= 1);
        for (const auto& s : e.value(u"samples").toArray())
            QCOMPARE(s.toObject().value(u"launches").toInt(), launches);
        for (const auto& a : e.value(u"arms").toArray())
            QVERIFY(a.toObject().value(u"check").toObject().value(u"ok").toBool());
        QCOMPARE(e.value(u"device").toObject().value(u"kind").toString(), QStringLiteral("cpu"));
        QVERIFY(!e.value(u"device").toObject().value(u"name").toString().isEmpty());
    }

    void anotherDeviceModelIsRefused()
    {
        const QString p = new_gemm_study(path("moved.json"));
        QCOMPARE(kwb({QStringLiteral("run"), p}).exit_code, 0);
        QJsonObject study = load(p);
        auto experiments = study.value(u"experiments").toArray();
        auto e = experiments.at(0).toObject();
        auto device = e.value(u"device").toObject();
        const QString here = device.value(u"name").toString(); // the device this machine is
        QVERIFY(!here.isEmpty());
        device[QStringLiteral("name")] = QStringLiteral("A Different CPU");
        e[QStringLiteral("device")] = device;
        e[QStringLiteral("status")] = QStringLiteral("stopped");
        experiments[0] = e;
        study[QStringLiteral("experiments")] = experiments;
        write_all(p, QJsonDocument(study).toJson());
        const QByteArray before = read_all(p);

        const auto refused = kwb({QStringLiteral("run"), p});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains("A Different CPU"), refused.err.constData());
        QVERIFY2(refused.err.contains(here.toUtf8()), refused.err.constData()); // both names
        QVERIFY2(refused.err.contains("--new-device"), refused.err.constData());
        QCOMPARE(refused.err.trimmed().count('\n'), 0);
        QCOMPARE(read_all(p), before);

        const auto moved = kwb({QStringLiteral("run"), p, QStringLiteral("--new-device")});
        QCOMPARE(moved.exit_code, 0);
        const auto after = load(p).value(u"experiments").toArray();
        QCOMPARE(after.size(), 2);
        QCOMPARE(after.at(0).toObject().value(u"device").toObject().value(u"name").toString(),
            QStringLiteral("A Different CPU"));
        const auto next = after.at(1).toObject();
        QCOMPARE(next.value(u"status").toString(), QStringLiteral("done"));
        QVERIFY(next.value(u"controls").toObject().value(u"notes").toString().contains(u"A Different CPU"));
        QVERIFY(next.value(u"verdict").isObject());
    }

    void cudaOnlyParameterIsRefusedOnCpu()
    {
        const QString p = path("cpu-only.json");
        const auto r = kwb({QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"),
            QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--vary"),
            QStringLiteral("block_n=64,128"), QStringLiteral("--out"), p});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("block_n") && r.err.contains("cuda backend only"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestKwbRunGates)
#include "tst_kwb_run_gates.moc"
