// SPDX-License-Identifier: GPL-3.0-or-later
// File > New A/B from two commits offscreen, as a user would (docs/git-arms.md): a repository of three
// commits made here (the second makes its CPU kernel 4x slower, as in tst_kwb_git), the dialog filled
// and Create pressed; kwb new (a child) refuses a ref that does not resolve, a dirty tree and one
// commit twice (an A/A) in its own line with the dialog open, then makes the study, which the window
// saves and shows on the A/B page with both commits and their builds. After kwb run the builds' logs
// open in the viewer, and the kernels' tab says no kernels were read (no cuobjdump here) and why.
#include "main_window.h"
#include "models/kernel_table_model.h"
#include "pages/ab_page.h"
#include "pages/build_log_dialog.h"
#include "pages/commit_arms_panel.h"
#include "pages/git_ab_dialog.h"
#include "pages/verdict_page.h"
#include "study/git_arm.h"
#include "study/study_file.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

const QString kKwb = QStringLiteral(KWB_BIN_DIR "/kwb");
const QString kBenchSource = QStringLiteral(KWB_GIT_BENCH_SOURCE);
const QString kBuild = u"c++ -O1 -DWORK=$(cat work) bench.cpp -o bench"_s;
constexpr int kKwbTimeout = 300000; // generous: 2 shared cores, other suites in parallel

QByteArray sh(const QString& dir, const QString& line)
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(u"/bin/sh"_s, {u"-c"_s, line});
    p.waitForFinished(120000);
    if (p.exitCode() != 0)
        qWarning("%s: %s", qPrintable(line), p.readAllStandardError().constData());
    return p.readAllStandardOutput().trimmed();
}

void write(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

void type(QWidget* dialog, const char* name, const QString& text)
{
    auto* edit = dialog->findChild<QLineEdit*>(QString::fromLatin1(name));
    QVERIFY(edit);
    edit->clear();
    QTest::keyClicks(edit, text);
}

} // namespace

class TestGitAbWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_repo;
    QString m_slow; // the second commit's id

    // Presses Create and waits for kwb new; true when the dialog accepted.
    bool create(GitAbDialog* dialog)
    {
        QSignalSpy done(dialog, &GitAbDialog::createFinished);
        dialog->findChild<QPushButton*>(u"gitAbCreate"_s)->click();
        if (done.isEmpty() && !done.wait(kKwbTimeout))
            return false;
        return done.first().first().toBool();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("KWB_PROGRAM", kKwb.toUtf8());
        qputenv("KWB_GIT_CACHE", m_dir.filePath(u"cache"_s).toUtf8());
        qputenv("XDG_STATE_HOME", m_dir.filePath(u"state"_s).toUtf8());
        qputenv("KWB_CUOBJDUMP", m_dir.filePath(u"no-cuobjdump"_s).toUtf8()); // as on a machine without it
        m_repo = m_dir.filePath(u"repo"_s);
        QVERIFY(QDir().mkpath(m_repo));
        QFile source(kBenchSource);
        QVERIFY(source.open(QIODevice::ReadOnly));
        write(m_repo + u"/bench.cpp"_s, source.readAll());
        write(m_repo + u"/work"_s, "1\n");
        sh(m_repo,
            u"git init -q && git config user.email t@example.com && git config user.name t && git add -A && "
            "git commit -qm base"_s);
        write(m_repo + u"/work"_s, "4\n");
        sh(m_repo, u"git commit -qam slow"_s);
        write(m_repo + u"/README"_s, "docs\n");
        sh(m_repo, u"git add README && git commit -qm docs"_s);
        m_slow = QString::fromUtf8(sh(m_repo, u"git rev-parse HEAD~1"_s));
        QCOMPARE(m_slow.size(), 40);
    }

    void theDialogShowsKwbsRefusalsThenMakesTheStudy()
    {
        MainWindow w;
        w.setOfferAutosave(false);
        w.resize(1280, 800);
        w.show();
        const QString path = m_dir.filePath(u"commits.json"_s);
        w.setLeaveAsker([](LeaveQuestion) { return LeaveAnswer::Discard; });
        w.setSavePathAsker([path](const QString&) { return path; });
        // The A/B page's button opens the same dialog as File > New A/B from two commits.
        auto* action = w.findChild<QAction*>(u"newGitAbAction"_s);
        QVERIFY(action && action->isEnabled());
        w.abPage()->findChild<QPushButton*>(u"newGitAb"_s)->click();
        auto* dialog = w.findChild<GitAbDialog*>();
        QVERIFY(dialog && dialog->isVisible());

        // Empty repository: the dialog's own one line, no kwb.
        QVERIFY(!create(dialog));
        QVERIFY2(dialog->lastError().startsWith(u"Repository:"_s), qPrintable(dialog->lastError()));

        type(dialog, "gitAbRepo", m_repo);
        type(dialog, "gitAbBaseline", u"HEAD~2"_s);
        type(dialog, "gitAbTreatment", u"no-such-ref"_s);
        type(dialog, "gitAbBuild", kBuild);
        type(dialog, "gitAbProgram", u"./bench"_s);
        dialog->findChild<QSpinBox*>(u"gitAbRuns"_s)->setValue(4);
        QVERIFY(!create(dialog));
        QVERIFY(dialog->isVisible());
        QVERIFY2(dialog->lastError().contains(u"no-such-ref"_s), qPrintable(dialog->lastError()));

        // One commit twice: the runnability rule's A/A refusal, in kwb's words.
        type(dialog, "gitAbTreatment", u"HEAD~2"_s);
        QVERIFY(!create(dialog));
        QVERIFY2(dialog->lastError().contains(u"A/A"_s), qPrintable(dialog->lastError()));

        // A dirty tree is refused unless Allow dirty, which makes WORKTREE a side.
        write(m_repo + u"/README"_s, "changed\n");
        type(dialog, "gitAbTreatment", u"HEAD~1"_s);
        QVERIFY(!create(dialog));
        QVERIFY2(dialog->lastError().contains(u"--allow-dirty"_s), qPrintable(dialog->lastError()));
        sh(m_repo, u"git checkout -q README"_s);

        const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
        if (!shots.isEmpty())
            QVERIFY(dialog->grab().save(shots + u"/git-ab-dialog.png"_s));
        QVERIFY2(create(dialog), qPrintable(dialog->lastError()));
        QTRY_VERIFY(QFile::exists(path));

        // The saved study is kwb new's: both commits resolved, the build command recorded.
        const Study s = load_study(QFile::encodeName(path).toStdString());
        QCOMPARE(s.experiments.size(), std::size_t(1));
        const Experiment& e = s.experiments.front();
        QVERIFY(is_git_experiment(e));
        QCOMPARE(e.plan.runs_per_arm, 4);
        const GitArm treat = *git_arm_of(e.arms[1]);
        QCOMPARE(QString::fromStdString(treat.sha), m_slow);
        QCOMPARE(QString::fromStdString(treat.build), kBuild);

        // The A/B page shows the commits and the two builds, not built yet.
        CommitArmsPanel* panel = w.abPage()->commitArmsPanel();
        QVERIFY(panel->isVisible());
        QVERIFY2(panel->commitsText().contains(m_slow.left(7) + u" (HEAD~1)"_s), qPrintable(panel->commitsText()));
        QCOMPARE(panel->buildsTable()->rowCount(), 2);
        QVERIFY(panel->buildsTable()->item(1, 4)->text().endsWith(u"(not built here)"_s));
    }

    void afterARunTheLogsOpenAndTheKernelsSayWhyNone()
    {
        const QString path = m_dir.filePath(u"commits.json"_s);
        QVERIFY(QFile::exists(path));
        QProcess run;
        run.start(kKwb, {u"run"_s, path});
        QVERIFY(run.waitForFinished(kKwbTimeout));
        QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());

        MainWindow w;
        w.setOfferAutosave(false);
        w.resize(1280, 800);
        QVERIFY(w.openStudy(path));
        w.show();
        QVERIFY(w.showView(u"5"_s));
        CommitArmsPanel* panel = w.abPage()->commitArmsPanel();
        QVERIFY(panel->isVisible());
        QTableWidget* builds = panel->buildsTable();
        QCOMPARE(builds->rowCount(), 2);
        QVERIFY(!builds->item(1, 4)->text().endsWith(u"(not built here)"_s));
        BuildLogDialog* log = panel->openBuildLog(1);
        QVERIFY(log);
        QVERIFY2(log->logText().contains(u"$ "_s + kBuild), qPrintable(log->logText()));
        QVERIFY(log->logText().contains(u"# commit "_s + m_slow));
        const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            QVERIFY(log->grab().save(shots + u"/git-build-log.png"_s));
            panel->tabs()->setCurrentIndex(1);
            QVERIFY(w.grab().save(shots + u"/git-ab-page.png"_s));
        }
        log->close();
        // No cuobjdump here: no kernels read, and the inventory's note says so.
        QCOMPARE(panel->kernelModel()->rowCount(), 0);
        QVERIFY2(panel->kernelsNote().startsWith(u"No kernels read"_s), qPrintable(panel->kernelsNote()));
        QVERIFY2(panel->kernelsNote().contains(u"cuobjdump"_s), qPrintable(panel->kernelsNote()));
        // The Verdict page shows the same panel beside its verdict.
        QVERIFY(w.showView(u"8"_s));
        QVERIFY(w.verdictPage()->commitArmsPanel()->isVisible());
        QVERIFY(w.verdictPage()->commitArmsPanel()->kernelsNote().startsWith(u"No kernels read"_s));
    }
};

QTEST_MAIN(TestGitAbWindow)
#include "tst_git_ab_window.moc"
