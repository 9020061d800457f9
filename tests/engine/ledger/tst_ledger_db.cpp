// SPDX-License-Identifier: GPL-3.0-or-later
// The ledger's database (ledger/ledger_db.h, ledger_index.h, ledger_query.h): where it lives, its
// migrations (the A/A history imported), a database built from study files and rebuilt from them,
// filters, and what concurrent and killed writers leave: every indexed experiment, never half a
// study's rows.
#include "ledger/ledger_index.h"
#include "ledger/ledger_query.h"
#include "ledger_studies.h"
#include "run/aa_history.h"

#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace kwb;
using namespace kwb::ledger;

namespace {

std::filesystem::path in(const QTemporaryDir& dir, const char* name)
{
    return dir.filePath(QString::fromUtf8(name)).toStdString();
}

long long count(Database& db, const std::string& sql)
{
    auto s = db.prepare(sql);
    s.step();
    return s.integer(0);
}

std::filesystem::path no_history(const QTemporaryDir& dir)
{
    return in(dir, "no-aa-history.jsonl");
}

} // namespace

class TestLedgerDb : public QObject {
    Q_OBJECT
private slots:
    void livesUnderTheXdgDataDirectoryOrKwbLedger()
    {
        const QByteArray oldOwn = qgetenv("KWB_LEDGER"), oldData = qgetenv("XDG_DATA_HOME"), oldHome = qgetenv("HOME");
        qunsetenv("KWB_LEDGER");
        qputenv("XDG_DATA_HOME", "/tmp/data");
        QCOMPARE(ledger_path().string(), std::string("/tmp/data/kernel-workbench/ledger.sqlite"));
        qputenv("XDG_DATA_HOME", "relative/ignored");
        qputenv("HOME", "/home/u");
        QCOMPARE(ledger_path().string(), std::string("/home/u/.local/share/kernel-workbench/ledger.sqlite"));
        qputenv("KWB_LEDGER", "/tmp/own.sqlite");
        QCOMPARE(ledger_path().string(), std::string("/tmp/own.sqlite"));
        qputenv("KWB_LEDGER", oldOwn);
        qputenv("XDG_DATA_HOME", oldData);
        qputenv("HOME", oldHome);
        if (oldOwn.isEmpty())
            qunsetenv("KWB_LEDGER");
    }

    void migrationImportsTheAaHistoryOnce()
    {
        QTemporaryDir dir;
        const auto history = in(dir, "aa-history.jsonl");
        AaHistoryEntry e;
        e.at = "2026-11-30T23:00:00Z";
        e.device = {"cuda", "NVIDIA H200", "GPU-1", 0, "580"};
        e.study = "/s/a.json";
        e.experiment = "ab-1";
        e.n = 10;
        e.word = "NOISE";
        append_aa_history(history, e);
        e.experiment = "ab-2";
        e.word = "KILL";
        append_aa_history(history, e);
        {
            Database db(in(dir, "l.sqlite"), history);
            QCOMPARE(db.schema_version(), kLedgerSchemaVersion);
            const auto aa = aa_runs(db, "NVIDIA H200");
            QCOMPARE(aa.runs, 2);
            QCOMPARE(aa.false_alarms, 1);
        }
        e.experiment = "ab-3";
        append_aa_history(history, e); // after the migration: not imported again by an open
        Database again(in(dir, "l.sqlite"), history);
        QCOMPARE(aa_runs(again, "NVIDIA H200").runs, 2);
    }

    void refusesANewerSchema()
    {
        QTemporaryDir dir;
        {
            Database db(in(dir, "l.sqlite"), no_history(dir));
            db.exec("PRAGMA user_version = 99");
        }
        QVERIFY_THROWS_EXCEPTION(LedgerError, Database(in(dir, "l.sqlite"), no_history(dir)));
    }

