// SPDX-License-Identifier: GPL-3.0-or-later
// The commit arms' panel of the A/B and Verdict pages (docs/git-arms.md), offscreen: the kernels'
// table from a fixture STUDY.kernels.json with a kernel whose registers differ (first, marked, its
// occupancy on the H200 from the engine), one identical kernel, and "no kernels read" with the
// notes; the builds and their logs from the cache's paths; the bisect path of a fixture study.
#include "models/kernel_table_model.h"
#include "pages/build_log_dialog.h"
#include "pages/commit_arms_panel.h"
#include "study/git_arm.h"
#include "study/git_cache_paths.h"
#include "study/kernel_inventory.h"
#include "study/study_file.h"
#include "verdict/bisect_progress.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

const std::string kGood = "1111111111111111111111111111111111111111";
const std::string kSlow = "2222222222222222222222222222222222222222";
const std::string kDocs = "3333333333333333333333333333333333333333";

GitArm commit(const std::string& sha, const std::string& ref)
{
    GitArm g;
    g.repo = "/src/myrepo";
    g.ref = ref;
    g.sha = sha;
    g.build = "make bench";
    g.toolchain.compiler = "c++ (Debian 14.2.0) 14.2.0";
    return g;
}

Experiment commitExperiment(const std::string& id, const GitArm& base, const GitArm& treat)
{
    Experiment e;
    e.id = id;
    e.kind = "ab";
    e.workload = "command";
    e.metric = "time_ms";
    for (const auto& [name, g] : {std::pair {"baseline", base}, {"treatment", treat}}) {
        Arm a;
        a.name = name;
        a.command = CommandSpec {};
        a.command->cmd = "./bench";
        set_git_arm(a, g);
        e.arms.push_back(std::move(a));
    }
    return e;
}

Study commitStudy()
{
    Study s;
    s.name = "commits";
    s.hardware.device_in_use = "NVIDIA H200";
    s.experiments.push_back(commitExperiment("ab-1", commit(kGood, "HEAD~2"), commit(kDocs, "HEAD")));
    return s;
}

KernelResource kernel(const std::string& name, int registers, const std::string& sass)
{
    KernelResource k;
    k.name = name;
    k.binary = "bench";
    k.arch = "sm_90";
    k.sass_sha256 = sass;
    k.registers = registers;
    k.static_smem_bytes = 0;
    k.local_bytes = 0;
    return k;
}

// A sample verdict bisect's rule calls bad (a regression well beyond the noise) or good (NOISE).
Experiment step(const std::string& id, const std::string& candidate, bool regression)
{
    Experiment e = commitExperiment(id, commit(kGood, kGood), commit(candidate, candidate));
    SampleVerdict v;
    v.word = regression ? VerdictWord::Kill : VerdictWord::Noise;
    v.rule = regression ? 5 : 4;
    v.delta_pct = regression ? -300.0 : 0.4;
    v.sigma_pct = 1.0;
    e.verdict = v;
    return e;
}

} // namespace

class TestCommitArmsPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString studyWithKernels(const QString& name, const KernelInventory& base, const KernelInventory& treat)
    {
        const QString path = m_dir.filePath(name);
        save_kernel_inventories(path.toStdString(), {{"ab-1", {{"baseline", base}, {"treatment", treat}}}});
        return path;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("KWB_GIT_CACHE", m_dir.filePath(u"cache"_s).toUtf8());
    }

    void differingKernelsComeFirstWithTheirOccupancy()
    {
        KernelInventory base, treat;
        base.source = treat.source = "cuobjdump";
        base.kernels = {kernel("_Z4copyPKfPfi", 16, "aaaa"), kernel("_Z6kernelPKfPfi", 18, "b1")};
        treat.kernels = {kernel("_Z4copyPKfPfi", 16, "aaaa"), kernel("_Z6kernelPKfPfi", 80, "b2")};
        const QString path = studyWithKernels(u"kernels.json"_s, base, treat);
        CommitArmsPanel panel;
        const Study s = commitStudy();
        panel.showExperiment(s, path, &s.experiments.front());
        QVERIFY(!panel.isHidden());
        KernelTableModel* model = panel.kernelModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 2);
        const auto text = [&](int row, int column) { return model->index(row, column).data().toString(); };
        // The differing kernel first, marked, demangled, each figure as baseline → treatment.
        QCOMPARE(text(0, KernelTableModel::Name), u"≠ kernel(float const*, float*, int)"_s);
        QVERIFY(model->index(0, 0).data(KernelTableModel::DiffersRole).toBool());
        QCOMPARE(text(0, KernelTableModel::Registers), u"18 → 80"_s);
        QCOMPARE(text(0, KernelTableModel::Local), u"0 B"_s);
        QCOMPARE(text(0, KernelTableModel::Sass), u"differs"_s);
        // 80 registers x 256 threads: the register file holds 3 blocks of 8 warps on an H200 (24 of 64).
        QCOMPARE(text(0, KernelTableModel::Occupancy), u"100% (threads) → 37.5% (registers)"_s);
        QCOMPARE(text(1, KernelTableModel::Name), u"copy(float const*, float*, int)"_s);
        QVERIFY(!model->index(1, 0).data(KernelTableModel::DiffersRole).toBool());
        QCOMPARE(text(1, KernelTableModel::Registers), u"16"_s);
        QCOMPARE(text(1, KernelTableModel::Sass), u"same"_s);
        // The verdict's resource reason, from the engine, and the tab's count.
        QVERIFY2(panel.kernelsNote().contains(u"registers 18 -> 80"_s), qPrintable(panel.kernelsNote()));
        QVERIFY(!panel.kernelsNote().contains(u"identical"_s));
        QCOMPARE(panel.tabs()->tabText(0), u"Kernels (2)"_s);
        QVERIFY(panel.commitsText().contains(u"111111"_s));
        QVERIFY(panel.commitsText().contains(u"(HEAD~2)"_s));
        const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            panel.resize(1100, 300);
            panel.show();
            QVERIFY(panel.grab().save(shots + u"/git-kernels-table.png"_s));
        }
    }

    void identicalSassSaysSo()
    {
        KernelInventory base;
        base.source = "cuobjdump";
        base.kernels = {kernel("_Z6kernelPKfPfi", 18, "same")};
        const QString path = studyWithKernels(u"same.json"_s, base, base);
        CommitArmsPanel panel;
        const Study s = commitStudy();
        panel.showExperiment(s, path, &s.experiments.front());
        QCOMPARE(panel.kernelModel()->rowCount(), 1);
        QVERIFY2(panel.kernelsNote().contains(u"SASS is identical in both arms (1 kernel)"_s),
            qPrintable(panel.kernelsNote()));
    }

    void noKernelsReadShowsTheNotes()
    {
        KernelInventory none;
        none.notes = {"cuobjdump is not on PATH"};
        const QString path = studyWithKernels(u"none.json"_s, none, none);
        CommitArmsPanel panel;
        const Study s = commitStudy();
        panel.showExperiment(s, path, &s.experiments.front());
        QCOMPARE(panel.kernelModel()->rowCount(), 0);
        QVERIFY2(panel.kernelsNote().startsWith(u"No kernels read"_s), qPrintable(panel.kernelsNote()));
        QVERIFY(panel.kernelsNote().contains(u"baseline: cuobjdump is not on PATH"_s));
        // Unsaved, or never run: no kernels read, and why.
        panel.showExperiment(s, QString(), &s.experiments.front());
        QVERIFY(panel.kernelsNote().contains(u"not saved"_s));
        panel.showExperiment(s, m_dir.filePath(u"never-run.json"_s), &s.experiments.front());
        QVERIFY2(panel.kernelsNote().contains(u"never-run.kernels.json has none for ab-1"_s),
            qPrintable(panel.kernelsNote()));
    }

    void buildsListTheirLogsAndOpenThem()
    {
        CommitArmsPanel panel;
        const Study s = commitStudy();
        panel.showExperiment(s, QString(), &s.experiments.front());
        QTableWidget* builds = panel.buildsTable();
        QCOMPARE(builds->rowCount(), 2);
        QCOMPARE(builds->item(0, 0)->text(), u"baseline"_s);
        QCOMPARE(builds->item(0, 1)->text(), QString::fromStdString(kGood.substr(0, 12)));
        QCOMPARE(builds->item(1, 2)->text(), u"HEAD"_s);
        QCOMPARE(builds->item(1, 3)->text(), u"make bench"_s);
        // The log path is the build cache's own (study/git_cache_paths.h); not built yet here.
        const auto paths = git::commit_cache_paths(*git_arm_of(s.experiments.front().arms[0]));
        const QString log = QString::fromStdString(paths.log.string());
        QVERIFY(log.startsWith(m_dir.filePath(u"cache"_s)));
        QVERIFY(builds->item(0, 4)->text().endsWith(u"(not built here)"_s));
        BuildLogDialog* missing = panel.openBuildLog(0);
        QVERIFY(missing);
        QVERIFY(missing->logText().isEmpty());
        QVERIFY(missing->missingReason().contains(log));
        missing->close();
        // Once the cache holds the log, the viewer shows its text.
        QVERIFY(QDir().mkpath(QString::fromStdString(paths.log.parent_path().string())));
        QFile f(log);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("$ make bench\n# in /wt\nc++ -O2 bench.cpp\n# ok\n");
        f.close();
        panel.showExperiment(s, QString(), &s.experiments.front());
        QCOMPARE(builds->item(0, 4)->text(), log);
        BuildLogDialog* shown = panel.openBuildLog(0);
        QVERIFY(shown->logText().contains(u"c++ -O2 bench.cpp"_s));
        QVERIFY(shown->missingReason().isEmpty());
        shown->close();
    }

    void bisectPathShowsEachStepAndTheRangeLeft()
    {
        Study s = commitStudy();
        s.experiments.push_back(step("bisect-1", kSlow, true));
        CommitArmsPanel panel;
        panel.showExperiment(s, QString(), &s.experiments.back());
        QTableWidget* path = panel.bisectTable();
        QCOMPARE(path->rowCount(), 1);
        QCOMPARE(path->item(0, 0)->text(), u"bisect-1"_s);
        QCOMPARE(path->item(0, 1)->text(), QString::fromStdString(kSlow.substr(0, 12)));
        QCOMPARE(path->item(0, 2)->text(), u"bad"_s);
        QVERIFY(path->item(0, 3)->text().startsWith(u"regression"_s));
        QCOMPARE(panel.tabs()->tabText(panel.tabs()->count() - 1), u"Bisect path (1 steps)"_s);
        QVERIFY2(panel.bisectRangeText().contains(u"First bad commit so far: 222222222222"_s),
            qPrintable(panel.bisectRangeText()));
        QVERIFY(panel.bisectRangeText().contains(u"after 111111111111"_s));
        const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            panel.tabs()->setCurrentIndex(panel.tabs()->count() - 1);
            panel.resize(1100, 280);
            panel.show();
            QVERIFY(panel.grab().save(shots + u"/git-bisect-path.png"_s));
        }
        // A study without steps has no bisect tab.
        panel.showExperiment(commitStudy(), QString(), &commitStudy().experiments.front());
        QCOMPARE(panel.tabs()->count(), 2);
    }

    void bisectProgressFollowsTheSearch()
    {
        Study s = commitStudy();
        s.experiments.push_back(step("bisect-1", kSlow, false));
        BisectProgress p = bisect_progress(s);
        QCOMPARE(p.range_low, kSlow);
        QVERIFY(p.range_high.empty());
        QCOMPARE(p.commits_left, -1);
        // With the search's commits (what git::commits_between gives kwb bisect): nothing is left
        // between the good step and bad, so bad is the first bad commit.
        p = bisect_progress(s, {kSlow, kDocs});
        QCOMPARE(p.commits_left, 0);
        QCOMPARE(p.first_bad, kDocs);
        // The same from the study alone: kwb bisect records the search after each call.
        s.experiments.back().bisect = BisectStepRecord {kDocs, 2, 0};
        p = bisect_progress(s);
        QCOMPARE(p.commits_left, 0);
        QCOMPARE(p.first_bad, kDocs);
        QCOMPARE(p.bad_sha, kDocs);
        {
            CommitArmsPanel ended;
            ended.showExperiment(s, QString(), &s.experiments.back());
            QVERIFY2(ended.bisectRangeText().contains(u"First bad commit: 333333333333. The search over 2 commit(s) "
                                                      u"ended after 1 step(s)"_s),
                qPrintable(ended.bisectRangeText()));
            s.experiments.back().bisect->commits_left = 1; // one more commit to test: not ended
            ended.showExperiment(s, QString(), &s.experiments.back());
            QVERIFY2(ended.bisectRangeText().contains(u"1 commit(s) left to test, after 222222222222 up to "
                                                      u"333333333333"_s),
                qPrintable(ended.bisectRangeText()));
            QVERIFY(!bisect_progress(s).first_bad.size());
            s.experiments.back().bisect.reset();
        }
        // Inconclusive twice at one commit: the search stopped.
        Experiment twice = step("bisect-2", kDocs, false);
        twice.verdict->word = VerdictWord::Inconclusive;
        twice.verdict->rule = 2;
        s.experiments.push_back(twice);
        twice.id = "bisect-3";
        s.experiments.push_back(twice);
        p = bisect_progress(s);
        QCOMPARE(p.steps.size(), std::size_t(3));
        QVERIFY(p.stopped_inconclusive);
        CommitArmsPanel panel;
        panel.showExperiment(s, QString(), nullptr);
        QVERIFY(!panel.isHidden());
        QCOMPARE(panel.tabs()->count(), 1);
        QVERIFY2(panel.bisectRangeText().contains(u"Stopped: INCONCLUSIVE twice at 333333333333"_s),
            qPrintable(panel.bisectRangeText()));
    }

    void hiddenForOtherStudies()
    {
        Study s;
        Experiment e;
        e.id = "ab-1";
        e.workload = "gemm";
        s.experiments.push_back(e);
        CommitArmsPanel panel;
        panel.showExperiment(s, QString(), &s.experiments.front());
        QVERIFY(panel.isHidden());
    }
};

QTEST_MAIN(TestCommitArmsPanel)
#include "tst_commit_arms_panel.moc"
