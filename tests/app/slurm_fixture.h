// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A real single-node Slurm cluster on localhost for the cluster tests (docs/cluster.md):
// scripts/slurm-local.sh starts munged, slurmctld and slurmd with their key, state and sockets in
// a temporary folder and stops them again; SLURM_CONF points the clients (and kwb) at it. Where the
// cluster cannot start here, skipReason() says why in one line and the tests skip.
#include <QProcess>
#include <QTemporaryDir>

namespace kwbtest {

class SlurmFixture {
public:
    ~SlurmFixture() { stop(); }

    bool start()
    {
        if (!m_dir.isValid())
            return fail(QStringLiteral("no temporary folder for the cluster"));
        QProcess start;
        start.start(QStringLiteral("bash"), {script(), QStringLiteral("start"), m_dir.path()});
        if (!start.waitForFinished(90000) || start.exitCode() != 0) {
            const QString why = QString::fromUtf8(start.readAllStandardError()).trimmed();
            return fail(why.isEmpty() ? QStringLiteral("scripts/slurm-local.sh did not finish") : why);
        }
        qputenv("SLURM_CONF", (m_dir.path() + QStringLiteral("/slurm.conf")).toUtf8());
        m_started = true;
        return true;
    }

    void stop()
    {
        if (!m_started)
            return;
        m_started = false;
        QProcess stop;
        stop.start(QStringLiteral("bash"), {script(), QStringLiteral("stop"), m_dir.path()});
        stop.waitForFinished(60000);
    }

    bool started() const { return m_started; }
    QString skipReason() const { return QStringLiteral("no Slurm cluster on localhost: %1").arg(m_skip); }

private:
    static QString script() { return QStringLiteral(KWB_SOURCE_DIR "/scripts/slurm-local.sh"); }
    bool fail(const QString& why)
    {
        m_skip = why;
        return false;
    }

    QTemporaryDir m_dir;
    bool m_started = false;
    QString m_skip;
};

} // namespace kwbtest
