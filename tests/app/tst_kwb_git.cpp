// SPDX-License-Identifier: GPL-3.0-or-later
// Commit arms (docs/git-arms.md) as a user runs them: a small C++ repository of three commits made
// here (the second makes its CPU kernel 4x slower), a two-commit study through kwb new and kwb run to
// a verdict, the build cache reused, the kernels' inventory of a machine without cuobjdump, kwb
// bisect to the slow commit, and every refusal (exit 2) and a failed build (exit 1, its log named).
#include "kwb_process.h"

#include <QJsonArray>
#include <QTemporaryDir>

using namespace kwbtest;

namespace {

QString L(const char* text)
{
    return QString::fromUtf8(text);
}

// Runs a shell line in `dir`; the test fails on a non-zero exit.
QByteArray sh(const QString& dir, const QString& line)
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(L("/bin/sh"), {L("-c"), line});
    p.waitForFinished(120000);
    if (p.exitCode() != 0)
        qWarning("%s: %s", qPrintable(line), p.readAllStandardError().constData());
    return p.readAllStandardOutput().trimmed();
}

const QString kBenchSource = QStringLiteral(KWB_GIT_BENCH_SOURCE);

const QString kBuild = QStringLiteral("c++ -O1 -DWORK=$(cat work) bench.cpp -o bench");

} // namespace

