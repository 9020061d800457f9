// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb run --host` and `kwb devices --host` against a real OpenSSH server on localhost, started by
// this test as the current user on a high port with a host key and an authorized key made here
// (docs/remote.md). kwb reaches it through KWB_SSH, a wrapper that runs `ssh -F <generated config>`
// and logs each ssh client's pid and command, so a test can cut the connection by killing one.
#include "kwb_process.h"
#include "sshd_fixture.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <unistd.h>

using namespace kwbtest;

namespace {

void write_executable(const QString& path, const QByteArray& text)
{
    write_all(path, text);
    QFile::setPermissions(path, QFile::permissions(path) | QFile::ExeOwner | QFile::ExeUser);
}

QList<QJsonObject> stream_lines(const QByteArray& out)
{
    QList<QJsonObject> lines;
    for (const auto& line : out.split('\n'))
        if (!line.isEmpty())
            lines.append(QJsonDocument::fromJson(line).object());
    return lines;
}

// Judged positions of one experiment's samples: each exactly once, 0..n-1; n in `*n`.
bool positions_complete(const QJsonObject& e, int* n)
{
    QSet<int> seen;
    for (const auto& v : e.value(u"samples").toArray()) {
        const auto s = v.toObject();
        if (s.value(u"warmup").toBool())
            continue;
        const int position = s.value(u"position").toInt();
        if (seen.contains(position))
            return false;
        seen.insert(position);
    }
    *n = static_cast<int>(seen.size());
    for (int i = 0; i < *n; ++i)
        if (!seen.contains(i))
            return false;
    return true;
}

} // namespace

class TestKwbRemote : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    SshdFixture m_server;
    QString m_skip; // why no server could be started: every case skips with this one line
    QString m_remoteDir;

    QString path(const QString& name) const { return m_dir.filePath(name); }
    QStringList hostArgs() const
    {
        return {QStringLiteral("--host"), QStringLiteral("kwbtest"), QStringLiteral("--remote-kwb"), kKwb,
            QStringLiteral("--remote-dir"), m_remoteDir};
    }
    // The study's folder on the "remote" side (one study per folder in these cases).
    QString remoteStudy(const QString& name) const
    {
        const auto folders = QDir(m_remoteDir).entryList({name + QStringLiteral("-*")}, QDir::Dirs);
        return folders.size() == 1 ? QDir(m_remoteDir).filePath(folders.first() + u'/' + name) : QString();
    }
    qint64 sshClient(const QString& what) const { return m_server.client(what); }

private slots:
    void initTestCase();
    void cleanupTestCase();
    void remote_run_end_to_end();
    void dropped_connection_reattaches_by_itself();
    void killed_client_reattached_later_with_locks_held();
    void remote_kwb_killed_keeps_what_it_saved();
    void version_skew_is_named();
    void stream_version_skew_is_named_once();
    void devices_over_ssh();
    void unreachable_host_is_one_line();
    void install_then_run_without_remote_kwb();
};

void TestKwbRemote::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_remoteDir = path(QStringLiteral("remote-runs"));
    if (!m_server.start(m_dir.filePath(QStringLiteral("sshd")))) {
        m_skip = m_server.skipReason();
        return;
    }
    qputenv("KWB_SSH", m_server.wrapper().toUtf8());
}

void TestKwbRemote::cleanupTestCase()
{
    m_server.stop();
}

void TestKwbRemote::remote_run_end_to_end()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString study
        = new_gemm_study(path(QStringLiteral("e2e.json")), {QStringLiteral("--runs"), QStringLiteral("6")});
    const auto r = kwb(QStringList {QStringLiteral("run"), study, QStringLiteral("--json-progress"),
                           QStringLiteral("--backend"), QStringLiteral("cpu")}
        + hostArgs());
    QVERIFY2(r.exit_code == 0, r.err.constData());
    const auto lines = stream_lines(r.out);
    QVERIFY(!lines.isEmpty());
    QCOMPARE(lines.first().value(u"type").toString(), QStringLiteral("start"));
    QCOMPARE(lines.first().value(u"backend").toString(), QStringLiteral("cpu"));
    QCOMPARE(lines.last().value(u"type").toString(), QStringLiteral("end"));
    QCOMPARE(lines.last().value(u"status").toString(), QStringLiteral("done"));
    int samples = 0;
    for (const auto& l : lines)
        samples += l.value(u"type").toString() == u"sample" && !l.value(u"warmup").toBool();
    QCOMPARE(samples, 12);
    // The study came back whole: every announced sample, judged, with its verdict.
    const auto e = load(study).value(u"experiments").toArray().first().toObject();
    int n = 0;
    QVERIFY(positions_complete(e, &n));
    QCOMPARE(n, 12);
    QCOMPARE(e.value(u"status").toString(), QStringLiteral("done"));
    QVERIFY(e.value(u"verdict").isObject());
    QVERIFY(e.value(u"device").toObject().value(u"kind").toString() == u"cpu");
    // Nothing is left behind: no record of a remote owner, no lock, no remote folder.
    QVERIFY(!QFile::exists(path(QStringLiteral(".e2e.json.remote"))));
    QVERIFY(!QFile::exists(path(QStringLiteral(".e2e.json.lock"))));
    QVERIFY(remoteStudy(QStringLiteral("e2e.json")).isEmpty());
    QVERIFY2(r.err.contains("the study is back in"), r.err.constData());
}

