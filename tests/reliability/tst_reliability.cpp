// SPDX-License-Identifier: GPL-3.0-or-later
// The fault campaign of issue 15, done for real against the built kwb: two writers on one study,
// signals at random moments (during the load, during a repetition, while the progress reader has
// stalled), outputs that cannot be written (a closed pipe, /dev/full, a full filesystem) and
// hostile files; and of issue 26: command arms that try to outlive their repetition (daemons that
// leave the group, 100 MB of output), signals while an arm runs and under coreutils `timeout`.
// docs/reliability.md lists each case and the test here that checks it.
#include "../app/kwb_process.h"
#include "../process_alive.h"
#include "spawn.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace kwbtest;

namespace {

int judged_and_warmup_samples(const QString& study)
{
    const auto e = load(study)[QStringLiteral("experiments")].toArray().first().toObject();
    return e[QStringLiteral("samples")].toArray().size();
}

// Judged positions are distinct: two writers interleaving their saves would repeat or skip them.
bool positions_distinct(const QString& study)
{
    QSet<int> seen;
    const auto e = load(study)[QStringLiteral("experiments")].toArray().first().toObject();
    for (const auto& v : e[QStringLiteral("samples")].toArray()) {
        const auto s = v.toObject();
        if (s[QStringLiteral("warmup")].toBool())
            continue;
        const int p = s[QStringLiteral("position")].toInt();
        if (seen.contains(p))
            return false;
        seen.insert(p);
    }
    return true;
}

QString err_text(const QString& path)
{
    return QString::fromUtf8(read_all(path));
}

int open_write(const QString& path)
{
    return ::open(path.toLocal8Bit().constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

void write_samples(const QString& dir)
{
    write_all(dir + QStringLiteral("/a.txt"), "10\n10.2\n9.9\n10.1\n10\n");
    write_all(dir + QStringLiteral("/b.txt"), "8\n8.1\n7.9\n8.05\n8\n");
}

// A command A/B read by the console adapter (`Mean TTFT (ms): N`), 2 runs per arm, no warm-up:
// each case below is a handful of repetitions. The cases about the timeout give --timeout 3; those
// about signals one that cannot come first on a slow machine.
QString new_command_study(const QString& path, const QString& baseline, const QString& treatment,
    const QString& timeout = QStringLiteral("3"))
{
    const auto r = kwb({QStringLiteral("new"), QStringLiteral("--baseline-cmd"), baseline,
        QStringLiteral("--treatment-cmd"), treatment, QStringLiteral("--adapter"), QStringLiteral("console"),
        QStringLiteral("--metric"), QStringLiteral("ttft_ms"), QStringLiteral("--runs"), QStringLiteral("2"),
        QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("--timeout"), timeout, QStringLiteral("--out"),
        path, QStringLiteral("--force")});
    if (r.exit_code != 0)
        qWarning("kwb new failed: %s", r.err.constData());
    return path;
}

// Gives every arm a per-repetition teardown of `command`: it runs after a stop too, so a stop
// then takes that long, and a second signal lands inside it rather than after kwb exited.
void add_teardown_each(const QString& study, const QString& command)
{
    QJsonObject doc = load(study);
    QJsonArray experiments = doc[QStringLiteral("experiments")].toArray();
    QJsonObject e = experiments.first().toObject();
    QJsonArray arms = e[QStringLiteral("arms")].toArray();
    for (int i = 0; i < arms.size(); ++i) {
        QJsonObject arm = arms[i].toObject();
        QJsonObject c = arm[QStringLiteral("command")].toObject();
        c[QStringLiteral("teardown_each")] = command;
        arm[QStringLiteral("command")] = c;
        arms[i] = arm;
    }
    e[QStringLiteral("arms")] = arms;
    experiments[0] = e;
    doc[QStringLiteral("experiments")] = experiments;
    write_all(study, QJsonDocument(doc).toJson());
}

// The type of what a path names (links followed): S_IFCHR, S_IFIFO, S_IFDIR, S_IFREG; 0 when absent.
mode_t kind_of(const QString& path)
{
    struct stat st = {};
    return ::stat(path.toLocal8Bit().constData(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// A path in `dir` that exists and is not a regular file: a character device (a copy of /dev/null's
// 1:3 made with mknod; /dev/null itself only where mknod is refused), a FIFO or a directory.
QString make_node(const QString& dir, const QString& kind)
{
    const QString path = dir + QStringLiteral("/node-") + kind;
    const QByteArray p = path.toLocal8Bit();
    if (kind == QStringLiteral("device"))
        return ::mknod(p.constData(), S_IFCHR | 0666, ::makedev(1, 3)) == 0 ? path : QStringLiteral("/dev/null");
    if (kind == QStringLiteral("fifo"))
        return ::mkfifo(p.constData(), 0644) == 0 ? path : QString();
    return QDir().mkpath(path) ? path : QString();
}

// Every path under `root` outside `inside` (which a run may change): what a path escape would add to.
QStringList files_outside(const QString& root, const QString& inside)
{
    QStringList found;
    QDirIterator it(
        root, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (!path.startsWith(inside + QLatin1Char('/')) && path != inside)
            found << path;
    }
    found.sort();
    return found;
}

// A study of 200,000 samples: loading it takes long enough to signal a command while it loads.
QByteArray write_big_study(const QString& study)
{
    QJsonObject doc = load(study);
    QJsonArray experiments = doc[QStringLiteral("experiments")].toArray();
    QJsonObject e = experiments.first().toObject();
    QJsonArray samples;
    const int n = 200000;
    for (int i = 0; i < n; ++i)
        samples.append(
            QJsonObject {{QStringLiteral("arm"), i % 2 ? QStringLiteral("treatment") : QStringLiteral("baseline")},
                {QStringLiteral("rep"), i / 2}, {QStringLiteral("position"), i},
                {QStringLiteral("metrics"), QJsonObject {{QStringLiteral("time_ms"), 1.0 + i % 7}}}});
    e[QStringLiteral("samples")] = samples;
    QJsonObject plan = e[QStringLiteral("plan")].toObject();
    plan[QStringLiteral("runs_per_arm")] = n / 2 + 10;
    e[QStringLiteral("plan")] = plan;
    experiments[0] = e;
    doc[QStringLiteral("experiments")] = experiments;
    const QByteArray bytes = QJsonDocument(doc).toJson();
    write_all(study, bytes);
    return bytes;
}

// The study with its first experiment's id replaced.
void set_first_id(const QString& study, const QString& id)
{
    QJsonObject doc = load(study);
    QJsonArray experiments = doc[QStringLiteral("experiments")].toArray();
    QJsonObject e = experiments.first().toObject();
    e[QStringLiteral("id")] = id;
    experiments[0] = e;
    doc[QStringLiteral("experiments")] = experiments;
    write_all(study, QJsonDocument(doc).toJson());
}

QJsonArray samples_of(const QString& study)
{
    return load(study)[QStringLiteral("experiments")].toArray().first().toObject()[QStringLiteral("samples")].toArray();
}

QString status_of(const QString& study)
{
    return load(study)[QStringLiteral("experiments")].toArray().first().toObject()[QStringLiteral("status")].toString();
}

QByteArray last_line(const QByteArray& text)
{
    const QList<QByteArray> lines = text.trimmed().split('\n');
    return lines.isEmpty() ? QByteArray() : lines.last();
}

bool wait_for_file(const QString& path, int limit_ms = 120000)
{
    for (int i = 0; i < limit_ms / 10 && !QFile::exists(path); ++i)
        QThread::msleep(10);
    return QFile::exists(path);
}

// A command whose first two runs (one per arm) report at once and whose third writes its pid to
// DIR/sleeper, touches DIR/started and sleeps 60 s.
QString slow_third_run(const QString& dir, int value)
{
    return QStringLiteral("n=$(cat '%1/count' 2>/dev/null || echo 0); echo $((n+1)) > '%1/count'; "
                          "if [ $n -ge 2 ]; then echo $$ > '%1/sleeper'; touch '%1/started'; exec sleep 60; fi; "
                          "echo 'Mean TTFT (ms): %2'")
        .arg(dir)
        .arg(value);
}

} // namespace

class TestReliability : public QObject {
    Q_OBJECT

private slots:
    // Two terminals on one study: exactly one runs it, the other exits 2 naming the holder, and
    // every announced sample is in the file. Repeated, so the start order varies.
    void concurrent_runs_lose_no_sample()
    {
        QTemporaryDir dir;
        for (int round = 0; round < 4; ++round) {
            const QString study = new_gemm_study(
                dir.filePath(QStringLiteral("s%1.json").arg(round)), {QStringLiteral("--runs"), QStringLiteral("20")});
            QProcess a, b;
            a.start(kKwb, {QStringLiteral("run"), study});
            b.start(kKwb, {QStringLiteral("run"), study});
            QVERIFY(a.waitForFinished(300000) && b.waitForFinished(300000));
            const QList<int> codes = {a.exitCode(), b.exitCode()};
            QVERIFY2(codes.count(0) >= 1, qPrintable(QStringLiteral("exit codes %1 %2").arg(codes[0]).arg(codes[1])));
            for (QProcess* p : {&a, &b})
                if (p->exitCode() == 2) {
                    const QString err = QString::fromUtf8(p->readAllStandardError());
                    QVERIFY2(err.contains(QStringLiteral("is being run by PID")), qPrintable(err));
                    QProcess* other = p == &a ? &b : &a;
                    QVERIFY2(
                        err.contains(QString::number(other->processId())) || other->processId() == 0, qPrintable(err));
                }
            QCOMPARE(judged_and_warmup_samples(study), 2 * 20 + 2 * 1); // 20 runs and 1 warm-up per arm
            QVERIFY(positions_distinct(study));
            QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".s%1.json.lock").arg(round))));
        }
    }

    // SIGINT or SIGTERM at a random moment: always exit 130 (or 0 when the run had finished),
    // never a death by signal, and the study still loads with distinct positions.
    void signals_at_random_moments()
    {
        QTemporaryDir dir;
        QRandomGenerator rng(15); // seeded: a failure can be replayed
        for (int round = 0; round < 8; ++round) {
            const QString study = new_gemm_study(
                dir.filePath(QStringLiteral("r%1.json").arg(round)), {QStringLiteral("--runs"), QStringLiteral("40")});
            const int devnull = open_write(QStringLiteral("/dev/null"));
            Child c = spawn(kKwb, {QStringLiteral("run"), study}, devnull, devnull);
            ::close(devnull);
            QVERIFY(c.pid > 0);
            QVERIFY(wait_for_handler(c, SIGTERM));
            QThread::msleep(rng.bounded(600));
            ::kill(c.pid, round % 2 ? SIGTERM : SIGINT);
            QVERIFY(wait_for(c));
            QVERIFY2(c.exit_code() == 130 || c.exit_code() == 0,
                qPrintable(QStringLiteral("round %1: status %2").arg(round).arg(c.status)));
            QVERIFY(!load(study).isEmpty());
            QVERIFY(positions_distinct(study));
        }
    }

    // A signal while a big study loads: exit 130 at once, the file untouched.
    void signal_during_load()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(QStringLiteral("big.json")));
        const QByteArray before = write_big_study(study);

