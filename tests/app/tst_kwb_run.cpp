// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb new` and `kwb run` driven as a user (or the GUI) drives them: the study file, the progress
// stream, signals, resume, refusals and exit statuses (spec/cli.md, docs/progress-stream.md).
#include "kwb_process.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace kwbtest;

namespace {

QJsonObject experiment(const QString& path)
{
    return load(path).value(u"experiments").toArray().first().toObject();
}

void save(const QString& path, const QJsonObject& study)
{
    write_all(path, QJsonDocument(study).toJson());
}

void set_experiment(const QString& path, const QJsonObject& e)
{
    QJsonObject s = load(path);
    s[QStringLiteral("experiments")] = QJsonArray {e};
    save(path, s);
}

// The judged samples in run order as letters (A baseline, B treatment); positions must be 0..n-1.
QString order_of(const QJsonObject& e)
{
    QMap<int, QString> by_position;
    for (const auto& v : e.value(u"samples").toArray()) {
        const auto s = v.toObject();
        if (!s.value(u"warmup").toBool())
            by_position.insert(s.value(u"position").toInt(), s.value(u"arm").toString());
    }
    QString out;
    int expected = 0;
    for (auto it = by_position.cbegin(); it != by_position.cend(); ++it, ++expected) {
        if (it.key() != expected)
            return QStringLiteral("gap at %1").arg(expected);
        out += it.value() == u"baseline" ? u'A' : u'B';
    }
    return out;
}

int judged(const QJsonObject& e, const QString& arm)
{
    int n = 0;
    for (const auto& v : e.value(u"samples").toArray()) {
        const auto s = v.toObject();
        n += !s.value(u"warmup").toBool() && s.value(u"arm").toString() == arm;
    }
    return n;
}

QList<QJsonObject> parse_lines(const QByteArray& out, QString* problem)
{
    QList<QJsonObject> lines;
    for (const auto& line : out.split('\n')) {
        if (line.isEmpty())
            continue;
        QJsonParseError error {};
        const auto doc = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject()) {
            *problem = QStringLiteral("not a JSON object: ") + QString::fromUtf8(line);
            return {};
        }
        lines.append(doc.object());
    }
    return lines;
}

} // namespace

