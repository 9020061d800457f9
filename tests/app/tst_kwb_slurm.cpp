// SPDX-License-Identifier: GPL-3.0-or-later
// A grid as a Slurm job array on a real single-node cluster on localhost (scripts/slurm-local.sh:
// munged, slurmctld and slurmd with their key, state and sockets in a temporary folder), started
// and stopped by this test: `kwb submit` one task per cell, one task cancelled while it runs,
// `kwb status` naming it with Slurm's state, `kwb submit --cell` resubmitting it alone (its part
// resumes where it stopped), and `kwb collect` twice. Where the cluster cannot start here, every
// case skips with one line saying why.
#include "kwb_process.h"
#include "slurm_fixture.h"
#include "study/study_file.h"
#include "study/study_parts.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace kwbtest;

namespace {

QJsonObject status_json(const QString& path)
{
    const auto r = kwbtest::kwb({QStringLiteral("status"), path, QStringLiteral("--json")});
    return r.exit_code == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
}

QJsonObject cell_of(const QJsonObject& status, const QString& id)
{
    for (const auto& c : status.value(u"cells").toArray())
        if (c.toObject().value(u"id").toString() == id)
            return c.toObject();
    return {};
}

// Polls `kwb status --json` until `done` says so; a hang guard, not a measurement (2 minutes).
template<typename Done> QJsonObject wait_for(const QString& path, const Done& done)
{
    QElapsedTimer t;
    t.start();
    QJsonObject s;
    while (t.elapsed() < 120000) {
        s = status_json(path);
        if (done(s))
            return s;
        QThread::msleep(100);
    }
    qWarning("gave up waiting; last status: %s", QJsonDocument(s).toJson().constData());
    return {};
}

int judged_samples(const kwb::Experiment& e, const std::string& arm)
{
    return static_cast<int>(kwb::judged_values(e, arm, e.metric).size());
}

} // namespace