    void buildsFromStudyFilesAndRebuilds()
    {
        QTemporaryDir dir;
        const auto studies = in(dir, "studies");
        std::filesystem::create_directories(studies / "deeper");
        std::filesystem::create_directories(studies / "a.json.parts");
        ledger_test::write_study(studies / "a.json", 2, 8.5); // faster
        ledger_test::write_study(studies / "deeper/b.json", 3, 10.8); // slower: KILL
        ledger_test::write_study(studies / "c.json", 1, 10.0, "AMD EPYC 9654");
        ledger_test::write_study(studies / "a.json.parts/ab-1.json", 1); // a part: not a study of its own
        std::ofstream(studies / "notes.json") << "{\"not\": \"a study\"}";
        Database db(in(dir, "l.sqlite"), no_history(dir));
        const auto r = import_dir(db, studies);
        QCOMPARE(r.studies, 3);
        QCOMPARE(r.experiments, 6);
        QCOMPARE(r.skipped.size(), size_t(1));
        QCOMPARE(count(db, "SELECT count(*) FROM experiments"), 6LL);

        const auto all = list_attempts(db, {});
        QCOMPARE(all.size(), size_t(6));
        const auto& first = all.front();
        QCOMPARE(first.kernel, std::string("vector add fp32"));
        QCOMPARE(first.hypotheses, std::vector<std::string> {"h1: coalescing"});
        QVERIFY(first.delta_pct && first.ci_lo && first.ci_hi && first.sigma_pct);
        QCOMPARE(first.n_baseline, 6);
        QVERIFY(!first.benchmark_key.empty());
        QCOMPARE(first.study_path, study_key(first.study_path)); // absolute

        Filter amd;
        amd.device = "epyc";
        QCOMPARE(list_attempts(db, amd).size(), size_t(1));
        Filter kills;
        kills.verdict = "kill";
        QCOMPARE(list_attempts(db, kills).size(), size_t(3));
        Filter early;
        early.until = "2026-11-01";
        QCOMPARE(list_attempts(db, early).size(), size_t(3)); // every study's ab-1
        Filter late;
        late.since = "2026-11-03";
        QCOMPARE(list_attempts(db, late).size(), size_t(1));
        Filter kernel;
        kernel.kernel = "VECTOR ADD";
        QCOMPARE(list_attempts(db, kernel).size(), size_t(6));
        Filter key;
        key.benchmark_key = first.benchmark_key.substr(0, first.benchmark_key.size() - 2); // a prefix names it
        QCOMPARE(list_attempts(db, key).size(), size_t(6));

        // The files are the source of truth: a study gone is dropped, the rest comes back as it was.
        std::filesystem::remove(studies / "c.json");
        db.exec("DELETE FROM experiments WHERE experiment_id = 'ab-2'"); // an index that lost rows
        const auto again = rebuild(db);
        QCOMPARE(again.studies, 2);
        QCOMPARE(again.dropped.size(), size_t(1));
        QCOMPARE(count(db, "SELECT count(*) FROM experiments"), 5LL);
    }

    void reindexingAStudyReplacesItsRows()
    {
        QTemporaryDir dir;
        const auto study = in(dir, "s.json");
        ledger_test::write_study(study, 3);
        Database db(in(dir, "l.sqlite"), no_history(dir));
        QCOMPARE(index_study(db, study, load_study(study)), 3);
        ledger_test::write_study(study, 1);
        QCOMPARE(index_study(db, study, load_study(study)), 1);
        QCOMPARE(count(db, "SELECT count(*) FROM experiments"), 1LL);
    }

    void aStudysRealAaJoinsTheAaRunsAndSurvivesARebuild()
    {
        QTemporaryDir dir;
        Study s;
        auto e = ledger_test::judged_experiment("ab-1", ledger_test::around(10.0, 1, 6, 0),
            ledger_test::around(10.0, 1, 6, 1), "NVIDIA H100", "2026-11-05T00:00:00Z");
        e.aa_verdict = judge_samples(ledger_test::around(10.0, 1, 6, 0), ledger_test::around(10.0, 1, 6, 3),
            make_profile("generic", Direction::Lower), false);
        s.experiments.push_back(std::move(e));
        const auto path = in(dir, "aa.json");
        save_study(s, path);
        Database db(in(dir, "l.sqlite"), no_history(dir));
        index_study(db, path, load_study(path));
        QCOMPARE(aa_runs(db, "NVIDIA H100").runs, 1);
        index_study(db, path, load_study(path)); // again: replaced, not added
        QCOMPARE(aa_runs(db, "NVIDIA H100").runs, 1);
        rebuild(db);
        QCOMPARE(aa_runs(db, "NVIDIA H100").runs, 1);
    }

