// SPDX-License-Identifier: GPL-3.0-or-later
// The ledger's commands as a user runs them (docs/ledger.md, docs/cli.md): `kwb run` indexes the
// study it saved (and only warns when it cannot), `kwb ledger` lists and filters, `import` and
// `rebuild` work from files, `kwb history` finds a planted step, `kwb gate` exits 0, 3 or 2, and
// `kwb new --expected-noise` shows the sigma the ledger learnt.
#include "kwb_process.h"
#include "ledger_studies.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using kwbtest::load;
using kwbtest::new_gemm_study;
using kwbtest::read_all;
using kwbtest::Result;
using kwbtest::write_all;

namespace {

QJsonObject json_of(const Result& r)
{
    return QJsonDocument::fromJson(r.out).object();
}

// 16 judged attempts of one benchmark, one a day; from the 9th on the treatment takes 10% longer.
void write_step_studies(const QString& dir)
{
    for (int i = 0; i < 16; ++i) {
        kwb::Study s;
        s.name = fmt::format("day-{:02}", i + 1);
        const std::string at = fmt::format("2026-11-{:02}T10:00:00Z", i + 1);
        const double t = (i >= 8 ? 11.0 : 10.0) * (1 + 0.002 * ((i * 7) % 5 - 2));
        auto e = ledger_test::judged_experiment(
            "ab-1", ledger_test::around(10.0, 1, 6, i), ledger_test::around(t, 1, 6, i), "NVIDIA H200", at);
        ledger_test::add_ledger_entry(s, e, at);
        s.experiments.push_back(std::move(e));
        kwb::save_study(s, QDir(dir).filePath(QString::fromStdString(s.name + ".json")).toStdString());
    }
}

} // namespace

class TestKwbLedger : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)); }