class TestKwbSlurm : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { m_cluster.start(); }
    void cleanupTestCase() { m_cluster.stop(); }

    void gridOverAJobArray()
    {
        if (!m_cluster.started())
            QSKIP(qPrintable(m_cluster.skipReason()));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("g.json"));
        auto r = kwbtest::kwb(
            {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"), QStringLiteral("--param"),
                QStringLiteral("size=128"), QStringLiteral("--runs"), QStringLiteral("4"), QStringLiteral("--backend"),
                QStringLiteral("cpu"), QStringLiteral("--grid"), QStringLiteral("block=32,128"),
                QStringLiteral("--grid"), QStringLiteral("threads=1,2"), QStringLiteral("--out"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        // The cell to be cancelled runs long enough (60 runs per arm) to be caught running.
        QJsonObject doc = load(path);
        QJsonArray ex = doc.value(u"experiments").toArray();
        QJsonObject slow = ex.at(2).toObject();
        QCOMPARE(slow.value(u"id").toString(), QStringLiteral("grid-1-r1c1"));
        QJsonObject plan = slow.value(u"plan").toObject();
        plan[QStringLiteral("runs_per_arm")] = 60;
        slow[QStringLiteral("plan")] = plan;
        ex[2] = slow;
        doc[QStringLiteral("experiments")] = ex;
        write_all(path, QJsonDocument(doc).toJson());
        const QByteArray fresh = read_all(path);

        r = kwbtest::kwb({QStringLiteral("submit"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.startsWith("submitted job array "), r.out.constData());
        const QJsonObject first = status_json(path);
        const QString task = cell_of(first, QStringLiteral("grid-1-r1c1")).value(u"slurm_job").toString();
        QVERIFY2(task.endsWith(QStringLiteral("_2")), qPrintable(task));
        const QString job = task.section(u'_', 0, 0);
        for (const auto& id : {QStringLiteral("grid-1-r0c1"), QStringLiteral("grid-1-r1c0")})
            QVERIFY(QStringList({QStringLiteral("queued"), QStringLiteral("running"), QStringLiteral("done")})
                        .contains(cell_of(first, id).value(u"state").toString()));

        // Cancel the slow cell's task once it has samples in its part.
        const std::string study = path.toStdString();
        const QString slow_part = QString::fromStdString(kwb::part_path(study, "grid-1-r1c1").string());
        const QJsonObject running = wait_for(path, [](const QJsonObject& s) {
            const QJsonObject c = cell_of(s, QStringLiteral("grid-1-r1c1"));
            return c.value(u"state").toString() == u"running" && c.value(u"samples").toInt() >= 4;
        });
        QVERIFY(!running.isEmpty());
        QProcess cancel;
        cancel.start(QStringLiteral("scancel"), {task});
        QVERIFY(cancel.waitForFinished(30000));
        QCOMPARE(cancel.exitCode(), 0);

        // Status: the cancelled task is failed, with Slurm's state and the way to resubmit it.
        const QJsonObject after = wait_for(path, [](const QJsonObject& s) {
            return cell_of(s, QStringLiteral("grid-1-r1c1")).value(u"state").toString() == u"failed"
                && cell_of(s, QStringLiteral("grid-1-r0c1")).value(u"state").toString() == u"done"
                && cell_of(s, QStringLiteral("grid-1-r1c0")).value(u"state").toString() == u"done";
        });
        QVERIFY(!after.isEmpty());
        const QJsonObject failed = cell_of(after, QStringLiteral("grid-1-r1c1"));
        QCOMPARE(failed.value(u"slurm_state").toString(), QStringLiteral("CANCELLED"));
        QVERIFY2(failed.value(u"detail").toString().contains(QStringLiteral("--cell grid-1-r1c1")),
            qPrintable(failed.value(u"detail").toString()));
        QVERIFY(!cell_of(after, QStringLiteral("grid-1-r0c1")).value(u"collected").toBool());
        r = kwbtest::kwb({QStringLiteral("status"), path});
        QVERIFY2(r.out.contains("CANCELLED") && r.out.contains("1 failed"), r.out.constData());
        QCOMPARE(read_all(path), fresh); // tasks write only their parts
        const kwb::Study stopped = kwb::load_study(slow_part.toStdString());
        const auto kept = stopped.experiments[0].samples;
        QVERIFY(!kept.empty());
        QVERIFY(stopped.experiments[0].status != kwb::ExperimentStatus::Done);

        // Resubmitted alone; a second submission while it is queued is refused.
        r = kwbtest::kwb({QStringLiteral("submit"), path, QStringLiteral("--cell"), QStringLiteral("grid-1-r1c1")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("1 task"), r.out.constData());
        const QString again = cell_of(status_json(path), QStringLiteral("grid-1-r1c1")).value(u"slurm_job").toString();
        QVERIFY(again != task && again.endsWith(QStringLiteral("_0")));
        r = kwbtest::kwb({QStringLiteral("submit"), path, QStringLiteral("--cell"), QStringLiteral("grid-1-r1c1")});
        QVERIFY2(r.exit_code == 2 || r.exit_code == 0, r.err.constData());
        if (r.exit_code == 2)
            QVERIFY2(r.err.contains("already in Slurm's queue"), r.err.constData());
        const QJsonObject done = wait_for(
            path, [](const QJsonObject& s) { return s.value(u"counts").toObject().value(u"done").toInt() == 3; });
        QVERIFY(!done.isEmpty());
        r = kwbtest::kwb({QStringLiteral("submit"), path});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.err.contains("nothing to submit"), r.err.constData());

        // Collect folds the three parts and judges them; twice changes nothing.
        r = kwbtest::kwb({QStringLiteral("collect"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("grid-1: interaction: "), r.out.constData());
        const QByteArray collected = read_all(path);
        r = kwbtest::kwb({QStringLiteral("collect"), path});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(read_all(path), collected);
        const QJsonObject final_status = status_json(path);
        for (const auto& c : final_status.value(u"cells").toArray()) {
            QCOMPARE(c.toObject().value(u"state").toString(), QStringLiteral("done"));
            QVERIFY(c.toObject().value(u"collected").toBool());
        }

        // The study holds what a local run would: every cell judged with its planned runs, the
        // interaction estimated; the cancelled task's samples kept and continued, not redone.
        const kwb::Study s = kwb::load_study(study);
        QVERIFY(s.grids.front().interaction.has_value());
        for (const auto& e : s.experiments) {
            QCOMPARE(e.status, kwb::ExperimentStatus::Done);
            QVERIFY(e.final_verdict);
            const int runs = e.id == "grid-1-r1c1" ? 60 : 4;
            QCOMPARE(judged_samples(e, e.arms[0].name), runs);
            QCOMPARE(judged_samples(e, e.arms[1].name), runs);
            QVERIFY(e.placement);
            QCOMPARE(QString::fromStdString(e.placement->host), QSysInfo::machineHostName());
            QVERIFY(QString::fromStdString(e.placement->slurm_job)
                        .startsWith(e.id == "grid-1-r1c1" ? again.section(u'_', 0, 0) + u'_' : job + u'_'));
        }
        const kwb::Experiment& resumed = *s.find_experiment("grid-1-r1c1");
        for (size_t i = 0; i < kept.size(); ++i) {
            QCOMPARE(resumed.samples[i].started_at, kept[i].started_at);
            QCOMPARE(resumed.samples[i].position, kept[i].position);
        }
    }

private:
    SlurmFixture m_cluster;
};

QTEST_GUILESS_MAIN(TestKwbSlurm)
#include "tst_kwb_slurm.moc"