    void twoConcurrentWritersLoseNothing()
    {
        QTemporaryDir dir;
        const auto db_path = in(dir, "l.sqlite");
        const auto history = no_history(dir);
        std::vector<Study> studies;
        for (int i = 0; i < 2; ++i) {
            ledger_test::write_study(in(dir, "s.json"), 2);
            studies.push_back(load_study(in(dir, "s.json")));
        }
        {
            Database create(db_path, history);
        }
        std::vector<pid_t> writers;
        for (int w = 0; w < 2; ++w) {
            const pid_t pid = fork();
            QVERIFY(pid >= 0);
            if (pid == 0) {
                int code = 0;
                try {
                    Database db(db_path, history);
                    for (int i = 0; i < 40; ++i)
                        index_study(db, fmt::format("/w{}/study-{}.json", w, i), studies[static_cast<size_t>(w)]);
                } catch (...) {
                    code = 1;
                }
                _exit(code);
            }
            writers.push_back(pid);
        }
        for (const pid_t pid : writers) {
            int status = 0;
            QCOMPARE(waitpid(pid, &status, 0), pid);
            QVERIFY(WIFEXITED(status));
            QCOMPARE(WEXITSTATUS(status), 0); // neither failed on a busy database
        }
        Database db(db_path, history);
        QCOMPARE(count(db, "SELECT count(DISTINCT study_path) FROM experiments"), 80LL);
        QCOMPARE(count(db, "SELECT count(*) FROM experiments"), 160LL);
    }

    void aKilledWriterLeavesEveryIndexedExperiment()
    {
        QTemporaryDir dir;
        const auto db_path = in(dir, "l.sqlite");
        const auto history = no_history(dir);
        ledger_test::write_study(in(dir, "kept.json"), 3);
        ledger_test::write_study(in(dir, "big.json"), 25);
        const Study kept = load_study(in(dir, "kept.json"));
        const Study big = load_study(in(dir, "big.json"));
        {
            Database db(db_path, history);
            index_study(db, in(dir, "kept.json"), kept);
        }
        int ready[2];
        QCOMPARE(pipe(ready), 0);
        const pid_t pid = fork();
        QVERIFY(pid >= 0);
        if (pid == 0) { // writes for ever: the kept study again and again, new big studies
            close(ready[0]);
            try {
                Database db(db_path, history);
                for (long i = 0;; ++i) {
                    index_study(db, in(dir, "kept.json"), kept);
                    index_study(db, fmt::format("/big/{}.json", i), big);
                    if (i == 3 && write(ready[1], "x", 1) != 1)
                        _exit(2);
                }
            } catch (...) {
                _exit(1);
            }
        }
        close(ready[1]);
        char byte = 0;
        QCOMPARE(read(ready[0], &byte, 1), ssize_t(1));
        close(ready[0]);
        usleep(20'000); // somewhere inside a write, most likely: it writes all the time
        QCOMPARE(kill(pid, SIGKILL), 0);
        int status = 0;
        QCOMPARE(waitpid(pid, &status, 0), pid);
        QVERIFY(WIFSIGNALED(status));

        Database db(db_path, history);
        auto check = db.prepare("PRAGMA integrity_check");
        QVERIFY(check.step());
        QCOMPARE(check.text(0), std::string("ok"));
        QCOMPARE(count(db,
                     fmt::format(
                         "SELECT count(*) FROM experiments WHERE study_path = '{}'", study_key(in(dir, "kept.json")))),
            3LL);
        // A big study is there whole or not at all.
        QCOMPARE(count(db,
                     "SELECT count(*) FROM (SELECT study_path, count(*) AS n FROM experiments WHERE study_path "
                     "LIKE '/big/%' GROUP BY study_path HAVING n != 25)"),
            0LL);
        QVERIFY(count(db, "SELECT count(DISTINCT study_path) FROM experiments WHERE study_path LIKE '/big/%'") >= 4);
    }
};

QTEST_GUILESS_MAIN(TestLedgerDb)
#include "tst_ledger_db.moc"
