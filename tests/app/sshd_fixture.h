// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A real OpenSSH server on 127.0.0.1 for the remote-host tests (docs/remote.md), started as the
// current user on a high port with a host key and an authorized key made in `dir`, and a client
// config (`kwbtest` -> that server) plus a KWB_SSH wrapper that runs `ssh -F <config>` and logs
// each client's pid and command (`ssh.log`), so a test can cut a connection by killing one.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>
#include <csignal>
#include <unistd.h>

namespace kwbtest {

class SshdFixture {
public:
    // False with skipReason() set (one line) when no server could be started here.
    bool start(const QString& dir)
    {
        m_dir = dir;
        QDir().mkpath(dir);
        const QString sshd = QStringLiteral("/usr/sbin/sshd");
        if (!QFile::exists(sshd) || QStandardPaths::findExecutable(QStringLiteral("ssh")).isEmpty())
            return fail(QStringLiteral("OpenSSH is not installed (apt-get install openssh-server openssh-client)"));
        QByteArray err;
        for (const char* key : {"host_key", "user_key"})
            if (tool(QStringLiteral("ssh-keygen"),
                    {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
                        QString(), QStringLiteral("-f"), path(QLatin1StringView(key))},
                    &err)
                != 0)
                return fail(QStringLiteral("ssh-keygen failed: ") + QString::fromUtf8(err).trimmed());
        QFile::copy(path(QStringLiteral("user_key.pub")), path(QStringLiteral("authorized_keys")));
        // sshd started by root insists on its privilege separation directory (made at boot).
        if (::geteuid() == 0)
            QDir().mkpath(QStringLiteral("/run/sshd"));
        const QString user = QString::fromLocal8Bit(qgetenv("USER"));
        for (int attempt = 0; attempt < 5; ++attempt) {
            const int port = 20000 + static_cast<int>((::getpid() * 7 + attempt * 7919) % 30000);
            write(QStringLiteral("sshd_config"),
                QStringLiteral("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nAuthorizedKeysFile %3\nPidFile %4\n"
                               "StrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                               "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                               "PermitRootLogin prohibit-password\n")
                    .arg(port)
                    .arg(path(QStringLiteral("host_key")), path(QStringLiteral("authorized_keys")),
                        path(QStringLiteral("sshd.pid"))));
            write(QStringLiteral("ssh_config"),
                QStringLiteral("Host kwbtest\n  HostName 127.0.0.1\n  Port %1\n  User %2\n  IdentityFile %3\n"
                               "  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile %4\n"
                               "  BatchMode yes\n  LogLevel ERROR\n  ConnectTimeout 10\n")
                    .arg(port)
                    .arg(::geteuid() == 0 || user.isEmpty() ? QStringLiteral("root") : user,
                        path(QStringLiteral("user_key")), path(QStringLiteral("known_hosts"))));
            m_sshd.setProcessChannelMode(QProcess::MergedChannels);
            m_sshd.start(sshd,
                {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
                    path(QStringLiteral("sshd_config"))});
            if (!m_sshd.waitForStarted(10000))
                return fail(QStringLiteral("sshd cannot start: ") + m_sshd.errorString());
            // Up when a client gets through; an sshd that exits says why (a taken port: another).
            for (int i = 0; i < 100 && m_sshd.state() != QProcess::NotRunning; ++i) {
                if (tool(QStringLiteral("ssh"),
                        {QStringLiteral("-F"), path(QStringLiteral("ssh_config")), QStringLiteral("kwbtest"),
                            QStringLiteral("true")},
                        &err)
                    == 0) {
                    writeWrapper();
                    return true;
                }
                QTest::qWait(100);
            }
            QString log = QString::fromUtf8(m_sshd.readAll()).trimmed();
            stop();
            if (log.isEmpty())
                log = QString::fromUtf8(err).trimmed();
            fail(QStringLiteral("sshd on 127.0.0.1:%1 did not let the test's key in: %2")
                     .arg(port)
                     .arg(log.replace(u'\n', QStringLiteral("; "))));
            if (!log.contains(QStringLiteral("Address already in use")))
                return false;
        }
        return false;
    }

    void stop()
    {
        if (m_sshd.state() == QProcess::NotRunning)
            return;
        m_sshd.terminate();
        if (!m_sshd.waitForFinished(5000))
            m_sshd.kill();
        m_sshd.waitForFinished(5000);
    }

    QString skipReason() const { return m_skip; }
    QString wrapper() const { return path(QStringLiteral("ssh-wrapper")); }

    // The pid of the newest live ssh client whose command contains `what` (from the wrapper's log).
    qint64 client(const QString& what) const
    {
        QFile f(path(QStringLiteral("ssh.log")));
        if (!f.open(QIODevice::ReadOnly))
            return 0;
        const auto lines = f.readAll().split('\n');
        for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
            const qint64 pid = it->split(' ').first().toLongLong();
            if (pid > 0 && it->contains(what.toUtf8()) && ::kill(static_cast<pid_t>(pid), 0) == 0)
                return pid;
        }
        return 0;
    }

private:
    QString path(const QString& name) const { return QDir(m_dir).filePath(name); }
    bool fail(const QString& why)
    {
        m_skip = why;
        return false;
    }
    void write(const QString& name, const QString& text) const
    {
        QFile f(path(name));
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            f.write(text.toUtf8());
    }
    void writeWrapper() const
    {
        write(QStringLiteral("ssh-wrapper"),
            QStringLiteral("#!/bin/sh\necho \"$$ $*\" >> '%1'\nexec ssh -F '%2' \"$@\"\n")
                .arg(path(QStringLiteral("ssh.log")), path(QStringLiteral("ssh_config"))));
        QFile::setPermissions(wrapper(), QFile::permissions(wrapper()) | QFile::ExeOwner | QFile::ExeUser);
    }
    static int tool(const QString& program, const QStringList& args, QByteArray* err)
    {
        QProcess p;
        p.start(program, args);
        if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit)
            return -1;
        *err = p.readAllStandardError();
        return p.exitCode();
    }

    QString m_dir;
    QString m_skip;
    QProcess m_sshd;
};

} // namespace kwbtest