        const QString err = dir.filePath(QStringLiteral("err.txt"));
        const int err_fd = open_write(err);
        const int devnull = open_write(QStringLiteral("/dev/null"));
        Child c = spawn(kKwb, {QStringLiteral("run"), study}, devnull, err_fd);
        ::close(devnull);
        ::close(err_fd);
        QVERIFY(wait_for_handler(c, SIGTERM));
        QThread::msleep(100); // the load of a file this size takes seconds
        ::kill(c.pid, SIGTERM);
        QVERIFY(wait_for(c));
        QCOMPARE(c.exit_code(), 130);
        QCOMPARE(read_all(study), before);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".big.json.lock"))));
    }

    // A GUI that stopped reading: the progress pipe is full and kwb is blocked writing to it. A
    // SIGTERM still ends the run with 130, and the samples saved so far are in the file.
    void signal_while_progress_reader_stalls()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(
            dir.filePath(QStringLiteral("stall.json")), {QStringLiteral("--runs"), QStringLiteral("100000")});
        int fds[2];
        QCOMPARE(::pipe2(fds, O_CLOEXEC), 0);
        const int capacity = ::fcntl(fds[1], F_SETPIPE_SZ, 4096);
        QVERIFY(capacity > 0);
        const int devnull = open_write(QStringLiteral("/dev/null"));
        Child c = spawn(kKwb, {QStringLiteral("run"), QStringLiteral("--json-progress"), study}, fds[1], devnull);
        ::close(devnull);
        ::close(fds[1]);
        // Read until two samples were announced (so some are saved), then stop reading, like a
        // GUI that hangs, and wait until the pipe is full.
        QByteArray seen;
        char buf[4096];
        while (seen.count("\"type\":\"sample\"") < 2) {
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            QVERIFY2(n > 0, "the progress stream ended early");
            seen.append(buf, static_cast<int>(n));
        }
        for (int i = 0; i < 60000 && pending_bytes(fds[0]) < capacity - 512; i += 10)
            QThread::msleep(10);
        QVERIFY2(pending_bytes(fds[0]) >= capacity - 512, "the progress pipe never filled");
        QThread::msleep(300); // kwb is now blocked on the stalled pipe
        ::kill(c.pid, SIGTERM);
        QVERIFY(wait_for(c));
        ::close(fds[0]);
        QCOMPARE(c.exit_code(), 130);
        QVERIFY(judged_and_warmup_samples(study) > 0);
        QVERIFY(positions_distinct(study));
    }

    // kwb run keeps its documented stop on a closed progress pipe.
    void run_on_closed_progress_pipe_is_130()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(QStringLiteral("c.json")));
        int fds[2];
        QCOMPARE(::pipe2(fds, O_CLOEXEC), 0);
        ::close(fds[0]);
        const int devnull = open_write(QStringLiteral("/dev/null"));
        Child c = spawn(kKwb, {QStringLiteral("run"), QStringLiteral("--json-progress"), study}, fds[1], devnull);
        ::close(fds[1]);
        ::close(devnull);
        QVERIFY(wait_for(c));
        QCOMPARE(c.exit_code(), 130);
    }

    // Commands that print results: a full disk or a closed pipe is exit 1 with a message.
    void printing_commands_check_stdout_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("target");
        const QStringList verdict = {QStringLiteral("verdict"), QStringLiteral("--baseline"), QStringLiteral("@/a.txt"),
            QStringLiteral("--treatment"), QStringLiteral("@/b.txt"), QStringLiteral("--json")};
        QTest::addRow("verdict to /dev/full") << verdict << QStringLiteral("full");
        QTest::addRow("verdict to a closed pipe") << verdict << QStringLiteral("pipe");
        QTest::addRow("verdict text to /dev/full") << verdict.mid(0, 5) << QStringLiteral("full");
        QTest::addRow("workloads to /dev/full") << QStringList {QStringLiteral("workloads")} << QStringLiteral("full");
        QTest::addRow("workloads to a closed pipe")
            << QStringList {QStringLiteral("workloads"), QStringLiteral("--json")} << QStringLiteral("pipe");
        QTest::addRow("devices to /dev/full") << QStringList {QStringLiteral("devices")} << QStringLiteral("full");
    }
    void printing_commands_check_stdout()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, target);
        QTemporaryDir dir;
        write_samples(dir.path());
        for (auto& a : args)
            a.replace(QStringLiteral("@"), dir.path());
        int out = -1;
        if (target == QStringLiteral("full")) {
            out = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
            if (out < 0)
                QSKIP("no /dev/full here");
        } else {
            int fds[2];
            QCOMPARE(::pipe2(fds, O_CLOEXEC), 0);
            ::close(fds[0]);
            out = fds[1];
        }
        const QString err = dir.filePath(QStringLiteral("err.txt"));
        const int err_fd = open_write(err);
        Child c = spawn(kKwb, args, out, err_fd);
        ::close(out);
        ::close(err_fd);
        QVERIFY(wait_for(c));
        QCOMPARE(c.exit_code(), 1);
        QVERIFY2(err_text(err).contains(QStringLiteral("kwb: cannot write")), qPrintable(err_text(err)));
    }

    // A killed save leaves ".NAME.PID.XXXXXX"; the next run removes those whose process is gone
    // and keeps one a live process owns.
    void leftovers_of_a_killed_save_are_removed()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(QStringLiteral("t.json")));
        pid_t dead = 0;
        for (pid_t p = 4000000; p > 1000; p -= 7919)
            if (::kill(p, 0) != 0 && errno == ESRCH) {
                dead = p;
                break;
            }
        QVERIFY(dead > 0);
        const QString stale = dir.filePath(QStringLiteral(".t.json.%1.aB3dE9").arg(dead));
        const QString live = dir.filePath(QStringLiteral(".t.json.%1.zZ9yY8").arg(::getpid()));
        write_all(stale, "{\"half\": ");
        write_all(live, "{\"in flight\": ");
        const auto r = kwb({QStringLiteral("run"), study});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(!QFile::exists(stale));
        QVERIFY(QFile::exists(live));
        QVERIFY2(r.err.contains("removed"), r.err.constData());
    }

    // Hostile inputs: each is one line naming the file (and field), exit 2, nothing written.
    void hostile_inputs_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::addRow("sample file from /dev/zero")
            << QStringLiteral("zero-samples") << QStringLiteral("larger than 256 MiB");
        QTest::addRow("study from /dev/zero (report: kwb run refuses a device outright)")
            << QStringLiteral("zero-study") << QStringLiteral("larger than the 1024 MiB limit");
        QTest::addRow("plan number beyond double range") << QStringLiteral("1e400") << QStringLiteral("warmup_runs");
        QTest::addRow("warm-up rounds of INT_MAX") << QStringLiteral("int-max") << QStringLiteral("warmup_runs");
        QTest::addRow("100000 split halves") << QStringLiteral("aa") << QStringLiteral("split_halves");
        QTest::addRow("hex first line") << QStringLiteral("hex") << QStringLiteral(":1: \"0x10\" is neither");
        QTest::addRow("huge finite sample") << QStringLiteral("huge") << QStringLiteral(":2: 1e300 is too large");
        QTest::addRow("sample that underflows")
            << QStringLiteral("tiny") << QStringLiteral(":2: \"1e-400\" is out of range: too small for a double");
    }
    void hostile_inputs()
    {
        QFETCH(QString, kind);
        QFETCH(QString, message);
        QTemporaryDir dir;
        write_samples(dir.path());
        const QString a = dir.filePath(QStringLiteral("a.txt"));
        const QString b = dir.filePath(QStringLiteral("b.txt"));
        Result r;
        const auto edited_study = [&](const QByteArray& field, const QByteArray& value) {
            const QString study = new_gemm_study(dir.filePath(QStringLiteral("h.json")));
            QString text = QString::fromUtf8(read_all(study));
            text.replace(QRegularExpression(QStringLiteral("\"%1\": [0-9.eE+-]+").arg(QString::fromLatin1(field))),
                QStringLiteral("\"%1\": %2").arg(QString::fromLatin1(field), QString::fromLatin1(value)));
            write_all(study, text.toUtf8());
            return study;
        };
        if (kind == QStringLiteral("zero-samples")) {
            r = kwb({QStringLiteral("verdict"), QStringLiteral("--baseline"), QStringLiteral("/dev/zero"),
                QStringLiteral("--treatment"), b});
        } else if (kind == QStringLiteral("zero-study")) {
            r = kwb({QStringLiteral("report"), QStringLiteral("/dev/zero"), QStringLiteral("--format"),
                QStringLiteral("json")});
        } else if (kind == QStringLiteral("1e400")) {
            r = kwb({QStringLiteral("run"), edited_study("warmup_runs", "1e400")});
        } else if (kind == QStringLiteral("int-max")) {
            r = kwb({QStringLiteral("run"), edited_study("warmup_runs", "2147483647")});
        } else if (kind == QStringLiteral("aa")) {
            r = kwb({QStringLiteral("run"), edited_study("split_halves", "100000")});
        } else if (kind == QStringLiteral("hex")) {
            write_all(a, "0x10\n5\n6\n");
            r = kwb({QStringLiteral("verdict"), QStringLiteral("--baseline"), a, QStringLiteral("--treatment"), b});
        } else if (kind == QStringLiteral("tiny")) {
            write_all(a, "1\n1e-400\n6\n");
            r = kwb({QStringLiteral("verdict"), QStringLiteral("--baseline"), a, QStringLiteral("--treatment"), b});
        } else if (kind == QStringLiteral("huge")) {
            write_all(a, "1\n1e300\n6\n");
            r = kwb({QStringLiteral("verdict"), QStringLiteral("--baseline"), a, QStringLiteral("--treatment"), b});
        }
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
    }

    // Issue 26 (3): a command arm whose child calls setsid and keeps stdout open held one
    // repetition for 300 s under --timeout 3, and survived it. The baseline's leader runs past the
    // timeout beside such a daemon; the treatment's exits at once, its daemon holding stdout. Each
    // repetition ends within a few seconds of its timeout (the treatment's at once), and none of
    // the daemons survives.
    void daemons_do_not_outlive_their_repetition()
    {
        QTemporaryDir dir;
        const QString daemon
            = QStringLiteral("d=$(mktemp -p '%1' daemon.XXXXXX); /usr/bin/setsid /bin/sh -c "
                             "\"echo \\$\\$ > $d; exec sleep 300\" & while [ ! -s \"$d\" ]; do sleep 0.05; done")
                  .arg(dir.path());
        const QString study = new_command_study(dir.filePath(QStringLiteral("d.json")),
            daemon + QStringLiteral("; sleep 300"), daemon + QStringLiteral("; echo 'Mean TTFT (ms): 5'"));
        QElapsedTimer took;
        took.start();
        const auto r = kwb({QStringLiteral("run"), study});
        QVERIFY2(r.exit_code == 0 || r.exit_code == 1, r.err.constData());
        QVERIFY2(took.elapsed() < 120000, "four repetitions of --timeout 3 took minutes"); // not 300 s each
        const QJsonArray samples = samples_of(study);
        QCOMPARE(samples.size(), 4);
        for (const auto& v : samples) {
            const auto x = v.toObject();
            QVERIFY2(x[QStringLiteral("duration_s")].toDouble() < 20, QJsonDocument(x).toJson().constData());
            if (x[QStringLiteral("arm")].toString() == QStringLiteral("baseline"))
                QVERIFY2(x[QStringLiteral("note")].toString().contains(QStringLiteral("timed out after")),
                    qPrintable(x[QStringLiteral("note")].toString()));
            else
                QVERIFY2(!x[QStringLiteral("failed")].toBool(), qPrintable(x[QStringLiteral("note")].toString()));
        }
        const QStringList pidfiles = QDir(dir.path()).entryList({QStringLiteral("daemon.*")}, QDir::Files);
        QCOMPARE(pidfiles.size(), 4);
        for (const auto& f : pidfiles) {
            const int pid = QString::fromUtf8(read_all(dir.filePath(f))).trimmed().toInt();
            QVERIFY(pid > 0);
            QTRY_VERIFY2(!process_alive(pid), qPrintable(QStringLiteral("daemon %1 survived").arg(pid)));
        }
    }

    // Issue 26 (3): 100 MB of output, or a JSON array of 20 million numbers, took about 40 s per
    // repetition under --timeout 3 and up to 1.5 GB. Now each repetition ends at the output cap
    // (64 MiB) or the timeout, whichever comes first, with that reason in its note.
    void huge_output_ends_at_the_cap_or_the_timeout()
    {
        QTemporaryDir dir;
        const QString study
            = new_command_study(dir.filePath(QStringLiteral("h.json")), QStringLiteral("head -c 100000000 /dev/zero"),
                QStringLiteral(
                    "awk 'BEGIN { printf \"[\"; for (i = 0; i < 20000000; i++) printf \"%d,\", i; print \"0]\" }'"));
        QElapsedTimer took;
        took.start();
        const auto r = kwb({QStringLiteral("run"), study});
        QVERIFY2(r.exit_code == 0 || r.exit_code == 1, r.err.constData());
        QVERIFY2(took.elapsed() < 120000, "four repetitions of --timeout 3 took minutes");
        const QJsonArray samples = samples_of(study);
        QCOMPARE(samples.size(), 4);
        for (const auto& v : samples) {
            const auto x = v.toObject();
            const QString note = x[QStringLiteral("note")].toString();
            QVERIFY(x[QStringLiteral("failed")].toBool());
            QVERIFY2(x[QStringLiteral("duration_s")].toDouble() < 20, qPrintable(note));
            QVERIFY2(note.contains(QStringLiteral("the cap on captured output"))
                    || note.contains(QStringLiteral("timed out")),
                qPrintable(note));
        }
    }

    // Issue 26 (3, 4): SIGTERM while an arm sleeps 60 s ends kwb within seconds (the arm is ended,
    // not waited for): exit 130, the study `stopped` with the two repetitions before it and not the
    // one in flight, no lock file, the stream ended. Two signals (what coreutils timeout sends)
    // change nothing: the second lands in the stop (the arms' 1 s teardown, which still runs) and
    // does not end kwb; a third exits at once, and still leaves no lock and ends the stream.
    void signal_while_an_arm_sleeps_data()
    {
        QTest::addColumn<int>("count");
        QTest::addRow("one SIGTERM") << 1;
        QTest::addRow("two SIGTERMs") << 2;
        QTest::addRow("three SIGTERMs") << 3;
    }
    void signal_while_an_arm_sleeps()
    {
        QFETCH(int, count);
        QTemporaryDir dir;
        const QString study = new_command_study(dir.filePath(QStringLiteral("s.json")), slow_third_run(dir.path(), 5),
            slow_third_run(dir.path(), 6), QStringLiteral("600"));
        add_teardown_each(study, QStringLiteral("sleep 1"));
        const QString out = dir.filePath(QStringLiteral("stream.jsonl"));
        const QString err = dir.filePath(QStringLiteral("err.txt"));
        const int out_fd = open_write(out);
        const int err_fd = open_write(err);
        Child c = spawn(kKwb, {QStringLiteral("run"), QStringLiteral("--json-progress"), study}, out_fd, err_fd);
        ::close(out_fd);
        ::close(err_fd);
        QVERIFY(wait_for_file(dir.filePath(QStringLiteral("started"))));
        QElapsedTimer took;
        took.start();
        for (int i = 0; i < count; ++i) {
            ::kill(c.pid, SIGTERM);
            QThread::msleep(20);
        }
        QVERIFY(wait_for(c));
        QVERIFY2(took.elapsed() < 20000, qPrintable(QStringLiteral("%1 ms after the signal").arg(took.elapsed())));
        QCOMPARE(c.exit_code(), 130);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".s.json.lock"))));
        QVERIFY2(last_line(read_all(out)).startsWith("{\"type\":\"end\""), read_all(out).right(300).constData());
        const int sleeper = QString::fromUtf8(read_all(dir.filePath(QStringLiteral("sleeper")))).trimmed().toInt();
        QTRY_VERIFY(!process_alive(sleeper));
        QVERIFY(!load(study).isEmpty());
        if (count < 3) {
            QCOMPARE(status_of(study), QStringLiteral("stopped"));
            QCOMPARE(samples_of(study).size(), 2);
            QVERIFY2(last_line(read_all(out)).contains("\"status\":\"stopped\""), read_all(out).right(300).constData());
        }
    }

    // Issue 26 (4): `timeout 0.6 kwb run ...` (SIGTERM to kwb and to its process group, so two)
    // exited 143 with the study `running`, no `end` event and the lock file left, 5 of 5. The real
    // coreutils timeout, on a command arm that sleeps (kwb is inside a repetition) and on a gemm
    // study (anywhere: loading, a repetition, a save, the judging).
    void under_coreutils_timeout_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("after");
        QTest::addColumn<bool>("preserve");
        QTest::addRow("command arm, 0.6 s") << QStringLiteral("command") << QStringLiteral("0.6") << false;
        QTest::addRow("command arm, 0.6 s, --preserve-status")
            << QStringLiteral("command") << QStringLiteral("0.6") << true;
        QTest::addRow("gemm, 0.6 s") << QStringLiteral("gemm") << QStringLiteral("0.6") << false;
        QTest::addRow("gemm, 0.9 s, --preserve-status") << QStringLiteral("gemm") << QStringLiteral("0.9") << true;
        QTest::addRow("gemm, 1.5 s, --preserve-status") << QStringLiteral("gemm") << QStringLiteral("1.5") << true;
    }
    void under_coreutils_timeout()
    {
        QFETCH(QString, kind);
        QFETCH(QString, after);
        QFETCH(bool, preserve);
        if (QStandardPaths::findExecutable(QStringLiteral("timeout")).isEmpty())
            QSKIP("no coreutils timeout here");
        QTemporaryDir dir;
        const QString study = kind == QStringLiteral("command")
            ? new_command_study(dir.filePath(QStringLiteral("t.json")),
                QStringLiteral("sleep 30; echo 'Mean TTFT (ms): 5'"),
                QStringLiteral("sleep 30; echo 'Mean TTFT (ms): 6'"), QStringLiteral("600"))
            : new_gemm_study(dir.filePath(QStringLiteral("t.json")), {QStringLiteral("--runs"), QStringLiteral("400")});
        if (kind == QStringLiteral("command"))
            add_teardown_each(study, QStringLiteral("sleep 1"));
        QStringList args;
        if (preserve)
            args << QStringLiteral("--preserve-status");
        args << after << kKwb << QStringLiteral("run") << QStringLiteral("--json-progress") << study;
        QProcess p;
        p.start(QStringLiteral("timeout"), args);
        QVERIFY(p.waitForFinished(120000));
        const QByteArray stream = p.readAllStandardOutput();
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        if (preserve)
            QVERIFY2(p.exitCode() == 130 || p.exitCode() == 0,
                qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(QString::fromUtf8(err))));
        else
            QVERIFY2(p.exitCode() == 124 || p.exitCode() == 0,
                qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(QString::fromUtf8(err))));
        const QJsonObject doc = load(study);
        QVERIFY2(!doc.isEmpty(), "the study does not load");
        QVERIFY2(status_of(study) != QStringLiteral("running"), err.constData());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".t.json.lock"))));
        QVERIFY2(last_line(stream).startsWith("{\"type\":\"end\""), stream.right(300).constData());
        QVERIFY(positions_distinct(study));
    }

    // An output path that is a device, a FIFO or a directory: refused with one line and exit 2
    // before any work, and left as it was (issue 26: `--out /dev/null` as root replaced the device).
    // A FIFO opened for writing would wait for a reader: the time limit fails the test then.
    void outputs_that_are_not_regular_files_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("kind");
        for (const char* command : {"report-md", "report-json", "trace", "new-force"})
            for (const char* kind : {"device", "fifo", "directory"})
                QTest::addRow("%s to a %s", command, kind) << QString::fromLatin1(command) << QString::fromLatin1(kind);
    }
    void outputs_that_are_not_regular_files()
    {
        QFETCH(QString, command);
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(QStringLiteral("s.json")));
        const QString node = make_node(dir.path(), kind);
        QVERIFY(!node.isEmpty());
        const mode_t before = kind_of(node);
        QVERIFY(before != 0 && before != S_IFREG);
        QStringList args;
        if (command == QStringLiteral("report-md") || command == QStringLiteral("report-json"))
            args = {QStringLiteral("report"), study, QStringLiteral("--format"), command.mid(7),
                QStringLiteral("--out"), node};
        else if (command == QStringLiteral("trace"))
            args = {QStringLiteral("trace"), study, QStringLiteral("--out"), node};
        else
            args = {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"),
                QStringLiteral("--vary"), QStringLiteral("block=32,128"), QStringLiteral("--out"), node,
                QStringLiteral("--force")};
        const auto r = kwb(args, 60000);
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains((node + QStringLiteral(": is ")).toUtf8()) && r.err.contains("not a regular file"),
            r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QCOMPARE(kind_of(node), before);
        QVERIFY(!r.err.contains("wrote"));
    }

    // `-` is stdout for the commands whose output is a file; nothing named "-" is made.
    void dash_is_stdout()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(QStringLiteral("s.json")));
        for (const QStringList& args : {QStringList {QStringLiteral("report"), study, QStringLiteral("--format"),
                                            QStringLiteral("json"), QStringLiteral("--out"), QStringLiteral("-")},
                 QStringList {QStringLiteral("trace"), study, QStringLiteral("--out"), QStringLiteral("-")}}) {
            QProcess p;
            p.setWorkingDirectory(dir.path());
            p.start(kKwb, args);
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 0);
            QVERIFY(QJsonDocument::fromJson(p.readAllStandardOutput()).isObject());
            QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("-"))));
        }
    }

    // A study that is not a regular file: one line naming it, exit 2, never a wait on a FIFO, the
    // node left as it was and no lock file beside it.
    void studies_that_are_not_regular_files_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("kind");
        QTest::addRow("run on a FIFO") << QStringLiteral("run") << QStringLiteral("fifo");
        QTest::addRow("run --devices on a FIFO") << QStringLiteral("devices") << QStringLiteral("fifo");
        QTest::addRow("run on a device") << QStringLiteral("run") << QStringLiteral("device");
        QTest::addRow("run on a directory") << QStringLiteral("run") << QStringLiteral("directory");
        QTest::addRow("collect on a FIFO") << QStringLiteral("collect") << QStringLiteral("fifo");
        QTest::addRow("report on a FIFO") << QStringLiteral("report") << QStringLiteral("fifo");
        QTest::addRow("report on a directory") << QStringLiteral("report") << QStringLiteral("directory");
        QTest::addRow("trace on a directory") << QStringLiteral("trace") << QStringLiteral("directory");
    }
    void studies_that_are_not_regular_files()
    {
        QFETCH(QString, command);
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const QString node = make_node(dir.path(), kind);
        QVERIFY(!node.isEmpty());
        const mode_t before = kind_of(node);
        QStringList args;
        if (command == QStringLiteral("run") || command == QStringLiteral("collect"))
            args = {command, node};
        else if (command == QStringLiteral("devices"))
            args = {QStringLiteral("run"), node, QStringLiteral("--devices"), QStringLiteral("0,1")};
        else if (command == QStringLiteral("report"))
            args = {QStringLiteral("report"), node, QStringLiteral("--format"), QStringLiteral("json")};
        else
            args = {QStringLiteral("trace"), node, QStringLiteral("--out"), dir.filePath(QStringLiteral("t.json"))};
        const auto r = kwb(args, 60000);
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.startsWith(QString(QStringLiteral("kwb: ") + node + QStringLiteral(": ")).toUtf8()),
            r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(!r.err.contains("basic_filebuf") && !r.err.contains("ios_base"), r.err.constData());
        QCOMPARE(kind_of(node), before);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".node-%1.lock").arg(kind))));
    }

    // Ids that would put a part file outside the study's folder ("../", an absolute path), in a
    // loaded study (kwb run, kwb run --devices) or given as --cell: exit 2 with one line naming the
    // field or the option, and no file appears anywhere outside the study's folder.
    void ids_that_leave_the_folder_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("message");
        QTest::addRow("loaded ../, run") << QStringLiteral("run") << QStringLiteral("../../trav")
                                         << QStringLiteral("field 'experiments[0].id': \"../../trav\" contains '/'");
        QTest::addRow("loaded ../, --devices")
            << QStringLiteral("devices") << QStringLiteral("../../trav")
            << QStringLiteral("field 'experiments[0].id': \"../../trav\" contains '/'");
        QTest::addRow("loaded absolute, run") << QStringLiteral("run") << QStringLiteral("@/abs/trav")
                                              << QStringLiteral("field 'experiments[0].id': \"/");
        QTest::addRow("loaded absolute, --devices") << QStringLiteral("devices") << QStringLiteral("@/abs/trav")
                                                    << QStringLiteral("field 'experiments[0].id': \"/");
        QTest::addRow("--cell ../") << QStringLiteral("cell") << QStringLiteral("../../../trav")
                                    << QStringLiteral("--cell: the experiment id \"../../../trav\" contains '/'");
        QTest::addRow("--cell absolute") << QStringLiteral("cell") << QStringLiteral("@/abs/trav")
                                         << QStringLiteral("--cell: the experiment id \"/");
    }
    void ids_that_leave_the_folder()
    {
        QFETCH(QString, how);
        QFETCH(QString, id);
        QFETCH(QString, message);
        QTemporaryDir root;
        id.replace(QStringLiteral("@"), root.path());
        const QString folder = root.filePath(QStringLiteral("a/b/c"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QDir().mkpath(root.filePath(QStringLiteral("abs")))); // so an escape there could succeed
        const QString study = new_gemm_study(folder + QStringLiteral("/s.json"));
        if (how != QStringLiteral("cell"))
            set_first_id(study, id);
        const QByteArray study_before = read_all(study);
        const QStringList outside = files_outside(root.path(), folder);
        QStringList args = {QStringLiteral("run"), study};
        if (how == QStringLiteral("devices"))
            args << QStringLiteral("--devices") << QStringLiteral("0,1");
        if (how == QStringLiteral("cell"))
            args << QStringLiteral("--cell") << id;
        const auto r = kwb(args, 120000);
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QCOMPARE(files_outside(root.path(), folder), outside);
        QCOMPARE(read_all(study), study_before);
    }

    // One writer per file: two runs through two hard links of one study, one refused with the
    // usual line naming the other. Repeated, so either may start first.
    void hard_links_have_one_writer()
    {
        QTemporaryDir dir;
        for (int round = 0; round < 3; ++round) {
            const QString study = new_gemm_study(
                dir.filePath(QStringLiteral("s%1.json").arg(round)), {QStringLiteral("--runs"), QStringLiteral("20")});
            const QString link = dir.filePath(QStringLiteral("t%1.json").arg(round));
            QCOMPARE(::link(study.toLocal8Bit().constData(), link.toLocal8Bit().constData()), 0);
            QProcess a, b;
            a.start(kKwb, {QStringLiteral("run"), study});
            b.start(kKwb, {QStringLiteral("run"), link});
            QVERIFY(a.waitForStarted() && b.waitForStarted());
            const qint64 pid_a = a.processId(), pid_b = b.processId(); // 0 once they have finished
            QVERIFY(a.waitForFinished(300000) && b.waitForFinished(300000));
            const QList<int> codes = {a.exitCode(), b.exitCode()};
            QVERIFY2(codes.count(0) == 1 && codes.count(2) == 1,
                qPrintable(QStringLiteral("exit codes %1 %2").arg(codes[0]).arg(codes[1])));
            QProcess* refused = a.exitCode() == 2 ? &a : &b;
            QProcess* ran = refused == &a ? &b : &a;
            const QString err = QString::fromUtf8(refused->readAllStandardError());
            QVERIFY2(err.contains(QStringLiteral("is being run by PID %1 on host ").arg(ran == &a ? pid_a : pid_b)),
                qPrintable(err));
            QCOMPARE(judged_and_warmup_samples(ran == &a ? study : link), 2 * 20 + 2 * 1);
            QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".s%1.json.lock").arg(round))));
            QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".t%1.json.lock").arg(round))));
        }
    }

    // After the holder's first save its name points at a new inode and the link keeps the old
    // one: a run through the link is still refused.
    void hard_link_is_refused_after_the_first_save()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(
            dir.filePath(QStringLiteral("late.json")), {QStringLiteral("--runs"), QStringLiteral("5000")});
        const QString link = dir.filePath(QStringLiteral("late-link.json"));
        QCOMPARE(::link(study.toLocal8Bit().constData(), link.toLocal8Bit().constData()), 0);
        const int devnull = open_write(QStringLiteral("/dev/null"));
        Child c = spawn(kKwb, {QStringLiteral("run"), study}, devnull, devnull);
        ::close(devnull);
        QVERIFY(c.pid > 0);
        const auto inode = [](const QString& p) {
            struct stat st = {};
            return ::stat(p.toLocal8Bit().constData(), &st) == 0 ? st.st_ino : ino_t(0);
        };
        for (int i = 0; i < 60000 && inode(study) == inode(link); i += 5)
            QThread::msleep(5);
        QVERIFY2(inode(study) != inode(link), "the run never saved");
        const auto r = kwb({QStringLiteral("run"), link}, 60000); // a second writer would run for minutes
        ::kill(c.pid, SIGTERM);
        QVERIFY(wait_for(c));
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(
            r.err.contains(QStringLiteral("is being run by PID %1 on host ").arg(c.pid).toUtf8()), r.err.constData());
        QVERIFY(c.exit_code() == 130 || c.exit_code() == 0);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".late-link.json.lock"))));
    }

    // `kwb collect` signalled while it loads a big study exits 130 (it died by the signal before
    // issue 26), the study byte-identical and no lock file left.
    void collect_on_a_signal_exits_130()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(QStringLiteral("big.json")));
        const QByteArray before = write_big_study(study);
        const QString lock = dir.filePath(QStringLiteral(".big.json.lock"));
        const int devnull = open_write(QStringLiteral("/dev/null"));
        Child c = spawn(kKwb, {QStringLiteral("collect"), study}, devnull, devnull);
        ::close(devnull);
        QVERIFY(c.pid > 0);
        // The lock is taken after the handlers are installed and before the study is read.
        for (int i = 0; i < 60000 && !QFile::exists(lock); ++i)
            ::usleep(1000);
        QVERIFY2(QFile::exists(lock), "collect never took the lock");
        ::kill(c.pid, SIGINT);
        QVERIFY(wait_for(c));
        QVERIFY2(c.exit_code() == 130, qPrintable(QStringLiteral("wait status %1").arg(c.status)));
        QCOMPARE(read_all(study), before);
        QVERIFY(!QFile::exists(lock));
    }

    // A filesystem that fills up during the run: the save fails, kwb exits 1, and the study on
    // disk is the last good version (it still loads). Needs a small tmpfs (root and mount(8)).
    void full_filesystem_keeps_the_last_good_study()
    {
        if (::geteuid() != 0)
            QSKIP("needs root to mount a small tmpfs");
        QTemporaryDir dir;
        const QString mnt = dir.filePath(QStringLiteral("small"));
        QVERIFY(QDir().mkpath(mnt));
        if (QProcess::execute(QStringLiteral("mount"),
                {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"), QStringLiteral("size=256k"),
                    QStringLiteral("tmpfs"), mnt})
            != 0)
            QSKIP("mount -t tmpfs is not allowed here");
        const auto unmount = qScopeGuard([&] { QProcess::execute(QStringLiteral("umount"), {mnt}); });
        const QString study
            = new_gemm_study(mnt + QStringLiteral("/f.json"), {QStringLiteral("--runs"), QStringLiteral("100000")});
        const QByteArray before = read_all(study);
        QVERIFY(!before.isEmpty());
        // Fill the filesystem, then free room for a few saves only: the study grows with every
        // sample until a save fails.
        const QByteArray filler = (mnt + QStringLiteral("/filler")).toLocal8Bit();
        const int fd = ::open(filler.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        const QByteArray block(4096, 'x');
        off_t written = 0;
        for (ssize_t n; (n = ::write(fd, block.constData(), block.size())) > 0;)
            written += n;
        QVERIFY(::ftruncate(fd, std::max<off_t>(0, written - 3 * before.size())) == 0);
        ::close(fd);
        const auto r = kwb({QStringLiteral("run"), study});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("No space left") || r.err.contains("cannot"), r.err.constData());
        const QJsonObject after = load(study);
        QVERIFY(!after.isEmpty());
        QVERIFY(positions_distinct(study));
    }
};

QTEST_GUILESS_MAIN(TestReliability)
#include "tst_reliability.moc"
