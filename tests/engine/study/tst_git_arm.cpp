// SPDX-License-Identifier: GPL-3.0-or-later
// A commit arm's commit as the study's own field (schema 8, Arm::git, docs/git-arms.md): written and
// read back, migrated out of a version 7 arm's environment (KWB_GIT_*), refused on an arm that is
// neither a command nor a worker, named by the arm diff, and handed to the program at launch.
#include "study/arm_diff.h"
#include "study/git_arm.h"
#include "study/study_file.h"
#include "study/study_text.h"

#include <QTest>
#include <fmt/format.h>

using namespace kwb;
using nlohmann::json;

namespace {

GitArm commit(const std::string& sha)
{
    return {"/src/repo", "HEAD~1", sha, "", "make", {"g++ 13.3.0", "release 13.0", "580.95"}};
}

// A version 7 study whose command arms keep their commit in their environment, as kwb new wrote it.
const char* kVersion7 = R"({"schema_version": 7, "name": "v7", "experiments": [{"id": "ab-1",
    "workload": "command", "metric": "time_ms", "arms": [
    {"name": "baseline", "params": {}, "command": {"cmd": "./bench", "env": {"KWB_GIT_REPO": "/src/repo",
      "KWB_GIT_REF": "HEAD~1", "KWB_GIT_SHA": "aaaa", "KWB_GIT_BUILD": "make", "KWB_GIT_CXX": "g++ 13.3.0",
      "KWB_GIT_CUDA": "", "KWB_GIT_DRIVER": "580.95", "OMP_NUM_THREADS": "4"}}},
    {"name": "treatment", "params": {}, "command": {"cmd": "./bench", "env": {"KWB_GIT_REPO": "/src/repo",
      "KWB_GIT_REF": "WORKTREE", "KWB_GIT_SHA": "bbbb", "KWB_GIT_DIFF_SHA256": "d1ff", "KWB_GIT_BUILD": "make",
      "KWB_GIT_CXX": "g++ 13.3.0", "KWB_GIT_CUDA": "", "KWB_GIT_DRIVER": "580.95", "OMP_NUM_THREADS": "4"}}},
    {"name": "plain", "params": {}, "command": {"cmd": "./other", "env": {"OMP_NUM_THREADS": "4"}}}]}]})";

} // namespace

class TestGitArm : public QObject {
    Q_OBJECT

private slots:
    void savedAndReadBack()
    {
        Study s;
        s.name = "x";
        Experiment e;
        e.id = "ab-1";
        e.workload = "command";
        e.metric = "time_ms";
        for (const char* name : {"baseline", "treatment"}) {
            Arm a;
            a.name = name;
            a.command = CommandSpec {};
            a.command->cmd = "./bench";
            e.arms.push_back(a);
        }
        set_git_arm(e.arms[0], commit("aaaa"));
        GitArm worktree = commit("bbbb");
        worktree.ref = kWorktreeRef;
        worktree.diff_sha256 = "d1ff";
        set_git_arm(e.arms[1], worktree);
        s.experiments.push_back(e);
        const json saved = json::parse(study_text(s));
        const json& arm = saved["experiments"][0]["arms"][1];
        QCOMPARE(arm["git"]["sha"].get<std::string>(), std::string("bbbb"));
        QCOMPARE(arm["git"]["toolchain"]["driver"].get<std::string>(), std::string("580.95"));
        QVERIFY(arm["command"]["env"].empty()); // not in the environment
        const Study back = parse_study(study_text(s), "x.json");
        QCOMPARE(*git_arm_of(back.experiments[0].arms[0]), commit("aaaa"));
        QCOMPARE(*git_arm_of(back.experiments[0].arms[1]), worktree);
    }