class TestKwbRun : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }

    QString new_study(const char* name, const QStringList& extra = {}) { return new_gemm_study(path(name), extra); }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QVERIFY2(QFile::exists(kKwb), "kwb is not built");
        const auto r = kwb({QStringLiteral("workloads"), QStringLiteral("--json")});
        // gemm is a built-in CPU workload: kwb without it is broken, not a reason to skip.
        QVERIFY2(r.out.contains("\"gemm\""), "kwb workloads --json does not list the built-in gemm workload");
    }

    void newWritesATypedSingleVariableStudy()
    {
        const QString p = new_study("new.json");
        const QByteArray text = read_all(p);
        QVERIFY(text.contains("\"block\": 32")); // an integer, not 32.0
        QVERIFY(text.contains("\"block\": 128"));
        const auto s = load(p);
        QVERIFY(s.value(u"schema_version").toInt() >= 2);
        QCOMPARE(s.value(u"target").toObject().value(u"metric").toString(), QStringLiteral("time_ms"));
        QCOMPARE(s.value(u"target").toObject().value(u"direction").toString(), QStringLiteral("lower"));
        QVERIFY(!s.value(u"hardware").toObject().value(u"devices").toArray().isEmpty());
        const auto e = experiment(p);
        QCOMPARE(e.value(u"status").toString(), QStringLiteral("pending"));
        QCOMPARE(e.value(u"plan").toObject().value(u"runs_per_arm").toInt(), 6); // the default: whole ABBA blocks
        const auto arms = e.value(u"arms").toArray();
        QCOMPARE(arms.size(), 2);
        QCOMPARE(arms[0].toObject().value(u"name").toString(), QStringLiteral("baseline"));
        auto base = arms[0].toObject().value(u"params").toObject();
        auto treat = arms[1].toObject().value(u"params").toObject();
        QCOMPARE(base.value(u"size").toInt(), 128);
        base.remove(QStringLiteral("block"));
        treat.remove(QStringLiteral("block"));
        QCOMPARE(base, treat); // every other parameter identical
    }

    void runProducesInterleavedSamplesAndBothVerdicts()
    {
        const QString p = new_study("run.json", {QStringLiteral("--runs"), QStringLiteral("4")});
        const auto r = kwb({QStringLiteral("run"), p});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.out.contains("final verdict"), r.out.constData());
        const auto e = experiment(p);
        QCOMPARE(e.value(u"status").toString(), QStringLiteral("done"));
        QCOMPARE(order_of(e), QStringLiteral("ABBAABBA"));
        QCOMPARE(judged(e, QStringLiteral("baseline")), 4);
        const auto verdict = e.value(u"verdict").toObject();
        const auto final_verdict = e.value(u"final_verdict").toObject();
        for (const char* key :
            {"verdict", "reasons", "delta_pct", "sigma_pct", "ci95_delta_pct", "p_welch", "arms", "profile"})
            QVERIFY2(verdict.contains(QLatin1String(key)), key);
        QVERIFY(verdict.value(u"paired").isObject());
        QVERIFY(final_verdict.contains(u"verdict"));
        QVERIFY(!e.value(u"missing_gates").toArray().isEmpty()); // no prediction, no tradeoff
        QVERIFY(!e.value(u"stop_reason").toString().isEmpty());
        QCOMPARE(load(p).value(u"ledger").toArray().size(), 1);
        // Run again: nothing pending, nothing changes in the results.
        const auto again = kwb({QStringLiteral("run"), p});
        QCOMPARE(again.exit_code, 0);
        QCOMPARE(order_of(experiment(p)), QStringLiteral("ABBAABBA"));
    }

    void jsonProgressStreamFollowsTheDocument()
    {
        const QString p = new_study("stream.json",
            {QStringLiteral("--runs"), QStringLiteral("3"), QStringLiteral("--order"), QStringLiteral("random")});
        const auto r = kwb({QStringLiteral("run"), p, QStringLiteral("--json-progress")});
        QCOMPARE(r.exit_code, 0);
        QString problem;
        const auto lines = parse_lines(r.out, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(lines.size() >= 4);
        for (const auto& l : lines) {
            QCOMPARE(l.value(u"v").toInt(), 1);
            QVERIFY(!l.value(u"type").toString().isEmpty());
        }
        const auto start = lines.first();
        QCOMPARE(start.value(u"type").toString(), QStringLiteral("start"));
        QCOMPARE(start.value(u"experiment").toString(), QStringLiteral("ab-1"));
        QCOMPARE(start.value(u"backend").toString(), QStringLiteral("cpu"));
        QCOMPARE(start.value(u"unit").toString(), QStringLiteral("ms"));
        const auto plan = start.value(u"plan").toObject();
        QCOMPARE(plan.value(u"runs_per_arm").toInt(), 3);
        QCOMPARE(plan.value(u"order").toArray().size(), 6);
        QCOMPARE(plan.value(u"stop").toString(), QStringLiteral("count"));
        QCOMPARE(lines.last().value(u"type").toString(), QStringLiteral("end"));
        QCOMPARE(lines.last().value(u"status").toString(), QStringLiteral("done"));
        QCOMPARE(lines.last().value(u"exit_code").toInt(), 0);

        int samples = 0, warmups = 0, progress = 0, verdicts = 0;
        QStringList streamed_order;
        for (const auto& l : lines) {
            const auto type = l.value(u"type").toString();
            if (type == u"sample") {
                for (const char* key :
                    {"experiment", "arm", "rep", "position", "value", "values", "duration_s", "t_s", "warmup", "flags"})
                    QVERIFY2(l.contains(QLatin1String(key)), key);
                QVERIFY(l.value(u"value").toDouble() > 0);
                if (l.value(u"warmup").toBool()) {
                    ++warmups;
                } else {
                    ++samples;
                    streamed_order << l.value(u"arm").toString();
                }
            } else if (type == u"progress") {
                ++progress;
                QVERIFY(
                    l.contains(u"done") && l.contains(u"planned") && l.contains(u"elapsed_s") && l.contains(u"eta_s"));
            } else if (type == u"verdict") {
                ++verdicts;
                QVERIFY(l.value(u"verdict").toObject().contains(u"verdict"));
                QVERIFY(l.value(u"final_verdict").toObject().contains(u"verdict"));
            } else if (type == u"metric") {
                QVERIFY(l.contains(u"t_s") && l.contains(u"name") && l.contains(u"value") && l.contains(u"unit"));
            } else {
                QVERIFY2(type == u"start" || type == u"end", qPrintable(type));
            }
        }
        QCOMPARE(samples, 6);
        QCOMPARE(warmups, 2);
        QCOMPARE(progress, 8);
        QCOMPARE(verdicts, 1);
        QStringList planned;
        for (const auto& a : plan.value(u"order").toArray())
            planned << a.toString();
        QCOMPARE(streamed_order, planned); // the run followed the announced order
    }

    void signalStopsSavesAndExits130_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addRow("SIGINT") << int(SIGINT);
        QTest::addRow("SIGTERM") << int(SIGTERM);
    }
    void signalStopsSavesAndExits130()
    {
        QFETCH(int, signal);
        const QString p = new_study("signal.json", {QStringLiteral("--runs"), QStringLiteral("100000")});
        QProcess proc;
        proc.start(kKwb, {QStringLiteral("run"), p, QStringLiteral("--json-progress")});
        QVERIFY(proc.waitForStarted());
        QByteArray out;
        int judged_lines = 0;
        while (judged_lines < 3 && proc.state() == QProcess::Running) {
            proc.waitForReadyRead(1000);
            out += proc.readAllStandardOutput();
            judged_lines = 0;
            for (const auto& line : out.split('\n'))
                judged_lines += line.contains("\"type\":\"sample\"") && line.contains("\"warmup\":false");
        }
        QCOMPARE(judged_lines >= 3, true);
        ::kill(static_cast<pid_t>(proc.processId()), signal);
        QVERIFY(proc.waitForFinished(120000));
        out += proc.readAllStandardOutput();
        QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
        QCOMPARE(proc.exitCode(), 130);

        QString problem;
        const auto lines = parse_lines(out, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(lines.last().value(u"type").toString(), QStringLiteral("end"));
        QCOMPARE(lines.last().value(u"status").toString(), QStringLiteral("stopped"));
        QCOMPARE(lines.last().value(u"exit_code").toInt(), 130);
        int streamed = 0;
        for (const auto& l : lines)
            streamed += l.value(u"type").toString() == u"sample" && !l.value(u"warmup").toBool();

        const auto e = experiment(p);
        QCOMPARE(e.value(u"status").toString(), QStringLiteral("stopped"));
        QCOMPARE(judged(e, QStringLiteral("baseline")) + judged(e, QStringLiteral("treatment")), streamed);
        QVERIFY(streamed >= 3);
        QVERIFY(!order_of(e).startsWith(u"gap"));
        QVERIFY(e.value(u"verdict").isObject()); // stopped with samples in both arms: judged
    }

    void resumeContinuesTheOrder()
    {
        const QString p = new_study("resume.json", {QStringLiteral("--runs"), QStringLiteral("4")});
        QCOMPARE(kwb({QStringLiteral("run"), p}).exit_code, 0);
        // Make it look stopped after five runs of the order (mid-block), as a signal would leave it.
        QJsonObject e = experiment(p);
        QJsonArray kept;
        for (const auto& v : e.value(u"samples").toArray())
            if (v.toObject().value(u"warmup").toBool() || v.toObject().value(u"position").toInt() < 5)
                kept.append(v);
        e[QStringLiteral("samples")] = kept;
        e[QStringLiteral("status")] = QStringLiteral("stopped");
        e[QStringLiteral("verdict")] = QJsonValue::Null;
        set_experiment(p, e);

        const auto r = kwb({QStringLiteral("run"), p, QStringLiteral("--json-progress")});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.out.contains("\"done_before\":5"));
        const auto after = experiment(p);
        QCOMPARE(after.value(u"status").toString(), QStringLiteral("done"));
        QCOMPARE(order_of(after), QStringLiteral("ABBAABBA"));
        QVERIFY(after.value(u"verdict").isObject());
    }

    void continueAddsRunsToTheSameExperiment()
    {
        const QString p = new_study("continue.json", {QStringLiteral("--runs"), QStringLiteral("4")});
        const auto first = kwb({QStringLiteral("run"), p});
        QCOMPARE(first.exit_code, 0);
        // The summary prints the verdict's story (verdict/verdict_story.h) under the experiment's id.
        QVERIFY2(first.out.contains("ab-1: the numbers alone: "), first.out.constData());
        QVERIFY2(first.out.contains("ab-1: what would change it: ") || first.out.contains("ab-1: next step: "),
            first.out.constData());
        // The engine's estimate, as a strict profile's not-significant verdict would store it.
        QJsonObject e = experiment(p);
        QJsonObject v = e.value(u"verdict").toObject();
        v[QStringLiteral("verdict")] = QStringLiteral("INCONCLUSIVE");
        v[QStringLiteral("rule")] = 5;
        v[QStringLiteral("runs_needed_per_arm")] = 6;
        e[QStringLiteral("verdict")] = v;
        QJsonObject f = e.value(u"final_verdict").toObject();
        f[QStringLiteral("verdict")] = QStringLiteral("INCONCLUSIVE");
        f[QStringLiteral("sample_verdict")] = QStringLiteral("INCONCLUSIVE");
        e[QStringLiteral("final_verdict")] = f;
        set_experiment(p, e);

        const auto r = kwb({QStringLiteral("run"), p, QStringLiteral("--continue")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.err.contains("continuing from 4 to 6 runs per arm, the verdict's estimate"), r.err.constData());
        const auto s = load(p);
        QCOMPARE(s.value(u"experiments").toArray().size(), 1); // the same experiment, no new attempt
        const auto after = experiment(p);
        QCOMPARE(after.value(u"id").toString(), QStringLiteral("ab-1"));
        QCOMPARE(after.value(u"status").toString(), QStringLiteral("done"));
        QCOMPARE(judged(after, QStringLiteral("baseline")), 6);
        QCOMPARE(judged(after, QStringLiteral("treatment")), 6);
        QCOMPARE(order_of(after), QStringLiteral("ABBAABBAABBA")); // the ABBA blocks go on
        // Count stopping: the reasons say the run was extended after a look.
        bool said = false;
        for (const auto& reason : after.value(u"final_verdict").toObject().value(u"reasons").toArray())
            said = said || reason.toString().startsWith(u"extended after a look: ");
        QVERIFY(said);

        // Not more than it holds: refused, and the study is left as it was.
        const QByteArray before = read_all(p);
        const auto refused = kwb({QStringLiteral("run"), p, QStringLiteral("--continue"),
            QStringLiteral("--runs-per-arm"), QStringLiteral("6")});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains("already holds 6 runs per arm"), refused.err.constData());
        QCOMPARE(read_all(p), before);
    }

    void brokenStudiesAreRefusedAndLeftUntouched_data()
    {
        QTest::addColumn<QByteArray>("mutation");
        QTest::addRow("truncated") << QByteArray("truncate");
        QTest::addRow("wrong type") << QByteArray("runs_per_arm");
        QTest::addRow("not json") << QByteArray("garbage");
        QTest::addRow("foreign json") << QByteArray("foreign");
        QTest::addRow("newer schema") << QByteArray("future");
    }
    void brokenStudiesAreRefusedAndLeftUntouched()
    {
        QFETCH(QByteArray, mutation);
        const QString p = new_study("broken.json");
        QByteArray bytes = read_all(p);
        if (mutation == "truncate")
            bytes = bytes.left(bytes.size() / 2);
        else if (mutation == "runs_per_arm")
            bytes.replace("\"runs_per_arm\": 6", "\"runs_per_arm\": \"five\"");
        else if (mutation == "garbage")
            bytes = "this is not a study\n";
        else if (mutation == "foreign")
            bytes = "{\"name\": \"a shopping list\", \"items\": [1, 2]}\n";
        else
            bytes = QString::fromUtf8(bytes)
                        .replace(QRegularExpression(QStringLiteral("\"schema_version\": [0-9]+")),
                            QStringLiteral("\"schema_version\": 99"))
                        .toUtf8();
        write_all(p, bytes);

        const auto r = kwb({QStringLiteral("run"), p, QStringLiteral("--json-progress")});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.trimmed().count('\n'), 0); // one line
        QVERIFY2(r.err.contains(p.toUtf8()), r.err.constData()); // naming the file
        if (mutation == "runs_per_arm")
            QVERIFY2(r.err.contains("runs_per_arm"), r.err.constData()); // and the field
        QVERIFY(r.out.isEmpty());
        QCOMPARE(read_all(p), bytes); // never overwritten
    }

    void newRefusesToOverwriteWithoutForce()
    {
        const QString p = path("exists.json");
        write_all(p, "precious\n");
        const QStringList args = {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"),
            QStringLiteral("--vary"), QStringLiteral("block=32,128"), QStringLiteral("--out"), p};
        const auto r = kwb(args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY(r.err.contains("--force"));
        QCOMPARE(read_all(p), QByteArray("precious\n"));
        QCOMPARE(kwb(args + QStringList {QStringLiteral("--force")}).exit_code, 0);
        QVERIFY(read_all(p).contains("schema_version"));
    }

    void newRefusesBadInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("says");
        const auto gemm = [](QStringList more) {
            return QStringList {QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm")} + more;
        };
        QTest::addRow("unknown workload") << QStringList {QStringLiteral("new"), QStringLiteral("--workload"),
            QStringLiteral("nope"), QStringLiteral("--vary"), QStringLiteral("block=1,2")}
                                          << QByteArray("nope");
        QTest::addRow("unknown vary param")
            << gemm({QStringLiteral("--vary"), QStringLiteral("tile=1,2")}) << QByteArray("tile");
        QTest::addRow("unknown fixed param") << gemm({QStringLiteral("--param"), QStringLiteral("tile=4"),
            QStringLiteral("--vary"), QStringLiteral("block=32,128")})
                                             << QByteArray("tile");
        QTest::addRow("not an integer") << gemm({QStringLiteral("--vary"), QStringLiteral("block=32,big")})
                                        << QByteArray("integer");
        QTest::addRow("one value") << gemm({QStringLiteral("--vary"), QStringLiteral("block=32")})
                                   << QByteArray("two values");
        QTest::addRow("same values") << gemm({QStringLiteral("--vary"), QStringLiteral("block=32,32")})
                                     << QByteArray("same");
        QTest::addRow("unknown metric") << gemm({QStringLiteral("--vary"), QStringLiteral("block=32,128"),
            QStringLiteral("--metric"), QStringLiteral("fps")})
                                        << QByteArray("fps");
        QTest::addRow("command form mixed with a workload") << QStringList {QStringLiteral("new"),
            QStringLiteral("--workload"), QStringLiteral("gemm"), QStringLiteral("--baseline-cmd"),
            QStringLiteral("true"), QStringLiteral("--treatment-cmd"), QStringLiteral("true")}
                                                            << QByteArray("takes no --workload");
    }
    void newRefusesBadInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, says);
        const QString p = path("bad-input.json");
        QFile::remove(p);
        const auto r = kwb(args + QStringList {QStringLiteral("--out"), p});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY2(r.err.contains(says), r.err.constData());
        QVERIFY(!QFile::exists(p));
    }

    void secondChangedParameterNeedsAcknowledgement()
    {
        const QString p = new_study("multi.json", {QStringLiteral("--runs"), QStringLiteral("3")});
        QJsonObject e = experiment(p);
        QJsonArray arms = e.value(u"arms").toArray();
        QJsonObject treatment = arms[1].toObject();
        QJsonObject params = treatment.value(u"params").toObject();
        params[QStringLiteral("size")] = 256;
        treatment[QStringLiteral("params")] = params;
        arms[1] = treatment;
        e[QStringLiteral("arms")] = arms;
        set_experiment(p, e);
        const QByteArray before = read_all(p);

        const auto refused = kwb({QStringLiteral("run"), p});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains("block, size"), refused.err.constData());
        QCOMPARE(read_all(p), before);

        e[QStringLiteral("acknowledged_multi_variable")] = true;
        set_experiment(p, e);
        QCOMPARE(kwb({QStringLiteral("run"), p}).exit_code, 0);
        QCOMPARE(experiment(p).value(u"acknowledged_multi_variable").toBool(), true);
        QCOMPARE(experiment(p).value(u"status").toString(), QStringLiteral("done"));
    }

    void workloadErrorFailsWithExit1()
    {
        // block = 0 passes the parameter types but the gemm refuses it when it prepares.
        const QString p = new_study("fails.json", {QStringLiteral("--runs"), QStringLiteral("3")});
        QJsonObject e = experiment(p);
        QJsonArray arms = e.value(u"arms").toArray();
        QJsonObject treatment = arms[1].toObject();
        QJsonObject params = treatment.value(u"params").toObject();
        params[QStringLiteral("block")] = 0;
        treatment[QStringLiteral("params")] = params;
        arms[1] = treatment;
        e[QStringLiteral("arms")] = arms;
        set_experiment(p, e);

        const auto r = kwb({QStringLiteral("run"), p, QStringLiteral("--json-progress")});
        QCOMPARE(r.exit_code, 1);
        QString problem;
        const auto lines = parse_lines(r.out, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        bool error_line = false;
        for (const auto& l : lines)
            if (l.value(u"type").toString() == u"error") {
                error_line = true;
                QCOMPARE(l.value(u"continues").toBool(), false);
                QVERIFY(!l.value(u"message").toString().isEmpty());
            }
        QVERIFY(error_line);
        QCOMPARE(lines.last().value(u"status").toString(), QStringLiteral("failed"));
        QCOMPARE(lines.last().value(u"exit_code").toInt(), 1);
        const auto after = experiment(p);
        QCOMPARE(after.value(u"status").toString(), QStringLiteral("failed"));
        QVERIFY(!after.value(u"error").toString().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestKwbRun)
#include "tst_kwb_run.moc"
