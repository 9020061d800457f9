// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb run` and `kwb new` against what a demanding user does to them: a reader that closes the
// progress stream early, studies edited by hand into shapes the runner cannot resume, and plans
// that would not load again (spec/cli.md, docs/run-engine.md, docs/study-format.md).
#include "kwb_process.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <unistd.h>

using namespace kwbtest;

namespace {

QJsonObject sample(const char* arm, int position, bool warmup = false)
{
    return {{QStringLiteral("arm"), QString::fromLatin1(arm)}, {QStringLiteral("rep"), position < 0 ? 0 : position / 2},
        {QStringLiteral("position"), position}, {QStringLiteral("warmup"), warmup},
        {QStringLiteral("metrics"), QJsonObject {{QStringLiteral("time_ms"), 1.5}}}};
}

// Makes a file or directory unwritable, also for root (who ignores permission bits, not the
// immutable attribute), and undoes it when it goes out of scope.
class ReadOnly {
public:
    explicit ReadOnly(QString path)
        : path_(std::move(path))
    {
        if (::geteuid() == 0)
            ok_ = QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("+i"), path_}) == 0;
        else
            ok_ = QFile::setPermissions(path_, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup);
    }
    ~ReadOnly()
    {
        if (::geteuid() == 0)
            QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("-i"), path_});
        else
            QFile::setPermissions(
                path_, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup);
    }
    bool ok() const { return ok_; }

private:
    QString path_;
    bool ok_ = false;
};

} // namespace

class TestKwbRunInput : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }

    QString new_study(const char* name, const QStringList& extra = {}) { return new_gemm_study(path(name), extra); }

    QStringList temporaries() const
    {
        return QDir(dir_.path()).entryList(QStringList {QStringLiteral(".*.json.*")}, QDir::Files | QDir::Hidden);
    }

