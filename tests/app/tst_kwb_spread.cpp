// SPDX-License-Identifier: GPL-3.0-or-later
// Runs spread out through the real kwb, without a GPU (docs/cluster.md): `kwb run --devices`
// spreads a grid's cells over worker processes and records which device ran each; `kwb run --cell`
// writes only its part file; `kwb collect` folds parts into the study, and twice changes nothing.
#include "kwb_process.h"
#include "study/study_file.h"
#include "study/study_parts.h"

#include <QDir>
#include <QScopeGuard>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace kwbtest;

namespace {

const QStringList kCells
    = {QStringLiteral("grid-1-r0c1"), QStringLiteral("grid-1-r1c0"), QStringLiteral("grid-1-r1c1")};

// A 2x2 CPU grid of gemm at size 128: three cells, 4 runs per arm (whole ABBA blocks), milliseconds per repetition.
QString new_grid(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("g.json"));
    const auto r = kwbtest::kwb(
        {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"), QStringLiteral("--param"),
            QStringLiteral("size=128"), QStringLiteral("--runs"), QStringLiteral("4"), QStringLiteral("--backend"),
            QStringLiteral("cpu"), QStringLiteral("--grid"), QStringLiteral("block=32,128"), QStringLiteral("--grid"),
            QStringLiteral("threads=1,2"), QStringLiteral("--out"), path, QStringLiteral("--force")});
    if (r.exit_code != 0)
        qWarning("kwb new failed: %s", r.err.constData());
    return path;
}

// Lock files and temporaries of saves are hidden; none may be left once kwb has ended.
QStringList hidden_leftovers(const QString& folder)
{
    return QDir(folder)
        .entryList(QDir::Hidden | QDir::Files | QDir::NoDotAndDotDot)
        .filter(QRegularExpression(QStringLiteral("^\\.")));
}

// Every cell done, judged, with its runs, and the grid's interaction estimated: what a local run
// of the same study holds.
// The experiments the ledger (docs/ledger.md) holds for one study, as `kwb ledger --json` lists them.
QStringList ledger_experiments(const QString& study)
{
    const auto r = kwbtest::kwb({QStringLiteral("ledger"), QStringLiteral("--json")});
    QStringList ids;
    for (const auto& a : QJsonDocument::fromJson(r.out).object().value(QStringLiteral("attempts")).toArray())
        if (a.toObject().value(QStringLiteral("study")).toString() == QFileInfo(study).absoluteFilePath())
            ids << a.toObject().value(QStringLiteral("experiment")).toString();
    ids.sort();
    return ids;
}

void verify_complete(const kwb::Study& s)
{
    QCOMPARE(s.experiments.size(), size_t {3});
    for (const auto& e : s.experiments) {
        QCOMPARE(e.status, kwb::ExperimentStatus::Done);
        QVERIFY(e.verdict && e.final_verdict);
        QCOMPARE(e.verdict->n_baseline(), 4);
        QCOMPARE(e.verdict->n_treatment(), 4);
        QCOMPARE(e.device.kind, std::string("cpu"));
    }
    QVERIFY(s.grids.front().interaction.has_value());
    QCOMPARE(s.ledger.size(), size_t {3});
}

} // namespace

class TestKwbSpread : public QObject {
    Q_OBJECT

private slots:
    void devicesSpreadCellsOverWorkers()
    {
        QTemporaryDir dir;
        const QString path = new_grid(dir);
        const auto r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--devices"), QStringLiteral("0,1")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("grid-1: interaction: "), r.out.constData());
        const kwb::Study s = kwb::load_study(path.toStdString());
        verify_complete(s);
        // The first two cells start at once, one on each device; the third takes the first free one.
        QSet<int> used;
        for (const auto& e : s.experiments) {
            QVERIFY2(e.placement && e.placement->device, e.id.c_str());
            QVERIFY(*e.placement->device == 0 || *e.placement->device == 1);
            used.insert(*e.placement->device);
            QCOMPARE(QString::fromStdString(e.placement->host), QSysInfo::machineHostName());
            QVERIFY(e.placement->slurm_job.empty() || qEnvironmentVariableIsSet("SLURM_JOB_ID"));
            QVERIFY(QFile::exists(QString::fromStdString(kwb::part_path(path.toStdString(), e.id).string())));
        }
        QCOMPARE(used, (QSet<int> {0, 1}));
        QCOMPARE(*s.find_experiment("grid-1-r0c1")->placement->device, 0);
        QCOMPARE(*s.find_experiment("grid-1-r1c0")->placement->device, 1);
        QVERIFY2(r.err.contains("grid-1-r0c1 runs on device 0"), r.err.constData());
        QVERIFY(hidden_leftovers(dir.path()).isEmpty());
        QVERIFY(hidden_leftovers(path + QStringLiteral(".parts")).isEmpty());

        // The report's grid heat map names the device of each cell.
        const QString html = dir.filePath(QStringLiteral("g.html"));
        const auto rep = kwbtest::kwb({QStringLiteral("report"), path, QStringLiteral("--format"),
            QStringLiteral("html"), QStringLiteral("--out"), html});
        QVERIFY2(rep.exit_code == 0, rep.err.constData());
        const QByteArray page = read_all(html);
        QVERIFY(page.contains("device 0") && page.contains("device 1"));

        // Everything is folded already: collect finds nothing to change.
        const QByteArray before = read_all(path);
        const auto c = kwbtest::kwb({QStringLiteral("collect"), path});
        QVERIFY2(c.exit_code == 0, c.err.constData());
        QCOMPARE(read_all(path), before);
    }