private slots:
    void init()
    {
        static int n = 0;
        qputenv("KWB_LEDGER", path(qPrintable(QStringLiteral("ledger-%1.sqlite").arg(++n))).toUtf8());
    }

    void runIndexesTheSavedStudy()
    {
        const QString study = new_gemm_study(path("run.json"), {QStringLiteral("--runs"), QStringLiteral("4")});
        const auto run = kwbtest::kwb({QStringLiteral("run"), study});
        QVERIFY2(run.exit_code == 0 || run.exit_code == 1, run.err.constData());
        const auto list = kwbtest::kwb({QStringLiteral("ledger"), QStringLiteral("--json")});
        QCOMPARE(list.exit_code, 0);
        const QJsonArray attempts = json_of(list)[QStringLiteral("attempts")].toArray();
        QCOMPARE(attempts.size(), 1);
        const QJsonObject a = attempts[0].toObject();
        QCOMPARE(a[QStringLiteral("study")].toString(), QFileInfo(study).absoluteFilePath());
        QCOMPARE(a[QStringLiteral("experiment")].toString(), QStringLiteral("ab-1"));
        QVERIFY(a[QStringLiteral("benchmark_key")].toString().startsWith(QStringLiteral("gemm/time_ms/")));
        QCOMPARE(a[QStringLiteral("n")].toObject()[QStringLiteral("baseline")].toInt(), 4);
        // The key plans the next study: its sigma is shown, the plan stays as asked.
        const auto again = kwbtest::kwb({QStringLiteral("new"), QStringLiteral("--workload"), QStringLiteral("gemm"),
            QStringLiteral("--param"), QStringLiteral("size=128"), QStringLiteral("--vary"),
            QStringLiteral("block=32,128"), QStringLiteral("--out"), path("next.json"), QStringLiteral("--force"),
            QStringLiteral("--runs"), QStringLiteral("4"), QStringLiteral("--expected-noise")});
        QCOMPARE(again.exit_code, 0);
        QVERIFY2(again.err.contains("the ledger: gemm/time_ms/"), again.err.constData());
        QVERIFY(again.err.contains("this study plans 4"));
    }

    void aFailedIndexWriteIsAWarningNotAFailedRun()
    {
        write_all(path("blocker"), "a file where the ledger's folder should be");
        qputenv("KWB_LEDGER", path("blocker/ledger.sqlite").toUtf8());
        const QString study = new_gemm_study(path("warn.json"), {QStringLiteral("--runs"), QStringLiteral("4")});
        const auto run = kwbtest::kwb({QStringLiteral("run"), study});
        QVERIFY2(run.exit_code == 0 || run.exit_code == 1, run.err.constData()); // as without a ledger
        QVERIFY2(run.err.contains("warning: the ledger was not updated"), run.err.constData());
        QVERIFY(
            load(study)[QStringLiteral("experiments")].toArray()[0].toObject()[QStringLiteral("verdict")].isObject());
    }

    void importFiltersHistoryAndRebuild()
    {
        const QString dir = path("days");
        QDir().mkpath(dir);
        write_step_studies(dir);
        const auto import = kwbtest::kwb({QStringLiteral("ledger"), QStringLiteral("import"), dir});
        QCOMPARE(import.exit_code, 0);
        QVERIFY(import.out.contains("indexed 16 experiments from 16 studies"));
        const auto table = kwbtest::kwb({QStringLiteral("ledger"), QStringLiteral("--device"), QStringLiteral("h200"),
            QStringLiteral("--since"), QStringLiteral("2026-11-15")});
        QCOMPARE(table.exit_code, 0);
        QCOMPARE(table.out.count("day-"), 2); // the 15th and the 16th
        const auto list = kwbtest::kwb({QStringLiteral("ledger"), QStringLiteral("--json")});
        const QString key = json_of(list)[QStringLiteral("attempts")]
                                .toArray()[0]
                                .toObject()[QStringLiteral("benchmark_key")]
                                .toString();
        const auto history = kwbtest::kwb({QStringLiteral("history"), key, QStringLiteral("--json")});
        QCOMPARE(history.exit_code, 0);
        const QJsonObject h = json_of(history);
        QCOMPARE(h[QStringLiteral("points")].toArray().size(), 16);
        const QJsonArray changes = h[QStringLiteral("change_points")].toArray();
        QCOMPARE(changes.size(), 1);
        QCOMPARE(changes[0].toObject()[QStringLiteral("index")].toInt(), 8);
        QVERIFY(changes[0].toObject()[QStringLiteral("regression")].toBool());
        const auto text = kwbtest::kwb({QStringLiteral("history"), key});
        QVERIFY(text.out.contains("---- change point"));
        QCOMPARE(kwbtest::kwb({QStringLiteral("history"), QStringLiteral("nosuch/")}).exit_code, 2);

        // The gate on the key: the latest attempt (slower than its baseline) regressed.
        const auto gate = kwbtest::kwb({QStringLiteral("gate"), key, QStringLiteral("--fail-on"),
            QStringLiteral("regression"), QStringLiteral("--markdown"), path("gate.md")});
        QCOMPARE(gate.exit_code, 3);
        QVERIFY(read_all(path("gate.md")).contains("### kwb gate: regression"));
        QVERIFY(read_all(path("gate.md")).contains("change point"));

        QVERIFY(QFile::remove(QDir(dir).filePath(QStringLiteral("day-01.json"))));
        const auto rebuild = kwbtest::kwb({QStringLiteral("ledger"), QStringLiteral("rebuild")});
        QCOMPARE(rebuild.exit_code, 0);
        QVERIFY(rebuild.out.contains("indexed 15 experiments from 15 studies"));
        QVERIFY(rebuild.err.contains("gone, dropped from the index"));
    }

    void gateExitCodes()
    {
        const auto write = [&](const char* name, double treatment) {
            kwb::Study s;
            s.name = name;
            s.experiments.push_back(ledger_test::judged_experiment(
                "ab-1", ledger_test::around(10.0, 1, 6, 0), ledger_test::around(treatment, 1, 6, 1)));
            kwb::save_study(s, path(name).toStdString());
            return path(name);
        };
        const QString slower = write("slower.json", 10.8), faster = write("faster.json", 9.0);
        const QStringList fail = {QStringLiteral("--fail-on"), QStringLiteral("regression")};
        const auto regressed = kwbtest::kwb(QStringList {QStringLiteral("gate"), slower} + fail);
        QCOMPARE(regressed.exit_code, 3);
        QVERIFY(regressed.out.contains("| **yes** |"));
        QCOMPARE(kwbtest::kwb(QStringList {QStringLiteral("gate"), faster} + fail).exit_code, 0);
        QCOMPARE(kwbtest::kwb({QStringLiteral("gate"), slower}).exit_code, 0); // no --fail-on: a summary only
        QCOMPARE(kwbtest::kwb(
                     QStringList {QStringLiteral("gate"), slower, QStringLiteral("--tolerance"), QStringLiteral("20")}
                     + fail)
                     .exit_code,
            0);
        write_all(path("bad.json"), "{ not a study");
        QCOMPARE(kwbtest::kwb(QStringList {QStringLiteral("gate"), path("bad.json")} + fail).exit_code, 2);
        QCOMPARE(kwbtest::kwb(QStringList {QStringLiteral("gate"), path("absent.json")} + fail).exit_code, 2);
        QCOMPARE(kwbtest::kwb({QStringLiteral("gate"), slower, QStringLiteral("--fail-on"), QStringLiteral("kill")})
                     .exit_code,
            2);
    }
};

QTEST_GUILESS_MAIN(TestKwbLedger)
#include "tst_kwb_ledger.moc"