private slots:
    // `kwb run S --json-progress | head -1`: the reader goes away after the first line. kwb must
    // not die of SIGPIPE between a repetition and its save (leaving the study "running"): it stops
    // after the repetition in flight, saves the study as stopped and exits 130.
    void closedStreamStopsCleanly()
    {
        const QString p = new_study("pipe.json", {QStringLiteral("--runs"), QStringLiteral("100000")});
        QProcess sh;
        sh.start(QStringLiteral("bash"),
            {QStringLiteral("-c"),
                QStringLiteral("\"$0\" run \"$1\" --json-progress | head -1 >/dev/null; "
                               "exit ${PIPESTATUS[0]}"),
                kKwb, p});
        QVERIFY(sh.waitForFinished(300000));
        QCOMPARE(sh.exitCode(), 130);
        const QJsonObject e = load(p).value(u"experiments").toArray().first().toObject();
        QCOMPARE(e.value(u"status").toString(), QStringLiteral("stopped"));
        QVERIFY(!e.value(u"samples").toArray().isEmpty());
        QVERIFY(e.value(u"stop_reason").toString().startsWith(u"stopped"));
        QCOMPARE(temporaries(), QStringList());

        // And it resumes from there.
        QJsonObject study = load(p);
        QJsonArray experiments = study.value(u"experiments").toArray();
        QJsonObject plan = e.value(u"plan").toObject();
        plan[QStringLiteral("runs_per_arm")] = 3;
        QJsonObject edited = e;
        edited[QStringLiteral("plan")] = plan;
        experiments[0] = edited;
        study[QStringLiteral("experiments")] = experiments;
        write_all(p, QJsonDocument(study).toJson());
        QCOMPARE(kwb({QStringLiteral("run"), p}).exit_code, 0);
        QCOMPARE(load(p).value(u"experiments").toArray().first().toObject().value(u"status").toString(),
            QStringLiteral("done"));
    }

    void handEditedStudiesAreRefused_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QByteArray>("says");
        QTest::addRow("duplicate experiment ids") << QStringLiteral("dup-id") << QByteArray("'ab-1'");
        QTest::addRow("arms with one name") << QStringLiteral("dup-arm") << QByteArray("both arms are named");
        QTest::addRow("sample of an unknown arm")
            << QStringLiteral("unknown-arm") << QByteArray("samples[0]: arm 'control'");
        QTest::addRow("judged sample before the order") << QStringLiteral("negative") << QByteArray("position -3");
        QTest::addRow("two samples at one position") << QStringLiteral("twice") << QByteArray("position 0 is taken");
        QTest::addRow("position at the end of int") << QStringLiteral("huge") << QByteArray("position 2147483647");
    }
    void handEditedStudiesAreRefused()
    {
        QFETCH(QString, edit);
        QFETCH(QByteArray, says);
        const QString p = new_study("edited.json", {QStringLiteral("--runs"), QStringLiteral("3")});
        QJsonObject study = load(p);
        QJsonArray experiments = study.value(u"experiments").toArray();
        QJsonObject e = experiments.first().toObject();
        QJsonArray samples;
        if (edit == u"dup-id") {
            experiments.append(e);
        } else if (edit == u"dup-arm") {
            QJsonArray arms = e.value(u"arms").toArray();
            QJsonObject t = arms[1].toObject();
            t[QStringLiteral("name")] = QStringLiteral("baseline");
            arms[1] = t;
            e[QStringLiteral("arms")] = arms;
        } else if (edit == u"unknown-arm") {
            samples = {sample("control", 0)};
        } else if (edit == u"negative") {
            samples = {sample("baseline", -3)};
        } else if (edit == u"twice") {
            samples = {sample("baseline", 0), sample("treatment", 0)};
        } else {
            samples = {sample("baseline", 2147483647)};
        }
        if (!samples.isEmpty()) {
            e[QStringLiteral("samples")] = samples;
            e[QStringLiteral("status")] = QStringLiteral("stopped");
        }
        experiments[0] = e;
        study[QStringLiteral("experiments")] = experiments;
        write_all(p, QJsonDocument(study).toJson());
        const QByteArray before = read_all(p);

        const auto r = kwb({QStringLiteral("run"), p, QStringLiteral("--json-progress")});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY2(r.err.contains(p.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(says), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QCOMPARE(read_all(p), before);
    }

    // A study kwb run could not save into is bad input, found before anything runs: no stream,
    // one line, exit 2, the file as it was and no temporary file left.
    void unwritableStudyIsRefusedBeforeAnythingRuns_data()
    {
        QTest::addColumn<bool>("directory");
        QTest::addRow("read-only file") << false;
        QTest::addRow("read-only directory") << true;
    }
    void unwritableStudyIsRefusedBeforeAnythingRuns()
    {
        QFETCH(bool, directory);
        const QString sub = dir_.filePath(QStringLiteral("locked"));
        QDir().mkpath(sub);
        const QString p = sub + QStringLiteral("/s.json");
        QFile::remove(p);
        QCOMPARE(
            kwb({QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"), QStringLiteral("--param"),
                    QStringLiteral("size=128"), QStringLiteral("--vary"), QStringLiteral("block=32,128"),
                    QStringLiteral("--runs"), QStringLiteral("3"), QStringLiteral("--out"), p})
                .exit_code,
            0);
        const QByteArray before = read_all(p);
        Result r;
        {
            ReadOnly lock(directory ? sub : p);
            if (!lock.ok())
                QSKIP("cannot make the study read-only here (chattr needs an ext4-like file system)");
            r = kwb({QStringLiteral("run"), p, QStringLiteral("--json-progress")});
        }
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY2(r.err.contains(p.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QCOMPARE(read_all(p), before);
        QCOMPARE(QDir(sub).entryList(QDir::Files | QDir::Hidden), QStringList {QStringLiteral("s.json")});
    }

    // kwb new never writes a study that kwb run refuses to load.
    void newRefusesAPlanThatWouldNotLoad_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QByteArray>("says");
        QTest::addRow("max-seconds 0") << QStringList {QStringLiteral("--max-seconds"), QStringLiteral("0")}
                                       << QByteArray("--max-seconds");
        QTest::addRow("max-seconds negative")
            << QStringList {QStringLiteral("--max-seconds=-5")} << QByteArray("--max-seconds");
        QTest::addRow("duration negative") << QStringList {QStringLiteral("--duration=-1")} << QByteArray("--duration");
        QTest::addRow("min-rep-ms negative")
            << QStringList {QStringLiteral("--min-rep-ms=-1")} << QByteArray("--min-rep-ms");
        QTest::addRow("min-rep-ms a minute and more")
            << QStringList {QStringLiteral("--min-rep-ms=60001")} << QByteArray("--min-rep-ms");
    }
    void newStoresTheMinimumRepetitionTime()
    {
        const QString p = path("min-rep.json");
        QFile::remove(p);
        const auto r = kwb({QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("rmsnorm"),
            QStringLiteral("--vary"), QStringLiteral("threads=1,2"), QStringLiteral("--min-rep-ms"),
            QStringLiteral("50"), QStringLiteral("--out"), p});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject doc = QJsonDocument::fromJson(read_all(p)).object();
        const QJsonObject e = doc[QStringLiteral("experiments")].toArray().at(0).toObject();
        QCOMPARE(e[QStringLiteral("plan")].toObject()[QStringLiteral("min_rep_ms")].toDouble(), 50.0);
    }
    void newRefusesAPlanThatWouldNotLoad()
    {
        QFETCH(QStringList, extra);
        QFETCH(QByteArray, says);
        const QString p = path("refused.json");
        QFile::remove(p);
        const auto r = kwb(QStringList {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("rmsnorm"),
                               QStringLiteral("--vary"), QStringLiteral("threads=1,2"), QStringLiteral("--out"), p}
            + extra);
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY2(r.err.contains(says), r.err.constData());
        QVERIFY(!QFile::exists(p));
    }
};

QTEST_GUILESS_MAIN(TestKwbRunInput)
#include "tst_kwb_run_input.moc"