void TestKwbRemote::dropped_connection_reattaches_by_itself()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString study = new_gemm_study(path(QStringLiteral("drop.json")),
        {QStringLiteral("--stop"), QStringLiteral("duration"), QStringLiteral("--duration"), QStringLiteral("4")});
    QProcess p;
    p.start(kKwb, QStringList {QStringLiteral("run"), study, QStringLiteral("--json-progress")} + hostArgs());
    QByteArray out;
    // Mid-run: some samples have arrived; then the ssh client that carries the stream dies.
    for (int i = 0; i < 600 && out.count("\"type\":\"sample\"") < 4; ++i) {
        p.waitForReadyRead(100);
        out += p.readAllStandardOutput();
    }
    QVERIFY2(out.count("\"type\":\"sample\"") >= 4, p.readAllStandardError().constData());
    const qint64 client = sshClient(QStringLiteral("tail -c"));
    QVERIFY(client > 0);
    QCOMPARE(::kill(static_cast<pid_t>(client), SIGKILL), 0);
    QVERIFY(p.waitForFinished(120000));
    out += p.readAllStandardOutput();
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(p.exitCode() == 0, err.constData());
    QVERIFY2(err.contains("the connection was lost; reattaching"), err.constData());
    // The relayed stream has no gap and no repeat across the reconnect: each position once.
    QSet<int> positions;
    const auto lines = stream_lines(out);
    for (const auto& l : lines)
        if (l.value(u"type").toString() == u"sample" && !l.value(u"warmup").toBool()) {
            const int position = l.value(u"position").toInt();
            QVERIFY2(
                !positions.contains(position), qPrintable(QStringLiteral("position %1 relayed twice").arg(position)));
            positions.insert(position);
        }
    QCOMPARE(lines.last().value(u"type").toString(), QStringLiteral("end"));
    const auto e = load(study).value(u"experiments").toArray().first().toObject();
    int n = 0;
    QVERIFY(positions_complete(e, &n));
    QCOMPARE(n, static_cast<int>(positions.size()));
    QCOMPARE(e.value(u"status").toString(), QStringLiteral("done"));
    QVERIFY(!QFile::exists(path(QStringLiteral(".drop.json.remote"))));
}

