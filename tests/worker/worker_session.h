// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A worker process driven as kwb drives one (docs/worker-protocol.md): requests on stdin, one
// response line per request on stdout, stderr free text. Every stdout line is checked to be a
// JSON object that repeats the request's id and has a boolean `ok`; any other byte on stdout is a
// protocol fault the session records, so a test can assert there were none.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

namespace kwbtest {

class WorkerSession {
public:
    // Generous: CI machines are shared and slow; a hang still fails the test.
    static constexpr int kAnswerTimeoutMs = 120000;

    WorkerSession(const QString& program, const QStringList& args, const QStringList& env = {})
    {
        auto e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("KWB_WORKER_PROTOCOL"), QStringLiteral("1"));
        e.insert(QStringLiteral("KWB_DEVICE"), QStringLiteral("0"));
        e.insert(QStringLiteral("KWB_ARM"), QStringLiteral("baseline"));
        for (const auto& kv : env) {
            const auto eq = kv.indexOf(QLatin1Char('='));
            e.insert(kv.left(eq), kv.mid(eq + 1));
        }
        process_.setProcessEnvironment(e);
        process_.setWorkingDirectory(QStringLiteral(KWB_SOURCE_DIR));
        process_.start(program, args);
        started_ = process_.waitForStarted(30000);
    }
    ~WorkerSession()
    {
        if (process_.state() != QProcess::NotRunning) {
            process_.kill();
            process_.waitForFinished(10000);
        }
    }
    WorkerSession(const WorkerSession&) = delete;
    WorkerSession& operator=(const WorkerSession&) = delete;

    bool started() const { return started_; }

    // Sends `request` with the next id and returns the answer (empty when none came).
    QJsonObject request(QJsonObject request)
    {
        request.insert(QStringLiteral("id"), ++next_id_);
        return answer(QJsonDocument(request).toJson(QJsonDocument::Compact), next_id_);
    }
    QJsonObject request(const QString& op, QJsonObject fields = {})
    {
        fields.insert(QStringLiteral("op"), op);
        return request(fields);
    }

    // Sends one raw line (a newline is appended) and returns the answer, whose id must be
    // `expected_id` (a negative value: null, for a request whose id cannot be read).
    QJsonObject answer(const QByteArray& line, qint64 expected_id)
    {
        process_.write(line + '\n');
        const QByteArray reply = read_line();
        if (reply.isNull()) {
            faults_ << QStringLiteral("no answer to %1").arg(QString::fromUtf8(line.left(80)));
            return {};
        }
        QJsonParseError error;
        const auto doc = QJsonDocument::fromJson(reply, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject()) {
            faults_ << QStringLiteral("not a JSON object on stdout: %1").arg(QString::fromUtf8(reply.left(200)));
            return {};
        }
        const auto obj = doc.object();
        const auto id = obj.value(QStringLiteral("id"));
        const bool id_ok = expected_id < 0 ? id.isNull() : (id.isDouble() && id.toInteger() == expected_id);
        if (!id_ok)
            faults_ << QStringLiteral("answer id %1, expected %2")
                           .arg(QString::fromUtf8(
                               QJsonDocument(QJsonObject {{QStringLiteral("id"), id}}).toJson(QJsonDocument::Compact)))
                           .arg(expected_id);
        if (!obj.value(QStringLiteral("ok")).isBool())
            faults_ << QStringLiteral("answer without a boolean ok: %1").arg(QString::fromUtf8(reply));
        return obj;
    }

    // Closes stdin and waits for the exit; the exit code, or -1 when it crashed or hung. Whatever
    // is left on stdout then is a fault: every response was already read.
    int finish(bool close_stdin = true)
    {
        if (close_stdin)
            process_.closeWriteChannel();
        if (!process_.waitForFinished(kAnswerTimeoutMs) || process_.exitStatus() != QProcess::NormalExit)
            return -1;
        const QByteArray rest = process_.readAllStandardOutput();
        if (!rest.isEmpty())
            faults_ << QStringLiteral("stdout after the last answer: %1").arg(QString::fromUtf8(rest.left(200)));
        return process_.exitCode();
    }
    // Waits for an exit without closing stdin (after `release`, the worker exits by itself).
    int wait_exit() { return finish(false); }

    QByteArray stderr_text()
    {
        err_ += process_.readAllStandardError();
        return err_;
    }
    const QStringList& faults() const { return faults_; }

private:
    QByteArray read_line()
    {
        while (!process_.canReadLine()) {
            if (process_.state() == QProcess::NotRunning || !process_.waitForReadyRead(kAnswerTimeoutMs)) {
                if (!process_.canReadLine())
                    return {};
            }
            err_ += process_.readAllStandardError();
        }
        QByteArray line = process_.readLine();
        line.chop(1); // '\n'
        return line;
    }

    QProcess process_;
    bool started_ = false;
    qint64 next_id_ = 0;
    QStringList faults_;
    QByteArray err_;
};

} // namespace kwbtest