class TestKwbGit : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString repo_;
    QString shas_[3];

    Result make(const QString& out, const QStringList& extra, const QString& base = L("HEAD~2"),
        const QString& treat = L("HEAD"), const QString& build = kBuild)
    {
        return kwb(QStringList {L("new"), L("--repo"), repo_, L("--git-baseline"), base, L("--git-treatment"), treat,
                       L("--build"), build, L("--cmd"), L("./bench"), L("--runs"), L("6"), L("--out"), out}
            + extra);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        qputenv("KWB_GIT_CACHE", dir_.filePath(L("cache")).toUtf8());
        qputenv("XDG_STATE_HOME", dir_.filePath(L("state")).toUtf8());
        qputenv("KWB_CUOBJDUMP", dir_.filePath(L("no-cuobjdump")).toUtf8()); // as on a machine without it
        repo_ = dir_.filePath(L("repo"));
        QDir().mkpath(repo_);
        write_all(repo_ + L("/bench.cpp"), read_all(kBenchSource));
        write_all(repo_ + L("/work"), "1\n");
        sh(repo_,
            L("git init -q && git config user.email t@example.com && git config user.name t && git add -A && "
              "git commit -qm base"));
        write_all(repo_ + L("/work"), "4\n"); // the CPU kernel's loop runs 4x longer
        sh(repo_, L("git commit -qam slow"));
        write_all(repo_ + L("/README"), "docs\n");
        sh(repo_, L("git add README && git commit -qm docs"));
        for (int i = 0; i < 3; ++i)
            shas_[i] = QString::fromUtf8(sh(repo_, QStringLiteral("git rev-parse HEAD~%1").arg(2 - i)));
    }

    void two_commits_reach_a_verdict_and_reuse_their_builds()
    {
        const QString study = dir_.filePath(L("ab.json"));
        auto r = make(study, {});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        auto s = load(study);
        auto arms = s[L("experiments")].toArray()[0].toObject()[L("arms")].toArray();
        // Schema 8: the commit is the arm's own field, not its environment (docs/git-arms.md).
        const auto git = [&](int i) { return arms[i].toObject()[L("git")].toObject(); };
        QCOMPARE(git(0)[L("sha")].toString(), shas_[0]);
        QCOMPARE(git(1)[L("sha")].toString(), shas_[2]);
        QCOMPARE(git(1)[L("build")].toString(), kBuild);
        QVERIFY(!git(0)[L("toolchain")].toObject()[L("compiler")].toString().isEmpty());
        for (int i = 0; i < 2; ++i)
            for (const auto& key : arms[i].toObject()[L("command")].toObject()[L("env")].toObject().keys())
                QVERIFY2(!key.startsWith(L("KWB_GIT_")), qPrintable(key));
        r = kwb({L("run"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.err.contains(QByteArray(QByteArray("built ") + shas_[0].left(7).toUtf8())), r.err.constData());
        s = load(study);
        const auto e = s[L("experiments")].toArray()[0].toObject();
        // 4x slower: KILL, unless this shared machine's noise trips the stability rule (rule 2) or the
        // bimodality check (a CPU whose clock moves between processes), which the delta must then
        // still show.
        const auto v = e[L("verdict")].toObject();
        const bool noisy
            = v[L("rule")].toInt() == 2 || v[L("bimodal_baseline")].toBool() || v[L("bimodal_treatment")].toBool();
        QVERIFY2(v[L("verdict")].toString() == L("KILL") || (v[L("verdict")].toString() == L("INCONCLUSIVE") && noisy),
            QJsonDocument(v[L("reasons")].toArray()).toJson().constData());
        QVERIFY2(v[L("delta_pct")].toDouble() < -150, QByteArray::number(v[L("delta_pct")].toDouble()).constData());
        arms = e[L("arms")].toArray();
        QVERIFY(arms[0].toObject()[L("command")].toObject()[L("cwd")].toString().startsWith(dir_.filePath(L("cache"))));
        // The kernels' inventory of a machine without cuobjdump: said, nothing invented.
        const auto kernels = QJsonDocument::fromJson(read_all(dir_.filePath(L("ab.kernels.json")))).object();
        const auto base = kernels[L("experiments")].toObject()[L("ab-1")].toObject()[L("baseline")].toObject();
        QVERIFY(base[L("kernels")].toArray().isEmpty());
        QVERIFY(base[L("notes")].toArray()[0].toString().contains(L("cuobjdump")));
        // The same commits and build command again: both builds reused.
        const QString again = dir_.filePath(L("again.json"));
        QCOMPARE(make(again, {}).exit_code, 0);
        r = kwb({L("run"), again});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.err.count("reused the build of") == 2, r.err.constData());
        // A changed build command builds again.
        const QString changed = dir_.filePath(L("changed.json"));
        QCOMPARE(make(changed, {}, L("HEAD~2"), L("HEAD"), kBuild + L(" -g0")).exit_code, 0);
        r = kwb({L("run"), changed});
        QVERIFY2(r.exit_code == 0 && !r.err.contains("reused"), r.err.constData());
        // The report says what the kernels' diff could say.
        r = kwb({L("report"), study, L("--format"), L("md"), L("--out"), dir_.filePath(L("r.md"))});
        QVERIFY2(r.exit_code == 0, r.err.constData());
    }

    void bisect_finds_the_slow_commit()
    {
        const QString study = dir_.filePath(L("bisect.json"));
        QCOMPARE(make(study, {}).exit_code, 0);
        const auto r = kwb({L("bisect"), study, L("--good"), shas_[0], L("--bad"), shas_[2]});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains(QByteArray(QByteArray("first bad commit: ") + shas_[1].toUtf8())), r.out.constData());
        const auto s = load(study);
        QJsonObject newest;
        for (const auto& e : s[L("experiments")].toArray())
            if (e.toObject()[L("id")].toString().startsWith(L("bisect-")))
                newest = e.toObject(); // every step is an experiment of the study
        QVERIFY(!newest.isEmpty());
        // The search as the study records it: over the two commits after good, nothing left, so a
        // reader without the repository knows the search ended.
        const auto search = newest[L("bisect")].toObject();
        QCOMPARE(search[L("bad_sha")].toString(), shas_[2]);
        QCOMPARE(search[L("commits_in_range")].toInt(), 2);
        QCOMPARE(search[L("commits_left")].toInt(), 0);
    }

    // The program still finds its commit in its environment: kwb sets KWB_GIT_* when it launches it.
    void the_commit_is_in_the_programs_environment()
    {
        const QString study = dir_.filePath(L("env.json"));
        const QString seen = dir_.filePath(L("seen"));
        const auto r0 = kwb({L("new"), L("--repo"), repo_, L("--git-baseline"), L("HEAD~2"), L("--git-treatment"),
            L("HEAD"), L("--build"), kBuild, L("--cmd"), QStringLiteral("echo $KWB_GIT_SHA >> %1; ./bench").arg(seen),
            L("--runs"), L("2"), L("--out"), study});
        QVERIFY2(r0.exit_code == 0, r0.err.constData());
        const auto r = kwb({L("run"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QString lines = QString::fromUtf8(read_all(seen));
        QVERIFY2(lines.contains(shas_[0]) && lines.contains(shas_[2]), qPrintable(lines));
    }

    // kwb bisect takes the study's lock as kwb run does: while another process holds it, a bisect
    // and a run of that study are each refused with one line, exit 2, and the study is untouched.
    void bisect_takes_the_study_lock()
    {
        const QString study = dir_.filePath(L("locked.json"));
        QCOMPARE(make(study, {}).exit_code, 0);
        const QByteArray before = read_all(study);
        QProcess holder; // flock(1) holds the sidecar's flock, as a running kwb would
        holder.start(L("flock"), {L("-o"), dir_.filePath(L(".locked.json.lock")), L("-c"), L("echo held; sleep 60")});
        QVERIFY(holder.waitForReadyRead(10000));
        const auto bisect = kwb({L("bisect"), study, L("--good"), shas_[0], L("--bad"), shas_[2]});
        const auto run = kwb({L("run"), study});
        holder.kill();
        holder.waitForFinished();
        for (const auto* r : {&bisect, &run}) {
            QCOMPARE(r->exit_code, 2);
            QVERIFY2(r->err.contains("is being run by") && r->err.trimmed().count('\n') == 0, r->err.constData());
        }
        QCOMPARE(read_all(study), before);
        // Released: the bisect runs.
        QCOMPARE(kwb({L("bisect"), study, L("--good"), shas_[0], L("--bad"), shas_[1]}).exit_code, 0);
    }

    void refusals_exit_2()
    {
        const QString out = dir_.filePath(L("refused.json"));
        auto r = make(out, {}, L("HEAD"), L("HEAD")); // one commit twice: an A/A, asked for by --aa-arm only
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("A/A"), r.err.constData());
        QVERIFY(!QFile::exists(out));
        QCOMPARE(make(dir_.filePath(L("aa.json")), {L("--aa-arm")}, L("HEAD"), L("HEAD")).exit_code, 0);
        r = make(out, {}, L("no-such-ref"));
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("no-such-ref") && r.err.count('\n') == 1, r.err.constData());
        r = kwb({L("new"), L("--repo"), dir_.filePath(L("missing")), L("--git-baseline"), L("HEAD"),
            L("--git-treatment"), L("HEAD~1"), L("--build"), L("true"), L("--cmd"), L("./bench"), L("--out"), out});
        QCOMPARE(r.exit_code, 2);
        write_all(repo_ + L("/work"), "2\n"); // a dirty tree
        r = make(out, {});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("--allow-dirty"), r.err.constData());
        QVERIFY(!QFile::exists(out));
        r = make(dir_.filePath(L("worktree.json")), {L("--allow-dirty")}, L("HEAD"), L("WORKTREE"));
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto arms
            = load(dir_.filePath(L("worktree.json")))[L("experiments")].toArray()[0].toObject()[L("arms")].toArray();
        QCOMPARE(arms[1].toObject()[L("git")].toObject()[L("diff_sha256")].toString().size(), 64);
        sh(repo_, L("git checkout -q work"));
    }

    void failed_build_exits_1_naming_its_log()
    {
        const QString study = dir_.filePath(L("broken.json"));
        QCOMPARE(make(study, {}, L("HEAD~2"), L("HEAD"), L("echo broken-build-output; exit 3")).exit_code, 0);
        const auto r = kwb({L("run"), study});
        QCOMPARE(r.exit_code, 1);
        const int at = r.err.indexOf("log: ");
        QVERIFY2(at >= 0, r.err.constData());
        const QString log = QString::fromUtf8(r.err.mid(at + 5).trimmed());
        QVERIFY2(read_all(log).contains("broken-build-output"), qPrintable(log));
    }
};

QTEST_GUILESS_MAIN(TestKwbGit)
#include "tst_kwb_git.moc"