    // Schema 7 -> 8: KWB_GIT_* leave the environment for the arm's `git`; other variables stay.
    void version7MigratesOutOfTheEnvironment()
    {
        QVERIFY(kStudySchemaVersion >= 8);
        const Study s = parse_study(kVersion7, "v7.json");
        QCOMPARE(s.schema_version, kStudySchemaVersion);
        const auto& arms = s.experiments.at(0).arms;
        QCOMPARE(git_arm_of(arms[0])->sha, std::string("aaaa"));
        QCOMPARE(git_arm_of(arms[0])->toolchain.compiler, std::string("g++ 13.3.0"));
        QCOMPARE(git_arm_of(arms[1])->diff_sha256, std::string("d1ff"));
        QCOMPARE(git_arm_of(arms[1])->ref, std::string(kWorktreeRef));
        QVERIFY(!git_arm_of(arms[2]));
        for (const auto& a : arms)
            QCOMPARE(a.command->env, (std::map<std::string, std::string> {{"OMP_NUM_THREADS", "4"}}));
        const json saved = json::parse(study_text(s));
        QCOMPARE(saved["schema_version"].get<int>(), kStudySchemaVersion);
        QVERIFY(saved["experiments"][0]["arms"][0].contains("git"));
        QVERIFY(!saved["experiments"][0]["arms"][2].contains("git"));
    }

    void refusedWhereItCannotBe_data()
    {
        QTest::addColumn<QString>("arm");
        QTest::addColumn<QString>("field");
        QTest::addRow("a parameter arm") << R"({"name": "a", "params": {}, "git": {"sha": "aaaa"}})"
                                         << "git";
        QTest::addRow("no sha") << R"({"name": "a", "command": {"cmd": "x"}, "git": {"ref": "HEAD"}})"
                                << "sha";
        QTest::addRow("empty sha") << R"({"name": "a", "command": {"cmd": "x"}, "git": {"sha": ""}})"
                                   << "sha";
        QTest::addRow("not an object") << R"({"name": "a", "command": {"cmd": "x"}, "git": "aaaa"})"
                                       << "git";
    }
    void refusedWhereItCannotBe()
    {
        QFETCH(QString, arm);
        QFETCH(QString, field);
        const std::string text = fmt::format(R"({{"schema_version": 8, "name": "x", "experiments": [{{"id": "a",
            "workload": "command", "metric": "time_ms", "arms": [{}]}}]}})",
            arm.toStdString());
        try {
            (void)parse_study(text, "bad.json");
            QFAIL("accepted");
        } catch (const StudyLoadError& e) {
            QVERIFY2(std::string(e.what()).find(field.toStdString()) != std::string::npos, e.what());
        }
    }

    // The arm diff sees the commit as the arm's settings; the A/A of one commit has none.
    void armDiffNamesTheCommit()
    {
        Arm b, t;
        b.command = t.command = CommandSpec {};
        set_git_arm(b, commit("aaaa"));
        set_git_arm(t, commit("bbbb"));
        QCOMPARE(diff_arm_pair(b, t).names(), std::string("git.sha"));
        set_git_arm(t, commit("aaaa"));
        QVERIFY(diff_arm_pair(b, t).differences.empty());
        GitArm other = commit("aaaa");
        other.build = "make -j";
        set_git_arm(t, other);
        QCOMPARE(diff_arm_pair(b, t).names(), std::string("git.build"));
        b.command.reset(), t.command.reset();
        b.worker = t.worker = WorkerSpec {};
        QCOMPARE(diff_arm_pair(b, t).names(), std::string("git.build"));
    }

    // What the program finds in its environment when kwb launches it; nothing for other arms.
    void launchEnvironment()
    {
        Arm a;
        a.command = CommandSpec {};
        QVERIFY(git_environment(a).empty());
        set_git_arm(a, commit("aaaa"));
        const auto env = launch_environment(a, {{"OMP_NUM_THREADS", "4"}, {"KWB_GIT_SHA", "stale"}});
        QCOMPARE(env.at("KWB_GIT_SHA"), std::string("aaaa"));
        QCOMPARE(env.at("KWB_GIT_CXX"), std::string("g++ 13.3.0"));
        QCOMPARE(env.at("OMP_NUM_THREADS"), std::string("4"));
        QVERIFY(!env.count("KWB_GIT_DIFF_SHA256")); // WORKTREE only
        Arm plain;
        plain.git = commit("aaaa"); // not a command or worker arm: no commit
        QVERIFY(!git_arm_of(plain));
        QVERIFY(git_environment(plain).empty());
    }
};

QTEST_GUILESS_MAIN(TestGitArm)
#include "tst_git_arm.moc"