void TestKwbRemote::killed_client_reattached_later_with_locks_held()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString study = new_gemm_study(path(QStringLiteral("later.json")),
        {QStringLiteral("--stop"), QStringLiteral("duration"), QStringLiteral("--duration"), QStringLiteral("5")});
    const QByteArray sent = read_all(study);
    QProcess p;
    p.start(kKwb, QStringList {QStringLiteral("run"), study, QStringLiteral("--json-progress")} + hostArgs());
    QByteArray out;
    for (int i = 0; i < 600 && !out.contains("\"type\":\"sample\""); ++i) {
        p.waitForReadyRead(100);
        out += p.readAllStandardOutput();
    }
    QVERIFY(out.contains("\"type\":\"sample\""));
    // The laptop goes away: the local kwb and its ssh client die at once.
    const qint64 client = sshClient(QStringLiteral("tail -c"));
    QVERIFY(client > 0);
    p.kill();
    p.waitForFinished(10000);
    ::kill(static_cast<pid_t>(client), SIGKILL);

    // The run goes on there, and both copies are locked: the remote one by the remote kwb...
    const QString remote = remoteStudy(QStringLiteral("later.json"));
    QVERIFY(!remote.isEmpty());
    const auto there = kwb({QStringLiteral("run"), remote});
    QCOMPARE(there.exit_code, 2);
    QVERIFY2(there.err.contains("is being run by PID"), there.err.constData());
    // ...the local one by the record of the remote run, which names the host.
    QVERIFY(QFile::exists(path(QStringLiteral(".later.json.remote"))));
    const auto here = kwb({QStringLiteral("run"), study});
    QCOMPARE(here.exit_code, 2);
    QVERIFY2(here.err.contains("is being run on host kwbtest"), here.err.constData());
    QCOMPARE(here.err.count('\n'), 1);
    QCOMPARE(read_all(study), sent); // untouched while the run is away

    // Reattached later (the record says where): the whole stream is replayed, the study comes back.
    const auto back
        = kwb({QStringLiteral("run"), study, QStringLiteral("--attach"), QStringLiteral("--json-progress")});
    QVERIFY2(back.exit_code == 0, back.err.constData());
    QVERIFY2(back.err.contains("attaching to the run"), back.err.constData());
    const auto lines = stream_lines(back.out);
    QCOMPARE(lines.first().value(u"type").toString(), QStringLiteral("start"));
    QCOMPARE(lines.last().value(u"type").toString(), QStringLiteral("end"));
    const auto e = load(study).value(u"experiments").toArray().first().toObject();
    int n = 0;
    QVERIFY(positions_complete(e, &n));
    QVERIFY(n >= 10);
    QCOMPARE(e.value(u"status").toString(), QStringLiteral("done"));
    QVERIFY(!QFile::exists(path(QStringLiteral(".later.json.remote"))));
    QVERIFY(remoteStudy(QStringLiteral("later.json")).isEmpty());
    // And the study runs here again.
    const auto again = kwb({QStringLiteral("run"), study});
    QCOMPARE(again.exit_code, 0);
}

void TestKwbRemote::remote_kwb_killed_keeps_what_it_saved()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString study = new_gemm_study(path(QStringLiteral("killed.json")),
        {QStringLiteral("--stop"), QStringLiteral("duration"), QStringLiteral("--duration"), QStringLiteral("30")});
    QProcess p;
    p.start(kKwb, QStringList {QStringLiteral("run"), study, QStringLiteral("--json-progress")} + hostArgs());
    QByteArray out;
    for (int i = 0; i < 600 && out.count("\"type\":\"sample\"") < 3; ++i) {
        p.waitForReadyRead(100);
        out += p.readAllStandardOutput();
    }
    // The OOM killer there: SIGKILL to the remote kwb, which cannot save anything more.
    const QString remote = remoteStudy(QStringLiteral("killed.json"));
    QVERIFY(!remote.isEmpty());
    const qint64 pid = read_all(QFileInfo(remote).dir().filePath(QStringLiteral("kwb.pid"))).trimmed().toLongLong();
    QVERIFY(pid > 0);
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    QVERIFY(p.waitForFinished(120000));
    out += p.readAllStandardOutput();
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("the remote kwb was killed (exit status 137)"), err.constData());
    // Every sample the stream announced is in the study that came back; the stream still ended.
    int announced = 0;
    const auto lines = stream_lines(out);
    for (const auto& l : lines)
        announced += l.value(u"type").toString() == u"sample" && !l.value(u"warmup").toBool();
    QCOMPARE(lines.last().value(u"type").toString(), QStringLiteral("end"));
    QCOMPARE(lines.last().value(u"status").toString(), QStringLiteral("failed"));
    const auto e = load(study).value(u"experiments").toArray().first().toObject();
    int n = 0;
    QVERIFY(positions_complete(e, &n));
    QVERIFY2(
        n >= announced && announced >= 1, qPrintable(QStringLiteral("%1 saved, %2 announced").arg(n).arg(announced)));
    QVERIFY(!QFile::exists(path(QStringLiteral(".killed.json.remote"))));
}

