// SPDX-License-Identifier: GPL-3.0-or-later
// Grids through the real kwb: `kwb new --grid` writes a grid group of cell experiments, `kwb run`
// runs every cell to its verdict and stores the interaction; refusals exit 2 naming the problem.
#include "kwb_process.h"
#include "study/grid.h"
#include "study/study_file.h"
#include "verdict/grid_interaction.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace kwbtest;

namespace {

QStringList grid_args(const QString& out, const QStringList& grids, const QStringList& extra = {})
{
    QStringList args {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"),
        QStringLiteral("--param"), QStringLiteral("size=128"), QStringLiteral("--runs"), QStringLiteral("3"),
        QStringLiteral("--out"), out, QStringLiteral("--force")};
    for (const auto& g : grids)
        args << QStringLiteral("--grid") << g;
    return args + extra;
}

} // namespace

class TestKwbGrid : public QObject {
    Q_OBJECT

private slots:
    void newWritesAGridGroup()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("g.json"));
        const auto r = kwbtest::kwb(grid_args(path, {QStringLiteral("block=32,128"), QStringLiteral("threads=1,2")}));
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QJsonObject s = load(path);
        const QJsonArray grids = s.value(u"grids").toArray();
        QCOMPARE(grids.size(), 1);
        const QJsonObject g = grids.first().toObject();
        QCOMPARE(g.value(u"id").toString(), QStringLiteral("grid-1"));
        QCOMPARE(g.value(u"variables").toArray().at(0).toObject().value(u"name").toString(), QStringLiteral("block"));
        QCOMPARE(g.value(u"variables").toArray().at(1).toObject().value(u"levels").toArray(), (QJsonArray {1, 2}));
        QVERIFY(g.value(u"interaction").isNull());

        const QJsonArray ex = s.value(u"experiments").toArray();
        QCOMPARE(ex.size(), 3); // every cell but the baseline cell
        const QStringList ids
            = {QStringLiteral("grid-1-r0c1"), QStringLiteral("grid-1-r1c0"), QStringLiteral("grid-1-r1c1")};
        const QList<QJsonArray> cells = {{0, 1}, {1, 0}, {1, 1}};
        for (int i = 0; i < 3; ++i) {
            const QJsonObject e = ex.at(i).toObject();
            QCOMPARE(e.value(u"id").toString(), ids[i]);
            QCOMPARE(e.value(u"kind").toString(), QStringLiteral("grid-cell"));
            QCOMPARE(e.value(u"group").toString(), QStringLiteral("grid-1"));
            QCOMPARE(e.value(u"cell").toArray(), cells[i]);
            const QJsonArray arms = e.value(u"arms").toArray();
            QCOMPARE(arms.at(0).toObject().value(u"name").toString(), QStringLiteral("r0c0"));
            const QJsonObject base = arms.at(0).toObject().value(u"params").toObject();
            const QJsonObject cell = arms.at(1).toObject().value(u"params").toObject();
            QCOMPARE(base.value(u"block").toInt(), 32);
            QCOMPARE(base.value(u"threads").toInt(), 1);
            QCOMPARE(cell.value(u"block").toInt(), cells[i][0].toInt() ? 128 : 32);
            QCOMPARE(cell.value(u"threads").toInt(), cells[i][1].toInt() ? 2 : 1);
            QCOMPARE(cell.value(u"size").toInt(), 128); // shared parameters stored in every arm
        }
    }

    void runJudgesEveryCellAndStoresTheInteraction()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("g.json"));
        QCOMPARE(
            kwbtest::kwb(grid_args(path, {QStringLiteral("block=32,128"), QStringLiteral("threads=1,2")})).exit_code,
            0);
        const auto r = kwbtest::kwb({QStringLiteral("run"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY(r.out.contains("grid-1: interaction: "));

        const QJsonObject s = load(path);
        for (const auto& v : s.value(u"experiments").toArray()) {
            const QJsonObject e = v.toObject();
            QCOMPARE(e.value(u"status").toString(), QStringLiteral("done"));
            const QJsonObject verdict = e.value(u"verdict").toObject();
            QVERIFY(QStringList({QStringLiteral("LICENSE"), QStringLiteral("KILL"), QStringLiteral("NOISE"),
                                    QStringLiteral("INCONCLUSIVE")})
                        .contains(verdict.value(u"verdict").toString()));
            QCOMPARE(verdict.value(u"n_baseline").toInt(), 4); // --runs 3, rounded up to whole ABBA blocks
            QVERIFY(e.value(u"final_verdict").isObject());
        }
        const QJsonObject in = s.value(u"grids").toArray().first().toObject().value(u"interaction").toObject();
        QVERIFY(!in.isEmpty());
        QVERIFY(in.value(u"difference_of_differences_pct").isDouble());
        QCOMPARE(in.value(u"ci95").toArray().size(), 2);
        QVERIFY(in.value(u"ci95").toArray().at(0).toDouble() <= in.value(u"ci95").toArray().at(1).toDouble());
        QVERIFY(in.value(u"flagged").isBool());
        QCOMPARE(in.value(u"contrasts").toArray().size(), 1);
        QCOMPARE(in.value(u"df").toArray().at(0).toInt(), 1);

        // What kwb stored is the engine's estimate of the stored runs: d11 - (d10 + d01), from the
        // cells' own verdicts.
        const kwb::Study study = kwb::load_study(path.toStdString());
        const auto est = kwb::grid_interaction_estimate(study, study.grids.front());
        QVERIFY(est);
        QCOMPARE(in.value(u"difference_of_differences_pct").toDouble(), est->contrasts.front().interaction_pct);
        const auto delta = [&](const char* id) { return *study.find_experiment(id)->verdict->delta_pct; };
        QVERIFY(qAbs(est->contrasts.front().interaction_pct
                    - (delta("grid-1-r1c1") - delta("grid-1-r1c0") - delta("grid-1-r0c1")))
            < 1e-9);
    }

    // --aa-arm on a grid: the baseline cell again as an A/A arm beside the first cell, run
    // interleaved with that cell to the same n, its verdict printed beside the grid's interaction.
    void aaArmBesideTheGrid()
    {
        QTemporaryDir dir;
        qputenv("XDG_STATE_HOME", dir.filePath(QStringLiteral("state")).toUtf8()); // a private A/A history
        const QString path = dir.filePath(QStringLiteral("g.json"));
        auto r = kwbtest::kwb({QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("synthetic"),
            QStringLiteral("--param"), QStringLiteral("cv_pct=1"), QStringLiteral("--grid"),
            QStringLiteral("delta_pct=0,20"), QStringLiteral("--grid"), QStringLiteral("drift_pct=0,0.1"),
            QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("--aa-arm"), QStringLiteral("--out"),
            path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.err.contains("the grid's A/A, in grid-1-r0c1"), r.err.constData());
        QJsonArray ex = load(path).value(u"experiments").toArray();
        QCOMPARE(ex.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const QJsonArray arms = ex.at(i).toObject().value(u"arms").toArray();
            QCOMPARE(arms.size(), i == 0 ? 3 : 2); // only the first cell carries the grid's A/A
        }
        const QJsonArray first = ex.at(0).toObject().value(u"arms").toArray();
        QCOMPARE(first.at(2).toObject().value(u"role").toString(), QStringLiteral("aa"));
        QCOMPARE(first.at(2).toObject().value(u"name").toString(), QStringLiteral("r0c0-aa"));
        QCOMPARE(first.at(2).toObject().value(u"params"), first.at(0).toObject().value(u"params"));

        r = kwbtest::kwb({QStringLiteral("run"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("grid-1: interaction: "), r.out.constData());
        QVERIFY2(r.out.contains("grid-1: A/A at n = 6: "), r.out.constData());
        QVERIFY2(r.out.contains("(the baseline cell r0c0 again, beside cell r0c1)"), r.out.constData());
        QVERIFY2(r.out.contains("grid-1-r0c1: A/A history on "), r.out.constData());
        const QJsonObject s = load(path);
        ex = s.value(u"experiments").toArray();
        const QJsonObject cell = ex.at(0).toObject();
        QCOMPARE(cell.value(u"aa_verdict").toObject().value(u"n_baseline").toInt(), 6);
        QCOMPARE(cell.value(u"aa_verdict").toObject().value(u"n_treatment").toInt(), 6);
        int aa_runs = 0;
        for (const auto& x : cell.value(u"samples").toArray())
            aa_runs += x.toObject().value(u"arm").toString() == QStringLiteral("r0c0-aa")
                && !x.toObject().value(u"warmup").toBool();
        QCOMPARE(aa_runs, 6);
        QVERIFY(ex.at(1).toObject().value(u"aa_verdict").isUndefined()
            || ex.at(1).toObject().value(u"aa_verdict").isNull());
        QVERIFY(s.value(u"grids").toArray().first().toObject().value(u"interaction").isObject());
        // The engine's line, as the grid page shows it.
        const kwb::Study study = kwb::load_study(path.toStdString());
        QVERIFY(kwb::grid_aa_cell(study, study.grids.front()) == &study.experiments.front());
        qunsetenv("XDG_STATE_HOME");
    }

    void largerGridHasATwoWayTest()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("g.json"));
        QCOMPARE(
            kwbtest::kwb(grid_args(path, {QStringLiteral("block=16,32,64"), QStringLiteral("threads=1,2")})).exit_code,
            0);
        QCOMPARE(load(path).value(u"experiments").toArray().size(), 5);
        const auto r = kwbtest::kwb({QStringLiteral("run"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QJsonObject in = load(path).value(u"grids").toArray().first().toObject().value(u"interaction").toObject();
        QCOMPARE(in.value(u"contrasts").toArray().size(), 2); // r1c1 and r2c1
        QVERIFY(in.value(u"difference_of_differences_pct").isNull());
        QVERIFY(in.value(u"p_two_way").isDouble());
        QCOMPARE(in.value(u"df").toArray().at(0).toInt(), 2);
    }

    void badGridsAreRefused_data()
    {
        QTest::addColumn<QStringList>("grids");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("message");
        QTest::addRow("one variable") << QStringList {QStringLiteral("block=32,128")} << QStringList {}
                                      << "give --grid twice";
        QTest::addRow("five levels") << QStringList {QStringLiteral("block=16,32,64,128,256"),
            QStringLiteral("threads=1,2")}
                                     << QStringList {} << "2 to 4 levels";
        QTest::addRow("one level") << QStringList {QStringLiteral("block=32"), QStringLiteral("threads=1,2")}
                                   << QStringList {} << "2 to 4 levels";
        QTest::addRow("repeated level") << QStringList {QStringLiteral("block=32,32"), QStringLiteral("threads=1,2")}
                                        << QStringList {} << "twice";
        QTest::addRow("same variable") << QStringList {QStringLiteral("block=32,64"), QStringLiteral("block=16,128")}
                                       << QStringList {} << "both grid variables";
        QTest::addRow("also fixed") << QStringList {QStringLiteral("size=128,256"), QStringLiteral("threads=1,2")}
                                    << QStringList {} << "also fixed";
        QTest::addRow("with --vary") << QStringList {QStringLiteral("block=32,128"), QStringLiteral("threads=1,2")}
                                     << QStringList {QStringLiteral("--vary"), QStringLiteral("iterations=1,5")}
                                     << "not both";
        QTest::addRow("unknown parameter") << QStringList {QStringLiteral("blok=32,128"), QStringLiteral("threads=1,2")}
                                           << QStringList {} << "no parameter 'blok'";
        QTest::addRow("not a number") << QStringList {QStringLiteral("block=32,big"), QStringLiteral("threads=1,2")}
                                      << QStringList {} << "takes an integer";
    }

    void badGridsAreRefused()
    {
        QFETCH(QStringList, grids);
        QFETCH(QStringList, extra);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("g.json"));
        const auto r = kwbtest::kwb(grid_args(path, grids, extra));
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(!QFile::exists(path));
    }

    void runRefusesACellThatChangesAnotherParameter()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("g.json"));
        QCOMPARE(
            kwbtest::kwb(grid_args(path, {QStringLiteral("block=32,128"), QStringLiteral("threads=1,2")})).exit_code,
            0);
        QJsonObject s = load(path);
        QJsonArray ex = s.value(u"experiments").toArray();
        QJsonObject e = ex.at(2).toObject();
        QJsonArray arms = e.value(u"arms").toArray();
        QJsonObject arm = arms.at(1).toObject();
        QJsonObject params = arm.value(u"params").toObject();
        params[QStringLiteral("iterations")] = 10;
        arm[QStringLiteral("params")] = params;
        arms[1] = arm;
        e[QStringLiteral("arms")] = arms;
        ex[2] = e;
        s[QStringLiteral("experiments")] = ex;
        write_all(path, QJsonDocument(s).toJson());
        const QByteArray before = read_all(path);
        const auto r = kwbtest::kwb({QStringLiteral("run"), path});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("grid-1-r1c1") && r.err.contains("iterations"), r.err.constData());
        QCOMPARE(read_all(path), before);
    }

    // `kwb run --new-attempt`: what Run does in the window on a finished study.
    void newAttemptOfAFinishedStudy()
    {
        QTemporaryDir dir;
        const QString path
            = new_gemm_study(dir.filePath(QStringLiteral("s.json")), {QStringLiteral("--runs"), QStringLiteral("3")});
        const auto refused = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--new-attempt")});
        QCOMPARE(refused.exit_code, 2); // ab-1 is still pending: plain kwb run runs it
        QVERIFY2(refused.err.contains("not finished"), refused.err.constData());
        QCOMPARE(kwbtest::kwb({QStringLiteral("run"), path}).exit_code, 0);
        const auto r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--new-attempt")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.err.contains("new attempt of ab-1: ab-2"), r.err.constData());
        const QJsonArray ex = load(path).value(u"experiments").toArray();
        QCOMPARE(ex.size(), 2);
        QCOMPARE(ex.at(1).toObject().value(u"id").toString(), QStringLiteral("ab-2"));
        QCOMPARE(ex.at(1).toObject().value(u"status").toString(), QStringLiteral("done"));
        QVERIFY(ex.at(1).toObject().value(u"verdict").isObject());
        QCOMPARE(load(path).value(u"ledger").toArray().size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestKwbGrid)
#include "tst_kwb_grid.moc"
