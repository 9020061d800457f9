// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the app tests need to drive the built `kwb` as a user would: run it, read what it wrote.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace kwbtest {

inline const QString kKwb = QStringLiteral(KWB_BIN_DIR "/kwb");

struct Result {
    int exit_code = -1; // -1: did not finish (crashed or timed out)
    QByteArray out;
    QByteArray err;
};

// Generous timeout: CI machines are shared and slow; a hang still fails the test.
inline Result kwb(const QStringList& args, int timeout_ms = 300000)
{
    QProcess p;
    p.start(kKwb, args);
    if (!p.waitForFinished(timeout_ms) || p.exitStatus() != QProcess::NormalExit)
        return {};
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

inline QByteArray read_all(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline void write_all(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

inline QJsonObject load(const QString& path)
{
    return QJsonDocument::fromJson(read_all(path)).object();
}

// Writes a small gemm study at `path`: block 32 against 128 at size 128, so a repetition takes
// milliseconds. `extra` goes to `kwb new` as is.
inline QString new_gemm_study(const QString& path, const QStringList& extra = {})
{
    const auto r = kwb(QStringList {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"),
                           QStringLiteral("--param"), QStringLiteral("size=128"), QStringLiteral("--vary"),
                           QStringLiteral("block=32,128"), QStringLiteral("--out"), path, QStringLiteral("--force")}
        + extra);
    if (r.exit_code != 0)
        qWarning("kwb new failed: %s", r.err.constData());
    return path;
}

} // namespace kwbtest