    void devicesRelayEachWorkersStream()
    {
        QTemporaryDir dir;
        const QString path = new_grid(dir);
        const auto r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--devices"), QStringLiteral("0,1"),
            QStringLiteral("--json-progress")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QStringList started;
        int ends = 0;
        for (const auto& line : lines) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            QVERIFY2(!o.isEmpty(), line.constData());
            QCOMPARE(o.value(u"v").toInt(), 1);
            if (o.value(u"type").toString() == u"end") {
                ++ends;
                continue;
            }
            QVERIFY2(o.value(u"device").isDouble(), line.constData());
            if (o.value(u"type").toString() == u"start")
                started << o.value(QStringLiteral("experiment")).toString();
        }
        QCOMPARE(ends, 1);
        const QJsonObject end = QJsonDocument::fromJson(lines.last()).object();
        QCOMPARE(end.value(u"type").toString(), QStringLiteral("end"));
        QCOMPARE(end.value(u"exit_code").toInt(), 0);
        started.sort();
        QCOMPARE(started, kCells);
        verify_complete(kwb::load_study(path.toStdString()));
    }

    void devicesStopOnASignalAndResume()
    {
        QTemporaryDir dir;
        const QString path = new_grid(dir);
        QJsonObject doc = load(path);
        QJsonArray ex = doc.value(u"experiments").toArray();
        for (int i = 0; i < ex.size(); ++i) { // long enough to be caught running
            QJsonObject e = ex.at(i).toObject();
            QJsonObject plan = e.value(u"plan").toObject();
            plan[QStringLiteral("runs_per_arm")] = 40;
            e[QStringLiteral("plan")] = plan;
            ex[i] = e;
        }
        doc[QStringLiteral("experiments")] = ex;
        write_all(path, QJsonDocument(doc).toJson());
        QProcess run;
        run.start(kKwb, {QStringLiteral("run"), path, QStringLiteral("--devices"), QStringLiteral("0,1")});
        QVERIFY(run.waitForStarted());
        const std::string study = path.toStdString();
        const QString first = QString::fromStdString(kwb::part_path(study, "grid-1-r0c1").string());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(first)
                && load(first).value(u"experiments").toArray().at(0).toObject().value(u"samples").toArray().size() >= 4,
            120000);
        run.terminate(); // SIGTERM to the parent alone: it stops each worker once
        QVERIFY(run.waitForFinished(120000));
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);
        QCOMPARE(run.exitCode(), 130);
        // What the workers kept is in the study already, and nothing is left locked.
        const kwb::Study stopped = kwb::load_study(study);
        for (const auto& id : kwb::part_ids(study))
            QVERIFY(kwb::measured_state(*stopped.find_experiment(id))
                == kwb::measured_state(kwb::load_study(kwb::part_path(study, id)).experiments[0]));
        QVERIFY(!stopped.find_experiment("grid-1-r0c1")->samples.empty());
        QVERIFY(hidden_leftovers(dir.path()).isEmpty());
        QVERIFY(hidden_leftovers(path + QStringLiteral(".parts")).isEmpty());
        const auto kept = stopped.find_experiment("grid-1-r0c1")->samples;

        // Run again: each cell resumes where it stopped, to its verdict.
        const auto r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--devices"), QStringLiteral("0,1")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const kwb::Study s = kwb::load_study(study);
        for (const auto& e : s.experiments) {
            QCOMPARE(e.status, kwb::ExperimentStatus::Done);
            QCOMPARE(e.verdict->n_baseline(), 40);
        }
        const auto& resumed = s.find_experiment("grid-1-r0c1")->samples;
        for (size_t i = 0; i < kept.size(); ++i)
            QCOMPARE(resumed[i].started_at, kept[i].started_at);
    }

    void devicesRefusals()
    {
        QTemporaryDir dir;
        const QString path = new_grid(dir);
        const QByteArray before = read_all(path);
        auto r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--devices"), QStringLiteral("0,0")});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("listed twice"), r.err.constData());
        r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--devices"), QStringLiteral("0,1"),
            QStringLiteral("--cell"), kCells[0]});
        QCOMPARE(r.exit_code, 2);
        r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--cell"), QStringLiteral("grid-9-r0c1")});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("no experiment 'grid-9-r0c1'"), r.err.constData());
        QCOMPARE(read_all(path), before);
    }

    void cellWritesItsPartAndCollectFoldsOnce()
    {
        QTemporaryDir dir;
        // A ledger of this test's own: the cells' part files are not indexed, the collected study is.
        const QByteArray ledger_before = qgetenv("KWB_LEDGER");
        qputenv("KWB_LEDGER", dir.filePath(QStringLiteral("ledger.sqlite")).toLocal8Bit());
        const auto restore = qScopeGuard([&] { qputenv("KWB_LEDGER", ledger_before); });
        const QString path = new_grid(dir);
        const QByteArray fresh = read_all(path);
        for (const auto& id : kCells) {
            const auto r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--cell"), id});
            QVERIFY2(r.exit_code == 0, r.err.constData());
        }
        // The study itself is untouched: each cell wrote only its part.
        QCOMPARE(read_all(path), fresh);
        QVERIFY(ledger_experiments(path).isEmpty());
        const std::string study = path.toStdString();
        QCOMPARE(kwb::part_ids(study), (std::vector<std::string> {"grid-1-r0c1", "grid-1-r1c0", "grid-1-r1c1"}));
        const kwb::Study part = kwb::load_study(kwb::part_path(study, "grid-1-r1c1"));
        QCOMPARE(part.experiments.size(), size_t {1});
        QCOMPARE(part.experiments[0].status, kwb::ExperimentStatus::Done);
        QVERIFY(part.experiments[0].placement && !part.experiments[0].placement->device); // no --device given

        // A finished cell is not run again: its part is kept as it is.
        const QByteArray part_bytes = read_all(QString::fromStdString(kwb::part_path(study, "grid-1-r1c1").string()));
        auto r = kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--cell"), QStringLiteral("grid-1-r1c1")});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(read_all(QString::fromStdString(kwb::part_path(study, "grid-1-r1c1").string())), part_bytes);

        r = kwbtest::kwb({QStringLiteral("collect"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("grid-1-r1c1: folded; done in the study"), r.out.constData());
        QVERIFY2(r.out.contains("grid-1: interaction: "), r.out.constData());
        const kwb::Study s = kwb::load_study(study);
        verify_complete(s);
        // Indexed on the machine that holds the study, once collect folded the cells (docs/ledger.md).
        QCOMPARE(ledger_experiments(path), kCells);
        for (const auto& e : s.experiments)
            QVERIFY(kwb::measured_state(e)
                == kwb::measured_state(kwb::load_study(kwb::part_path(study, e.id)).experiments[0]));

        // Twice: nothing changes, byte for byte.
        const QByteArray collected = read_all(path);
        r = kwbtest::kwb({QStringLiteral("collect"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("grid-1-r1c1: unchanged"), r.out.constData());
        QCOMPARE(read_all(path), collected);
        QVERIFY(hidden_leftovers(dir.path()).isEmpty());

        // A plain run of the collected study finds nothing left to run.
        r = kwbtest::kwb({QStringLiteral("run"), path});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(read_all(path), collected);
    }

    void submitDryRunWritesTheArrayScript()
    {
        QTemporaryDir dir;
        const QString path = new_grid(dir);
        const auto r = kwbtest::kwb({QStringLiteral("submit"), path, QStringLiteral("--dry-run"),
            QStringLiteral("--partition"), QStringLiteral("cpu"), QStringLiteral("--time"), QStringLiteral("10:00"),
            QStringLiteral("--"), QStringLiteral("--mem=1G")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.startsWith("'sbatch' '--parsable' '--array=0-2'"), r.out.constData());
        QVERIFY(
            r.out.contains("'--partition=cpu'") && r.out.contains("'--time=10:00'") && r.out.contains("'--mem=1G'"));
        QVERIFY(!r.out.contains("gpus-per-task")); // CPU cells ask for no GPU
        QVERIFY(r.out.contains("task 2: grid-1-r1c1"));
        const QByteArray script = read_all(path + QStringLiteral(".parts/submit-1.sh"));
        QVERIFY2(script.contains("2) cell='grid-1-r1c1' ;;") && script.contains(" run '"), script.constData());
        QVERIFY(!QFile::exists(path + QStringLiteral(".parts/slurm.json"))); // nothing submitted
        const auto one = kwbtest::kwb({QStringLiteral("submit"), path, QStringLiteral("--dry-run"),
            QStringLiteral("--cell"), kCells[1], QStringLiteral("--gpus-per-task"), QStringLiteral("1")});
        QVERIFY2(one.out.contains("'--array=0-0'") && one.out.contains("'--gpus-per-task=1'"), one.out.constData());
        QVERIFY(one.out.contains("task 0: grid-1-r1c0"));
    }

    void collectLeavesAPartThatIsBehind()
    {
        QTemporaryDir dir;
        const QString path = new_grid(dir);
        const std::string study = path.toStdString();
        QCOMPARE(kwbtest::kwb({QStringLiteral("run"), path, QStringLiteral("--cell"), kCells[0]}).exit_code, 0);
        // The study moves on without the part: a local run of every cell.
        QCOMPARE(kwbtest::kwb({QStringLiteral("run"), path}).exit_code, 0);
        const QByteArray ran = read_all(path);
        const auto r = kwbtest::kwb({QStringLiteral("collect"), path});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.out.contains("grid-1-r0c1: behind the study"), r.out.constData());
        QCOMPARE(read_all(path), ran);
    }
};

QTEST_GUILESS_MAIN(TestKwbSpread)
#include "tst_kwb_spread.moc"