void TestKwbRemote::version_skew_is_named()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    // Another release there: a kwb that says it is 0.0.1.
    const QString old = path(QStringLiteral("old-kwb"));
    write_executable(old,
        QStringLiteral("#!/bin/sh\n[ \"$1\" = --version ] && { echo 'kwb 0.0.1'; exit 0; }\nexec '%1' \"$@\"\n")
            .arg(kKwb)
            .toUtf8());
    const QString study = new_gemm_study(path(QStringLiteral("skew.json")));
    const QByteArray before = read_all(study);
    const auto r = kwb({QStringLiteral("run"), study, QStringLiteral("--host"), QStringLiteral("kwbtest"),
        QStringLiteral("--remote-kwb"), old, QStringLiteral("--remote-dir"), m_remoteDir});
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains("version skew") && r.err.contains("kwb 0.0.1") && r.err.contains("kwb " KWB_VERSION),
        r.err.constData());
    QCOMPARE(read_all(study), before);
    QVERIFY(!QFile::exists(path(QStringLiteral(".skew.json.remote"))));
    // With --json-progress the refusal is the stream's error line naming its remedy, then its end;
    // a remote kwb that does not start at all gets the same remedy (the window offers it: issue 32).
    for (const QString& remote : {old, path(QStringLiteral("no-such-folder/kwb"))}) {
        const auto j = kwb({QStringLiteral("run"), study, QStringLiteral("--json-progress"), QStringLiteral("--host"),
            QStringLiteral("kwbtest"), QStringLiteral("--remote-kwb"), remote, QStringLiteral("--remote-dir"),
            m_remoteDir});
        QCOMPARE(j.exit_code, 2);
        const QList<QByteArray> lines = j.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QJsonObject error = QJsonDocument::fromJson(lines[0]).object();
        QCOMPARE(error[QStringLiteral("type")].toString(), QStringLiteral("error"));
        QCOMPARE(error[QStringLiteral("continues")].toBool(true), false);
        const QJsonObject remedy = error[QStringLiteral("remedy")].toObject();
        QCOMPARE(remedy[QStringLiteral("kind")].toString(), QStringLiteral("remote-install"));
        QCOMPARE(remedy[QStringLiteral("host")].toString(), QStringLiteral("kwbtest"));
        QVERIFY2(error[QStringLiteral("message")].toString().contains(QStringLiteral("kwb remote install kwbtest")),
            lines[0].constData());
        const QJsonObject end = QJsonDocument::fromJson(lines[1]).object();
        QCOMPARE(end[QStringLiteral("type")].toString(), QStringLiteral("end"));
        QCOMPARE(end[QStringLiteral("status")].toString(), QStringLiteral("failed"));
        QCOMPARE(read_all(study), before);
    }
    // devices still answers (a sheet is plain data) and names the skew in its one line.
    const auto d = kwb({QStringLiteral("devices"), QStringLiteral("--json"), QStringLiteral("--host"),
        QStringLiteral("kwbtest"), QStringLiteral("--remote-kwb"), old});
    QCOMPARE(d.exit_code, 0);
    QVERIFY2(d.err.contains("version skew") && d.err.contains("kwb 0.0.1"), d.err.constData());
}

void TestKwbRemote::stream_version_skew_is_named_once()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    // The same release, but a stream of another version (as a later kwb would write it).
    const QString other = path(QStringLiteral("stream-v2-kwb"));
    write_executable(other,
        QStringLiteral(
            "#!/bin/sh\n[ \"$1\" = --version ] && exec '%1' --version\n'%1' \"$@\" | sed 's/\"v\":1,/\"v\":2,/'\n")
            .arg(kKwb)
            .toUtf8());
    const QString study
        = new_gemm_study(path(QStringLiteral("v2.json")), {QStringLiteral("--runs"), QStringLiteral("3")});
    const auto r = kwb({QStringLiteral("run"), study, QStringLiteral("--json-progress"), QStringLiteral("--host"),
        QStringLiteral("kwbtest"), QStringLiteral("--remote-kwb"), other, QStringLiteral("--remote-dir"), m_remoteDir});
    QVERIFY2(r.exit_code == 0, r.err.constData());
    QCOMPARE(r.err.count("version skew"), 1);
    QVERIFY2(r.err.contains("kwb: kwbtest: version skew: the remote progress stream is version 2 and this kwb reads "
                            "version 1"),
        r.err.constData());
    // The lines are still relayed as they came (clients ignore what they do not know).
    QVERIFY(r.out.contains("\"type\":\"end\",\"v\":2"));
}

void TestKwbRemote::devices_over_ssh()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const auto local = kwb({QStringLiteral("devices"), QStringLiteral("--json")});
    const auto remote = kwb({QStringLiteral("devices"), QStringLiteral("--json"), QStringLiteral("--host"),
        QStringLiteral("kwbtest"), QStringLiteral("--remote-kwb"), kKwb});
    QVERIFY2(remote.exit_code == 0, remote.err.constData());
    const auto devices = QJsonDocument::fromJson(remote.out).object().value(u"devices").toArray();
    QVERIFY(!devices.isEmpty());
    // The "remote" host is this one: the same sheet.
    QCOMPARE(devices, QJsonDocument::fromJson(local.out).object().value(u"devices").toArray());
    QVERIFY(!remote.err.contains("version skew"));
}

