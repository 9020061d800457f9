// SPDX-License-Identifier: GPL-3.0-or-later
// Writes that only ever replace regular files, and reads that never wait on a FIFO
// (util/atomic_file.h): the one place every writer of kwb and the window goes through.
#include "util/atomic_file.h"

#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <filesystem>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kwb;
namespace fs = std::filesystem;

namespace {

mode_t kind_of(const fs::path& p)
{
    struct stat st = {};
    return ::stat(p.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// A character device in `dir` (a copy of /dev/null's numbers, 1:3), or /dev/null itself where
// mknod is not allowed (no root, a restricted container).
fs::path char_device(const fs::path& dir)
{
    const fs::path node = dir / "null";
    if (::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0)
        return node;
    return "/dev/null";
}

// Runs `f` in a child and says whether it finished within `ms` (a blocking open would hang the
// test itself; a child can be killed).
template<typename F> bool finishes_within(int ms, F f)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        try {
            f();
        } catch (...) {
        }
        ::_exit(0);
    }
    for (int waited = 0; waited < ms; waited += 10) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return true;
        ::usleep(10000);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return false;
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT

private slots:
    void nonRegularTargetsAreRefusedAndLeftAsTheyWere_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("character device") << QStringLiteral("device");
        QTest::newRow("FIFO") << QStringLiteral("fifo");
        QTest::newRow("directory") << QStringLiteral("directory");
        QTest::newRow("socket") << QStringLiteral("socket");
        QTest::newRow("link to a FIFO") << QStringLiteral("link");
    }
    void nonRegularTargetsAreRefusedAndLeftAsTheyWere()
    {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        fs::path target = root / "out.json";
        mode_t expected = 0;
        int sock = -1;
        if (kind == QStringLiteral("device")) {
            target = char_device(root);
            expected = S_IFCHR;
        } else if (kind == QStringLiteral("fifo") || kind == QStringLiteral("link")) {
            QCOMPARE(::mkfifo((root / "out.json").c_str(), 0644), 0);
            expected = S_IFIFO;
            if (kind == QStringLiteral("link")) {
                fs::create_symlink("out.json", root / "link.json");
                target = root / "link.json";
            }
        } else if (kind == QStringLiteral("directory")) {
            fs::create_directory(target);
            expected = S_IFDIR;
        } else {
            sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un addr = {};
            addr.sun_family = AF_UNIX;
            std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", target.c_str());
            QCOMPARE(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
            expected = S_IFSOCK;
        }
        QString what;
        try {
            write_file_atomically(target, "{}\n");
        } catch (const NotARegularFile& e) {
            what = QString::fromUtf8(e.what());
        }
        QVERIFY2(what.contains(QString::fromStdString(target.string())) && what.contains(u"not a regular file"),
            qPrintable(what));
        QVERIFY(!what.contains(u'\n'));
        QVERIFY_THROWS_EXCEPTION(NotARegularFile, check_replaceable(target));
        QCOMPARE(kind_of(target), expected);
        for (const auto& entry : fs::directory_iterator(root)) // no temporary left beside it
            QVERIFY2(entry.path().filename().string().front() != '.', entry.path().c_str());
        if (sock >= 0)
            ::close(sock);
    }

    void regularFilesAndNewOnesAreStillWritten()
    {
        QTemporaryDir dir;
        const fs::path p = fs::path(dir.path().toStdString()) / "s.json";
        write_file_atomically(p, "one\n");
        write_file_atomically(p, "two\n");
        QCOMPARE(read_file(p), std::string("two\n"));
        QCOMPARE(non_regular_kind(p), std::string());
        QCOMPARE(non_regular_kind(fs::path(dir.path().toStdString()) / "absent.json"), std::string());
    }

    // A FIFO nobody writes: opened without waiting, read as empty.
    void readingAFifoDoesNotWaitForAWriter()
    {
        QTemporaryDir dir;
        const fs::path fifo = fs::path(dir.path().toStdString()) / "s.json";
        QCOMPARE(::mkfifo(fifo.c_str(), 0644), 0);
        QVERIFY(finishes_within(10000, [&] { read_file(fifo); }));
        QCOMPARE(read_file(fifo), std::string());
    }

    void readingADirectoryNamesIt()
    {
        QTemporaryDir dir;
        try {
            read_file(dir.path().toStdString());
            QFAIL("a directory was read");
        } catch (const std::runtime_error& e) {
            QCOMPARE(QString::fromUtf8(e.what()), dir.path() + QStringLiteral(": is a directory, not a file"));
        }
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomic_file.moc"
