// SPDX-License-Identifier: GPL-3.0-or-later
// kwb new --aa-arm / kwb run / kwb aa-history end to end on the synthetic workload: the A/A arm in
// the study, its line in kwb run's output and the progress stream, the per-device history under a
// private XDG_STATE_HOME; whole ABBA plans; --aa's new names; older studies' split-half keys.
#include "kwb_process.h"

#include <QJsonArray>
#include <QTemporaryDir>

using namespace kwbtest;

namespace {

QStringList synthetic(const QString& out, const QStringList& extra = {})
{
    return QStringList {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("synthetic"),
               QStringLiteral("--param"), QStringLiteral("cv_pct=1"), QStringLiteral("--vary"),
               QStringLiteral("delta_pct=0,20"), QStringLiteral("--warmup"), QStringLiteral("0"),
               QStringLiteral("--out"), out, QStringLiteral("--force")}
    + extra;
}

} // namespace

class TestKwbAa : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    QString path(const char* name) const { return dir.filePath(QString::fromLatin1(name)); }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        qputenv("XDG_STATE_HOME", dir.filePath(QStringLiteral("state")).toUtf8()); // kwb inherits it
    }

    void aaArmRunsAndIsReported()
    {
        const QString s = path("aa.json");
        auto r = kwb(synthetic(s, {QStringLiteral("--aa-arm")}));
        QVERIFY2(r.exit_code == 0, r.err.constData());
        auto e = load(s).value(u"experiments").toArray()[0].toObject();
        const auto arms = e.value(u"arms").toArray();
        QCOMPARE(arms.size(), 3);
        QCOMPARE(arms[2].toObject().value(u"role").toString(), QStringLiteral("aa"));
        QCOMPARE(arms[2].toObject().value(u"params"), arms[0].toObject().value(u"params"));
        QCOMPARE(e.value(u"plan").toObject().value(u"runs_per_arm").toInt(), 6); // the default: whole ABBA blocks

        r = kwb({QStringLiteral("run"), s});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("ab-1: A/A at n = 6: "), r.out.constData());
        QVERIFY2(r.out.contains("ab-1: A/A history on "), r.out.constData());
        QVERIFY2(r.out.contains("in 1 A/A run ("), r.out.constData());
        e = load(s).value(u"experiments").toArray()[0].toObject();
        QCOMPARE(e.value(u"aa_verdict").toObject().value(u"n_baseline").toInt(), 6);
        QCOMPARE(e.value(u"verdict").toObject().value(u"verdict").toString(), QStringLiteral("LICENSE"));
        QVERIFY(QJsonDocument(e.value(u"final_verdict").toObject().value(u"reasons").toArray())
                    .toJson()
                    .contains("A/A at n = 6: "));
        // The duration clock is stored with the samples.
        QVERIFY(e.value(u"timed_elapsed_s").toDouble() > 0);
    }

    void progressStreamCarriesTheAa()
    {
        const QString s = path("aa-stream.json");
        QCOMPARE(
            kwb(synthetic(s, {QStringLiteral("--aa-arm"), QStringLiteral("--runs"), QStringLiteral("4")})).exit_code,
            0);
        const auto r = kwb({QStringLiteral("run"), s, QStringLiteral("--json-progress")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QJsonObject verdict, history;
        for (const QByteArray& line : r.out.split('\n')) {
            const auto o = QJsonDocument::fromJson(line).object();
            if (o.value(u"type").toString() == u"verdict")
                verdict = o;
            if (o.value(u"type").toString() == u"aa_history")
                history = o;
        }
        const auto aa = verdict.value(u"aa").toObject();
        QVERIFY2(aa.value(u"summary").toString().startsWith(u"A/A at n = 4: "), r.out.constData());
        QVERIFY(aa.value(u"verdict").toObject().contains(u"delta_pct"));
        QVERIFY(verdict.contains(u"split_half_check"));
        QVERIFY(!verdict.contains(u"aa_calibration"));
        QVERIFY2(history.value(u"runs").toInt() >= 1, r.out.constData());
        QCOMPARE(history.value(u"ci95").toArray().size(), 2);
    }

    void aaHistoryCommandCountsEveryAa()
    {
        const auto r = kwb({QStringLiteral("aa-history"), QStringLiteral("--json")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto o = QJsonDocument::fromJson(r.out).object();
        QVERIFY(o.value(u"path").toString().startsWith(dir.filePath(QStringLiteral("state"))));
        QCOMPARE(o.value(u"entries").toInt(), 2); // the two A/As above
        const auto devices = o.value(u"devices").toArray();
        QCOMPARE(devices.size(), 1);
        const auto d = devices[0].toObject();
        QCOMPARE(d.value(u"runs").toInt(), 2);
        const double lo = d.value(u"ci95").toArray()[0].toDouble(), hi = d.value(u"ci95").toArray()[1].toDouble();
        QVERIFY(lo >= 0 && lo <= d.value(u"false_alarm_rate").toDouble() && hi <= 1 && hi > 0);
        const auto text = kwb({QStringLiteral("aa-history")});
        QVERIFY2(text.out.contains("A/A history on "), text.out.constData());
    }

    void oddRunsAreRoundedUpWithANote()
    {
        const QString s = path("odd.json");
        const auto r = kwb(synthetic(s, {QStringLiteral("--runs"), QStringLiteral("5")}));
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.err.contains("--runs 5 rounded up to 6"), r.err.constData());
        QCOMPARE(load(s)
                     .value(u"experiments")
                     .toArray()[0]
                     .toObject()
                     .value(u"plan")
                     .toObject()
                     .value(u"runs_per_arm")
                     .toInt(),
            6);
        // Randomised blocks are not ABBA: kept as given.
        const auto random = kwb(synthetic(
            s, {QStringLiteral("--runs"), QStringLiteral("5"), QStringLiteral("--order"), QStringLiteral("random")}));
        QCOMPARE(random.exit_code, 0);
        QVERIFY(!random.err.contains("rounded up"));
        QCOMPARE(load(s)
                     .value(u"experiments")
                     .toArray()[0]
                     .toObject()
                     .value(u"plan")
                     .toObject()
                     .value(u"runs_per_arm")
                     .toInt(),
            5);
    }

    void oldAaOptionNamesItsSuccessors()
    {
        const auto r = kwb(synthetic(path("old.json"), {QStringLiteral("--aa")}));
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("--split-half") && r.err.contains("--aa-arm"), r.err.constData());
        const auto ok = kwb(synthetic(path("split.json"), {QStringLiteral("--split-half=3")}));
        QVERIFY2(ok.exit_code == 0, ok.err.constData());
        QCOMPARE(load(path("split.json"))
                     .value(u"experiments")
                     .toArray()[0]
                     .toObject()
                     .value(u"plan")
                     .toObject()
                     .value(u"split_halves")
                     .toInt(),
            3);
        const auto grid = kwb({QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("synthetic"),
            QStringLiteral("--grid"), QStringLiteral("delta_pct=0,20"), QStringLiteral("--grid"),
            QStringLiteral("mean=10,20"), QStringLiteral("--aa-arm"), QStringLiteral("--out"), path("grid.json")});
        QVERIFY2(grid.exit_code == 0, grid.err.constData()); // a grid's A/A: tst_kwb_grid aaArmBesideTheGrid
        QCOMPARE(
            load(path("grid.json")).value(u"experiments").toArray()[0].toObject().value(u"arms").toArray().size(), 3);
    }

    void olderStudiesMigrateTheSplitHalfKeys()
    {
        const QString s = path("legacy.json");
        QCOMPARE(kwb(synthetic(s, {QStringLiteral("--split-half=2")})).exit_code, 0);
        QByteArray text = read_all(s);
        text.replace("\"split_halves\"", "\"aa_splits\"");
        write_all(s, text);
        const auto r = kwb({QStringLiteral("run"), s});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QByteArray saved = read_all(s);
        QVERIFY(!saved.contains("aa_splits"));
        QVERIFY(!saved.contains("aa_calibration"));
        const auto e = load(s).value(u"experiments").toArray()[0].toObject();
        QCOMPARE(e.value(u"plan").toObject().value(u"split_halves").toInt(), 2);
        QCOMPARE(e.value(u"split_half_check").toObject().value(u"splits").toInt(), 2);
    }
};

QTEST_GUILESS_MAIN(TestKwbAa)
#include "tst_kwb_aa.moc"