void TestKwbRemote::unreachable_host_is_one_line()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString study = new_gemm_study(path(QStringLiteral("nohost.json")));
    const auto r
        = kwb({QStringLiteral("run"), study, QStringLiteral("--host"), QStringLiteral("kwb-no-such-host.invalid")});
    QCOMPARE(r.exit_code, 1);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.startsWith("kwb: kwb-no-such-host.invalid: ssh failed: "), r.err.constData());
    QVERIFY(!QFile::exists(path(QStringLiteral(".nohost.json.remote"))));
}

// `kwb remote install`: the bundle lands under the "remote" home, runs there, is recorded, and `kwb
// run --host` / `kwb devices --host` use it without --remote-kwb; a destination it cannot be
// unpacked in fails in one line and leaves the record as it was.
void TestKwbRemote::install_then_run_without_remote_kwb()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString state = path(QStringLiteral("state"));
    qputenv("XDG_STATE_HOME", state.toUtf8());
    const QString dir = path(QStringLiteral("installed"));
    const auto r = kwb({QStringLiteral("remote"), QStringLiteral("install"), QStringLiteral("kwbtest"),
        QStringLiteral("--dir"), dir, QStringLiteral("--json")});
    QVERIFY2(r.exit_code == 0, r.err.constData());
    const auto answer = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(answer.value(u"kwb").toString(), dir + QStringLiteral("/bin/kwb"));
    QCOMPARE(answer.value(u"version").toString(), QStringLiteral(KWB_VERSION));
    for (const char* part : {"bin/kwb", "bin/kwb.bin", "deps"})
        QVERIFY2(QFileInfo::exists(dir + u'/' + QLatin1StringView(part)), part);
    QVERIFY(!QDir(dir + QStringLiteral("/deps")).entryList({QStringLiteral("libfmt.so*")}, QDir::Files).isEmpty());
    QVERIFY(!QFileInfo::exists(dir + QStringLiteral(".new")));
    QProcess installed;
    installed.start(dir + QStringLiteral("/bin/kwb"), {QStringLiteral("--version")});
    QVERIFY(installed.waitForFinished(30000));
    QCOMPARE(installed.readAllStandardOutput().trimmed(), QByteArray("kwb " KWB_VERSION));
    const auto record = load(state + QStringLiteral("/kernel-workbench/remote-hosts.json"));
    QCOMPARE(record.value(u"kwbtest").toObject().value(u"kwb").toString(), dir + QStringLiteral("/bin/kwb"));

    // Used from then on: no --remote-kwb, and ssh ran the installed program.
    const QString study
        = new_gemm_study(path(QStringLiteral("installed.json")), {QStringLiteral("--runs"), QStringLiteral("3")});
    const auto run = kwb({QStringLiteral("run"), study, QStringLiteral("--backend"), QStringLiteral("cpu"),
        QStringLiteral("--host"), QStringLiteral("kwbtest"), QStringLiteral("--remote-dir"), m_remoteDir});
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QCOMPARE(load(study).value(u"experiments").toArray().first().toObject().value(u"status").toString(),
        QStringLiteral("done"));
    QVERIFY(read_all(path(QStringLiteral("sshd/ssh.log"))).contains((dir + QStringLiteral("/bin/kwb")).toUtf8()));
    const auto devices = kwb(
        {QStringLiteral("devices"), QStringLiteral("--json"), QStringLiteral("--host"), QStringLiteral("kwbtest")});
    QVERIFY2(devices.exit_code == 0 && !devices.err.contains("version skew"), devices.err.constData());

    // Nowhere to unpack: one line, exit 1, the record unchanged.
    const QByteArray before = read_all(state + QStringLiteral("/kernel-workbench/remote-hosts.json"));
    const auto bad = kwb({QStringLiteral("remote"), QStringLiteral("install"), QStringLiteral("kwbtest"),
        QStringLiteral("--dir"), QStringLiteral("/proc/kwb-cannot-be-here")});
    QCOMPARE(bad.exit_code, 1);
    QCOMPARE(bad.err.count('\n'), 1);
    QCOMPARE(read_all(state + QStringLiteral("/kernel-workbench/remote-hosts.json")), before);
    qunsetenv("XDG_STATE_HOME");
}

QTEST_GUILESS_MAIN(TestKwbRemote)
#include "tst_kwb_remote.moc"
