// SPDX-License-Identifier: GPL-3.0-or-later
// The window offscreen on the bundled demo, and the run loop against a stand-in kwb
// (tests/widgets/data/fake_kwb.sh): views, plots, verdict, run / stop / failure.
#include "main_window.h"
#include "models/arm_stats_model.h"
#include "models/run_controller.h"
#include "pages/live_page.h"
#include "pages/results_page.h"
#include "pages/verdict_page.h"
#include "plots/distribution_plot.h"
#include "plots/live_plot.h"
#include "plots/sigma_chart.h"
#include "plots/verdict_badge.h"
#include "remote_actions.h"
#include "study/study_file.h"
#include "workbench_test_util.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
constexpr int kTimeout = 60000;

// Run on the finished demo asks "continue or a new attempt?": these tests take a new attempt.
void answerNewAttempt(MainWindow& w, int* asked = nullptr)
{
    w.setFinishedRunAsker([asked](const QString&, const QString&) {
        if (asked)
            ++*asked;
        return MainWindow::FinishedRunAnswer::NewAttempt;
    });
}
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyViewIsReachable_data();
    void everyViewIsReachable();
    void demoViewsShowTheStudy();
    void resultsTableFitsAt1024x640();
    void verdictBadgesLeaveTheReasonsWhole_data();
    void verdictBadgesLeaveTheReasonsWhole();
    void runLoopWithAStandInChild();
    void runOnAFinishedStudyCanContinueIt();
    void stopKeepsTheWindowQuiet();
    void failedChildLeavesTheWindowUsable();
    void closingWithEditsAsksToSave();
    void closingDuringARunStopsItFirst();
    void badFileOnTheCommandLineOpensTheWindowWithTheBanner();

private:
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    qputenv("KWB_PROGRAM", KWB_WIDGETS_TEST_DATA "/fake_kwb.sh");
}

void TestMainWindow::everyViewIsReachable_data()
{
    QTest::addColumn<QString>("view");
    for (const auto& v : MainWindow::viewKeys())
        QTest::addRow("%s", qPrintable(v)) << v;
}

void TestMainWindow::everyViewIsReachable()
{
    QFETCH(QString, view);
    MainWindow w;
    QVERIFY(w.openDemo(false));
    QVERIFY(w.showView(view));
    QCOMPARE(w.currentView(), view);
    auto* nav = w.findChild<QListWidget*>(u"phaseNavigator"_s);
    QVERIFY(nav);
    QCOMPARE(nav->count(), 10);
    QVERIFY(!w.showView(u"9"_s));
}

void TestMainWindow::demoViewsShowTheStudy()
{
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openDemo(false));
    const kwb::Study& study = w.document()->study();
    const kwb::Experiment* e = w.document()->currentExperiment();
    QVERIFY(e);
    const auto nb = static_cast<int>(kwb::judged_values(*e, "baseline", e->metric).size());
    const auto nt = static_cast<int>(kwb::judged_values(*e, "treatment", e->metric).size());

    QCOMPARE(w.verdictPage()->finalVerdict(), QString::fromStdString(std::string(to_string(e->final_verdict->word))));
    QCOMPARE(w.verdictPage()->sampleVerdict(), QString::fromStdString(std::string(to_string(e->verdict->word))));
    // The demo's stored verdict is what the engine gives for its samples.
    const auto engine = kwb::test::engineSampleVerdict(study, *e, false);
    QCOMPARE(w.verdictPage()->sampleVerdict(), QString::fromStdString(std::string(to_string(engine.word))));

    QCOMPARE(w.resultsPage()->distributionPlot()->pointCount(u"baseline"_s), nb);
    QCOMPARE(w.resultsPage()->distributionPlot()->pointCount(u"treatment"_s), nt);
    QCOMPARE(w.resultsPage()->statsModel()->rowCount(), 2);
    QVERIFY(w.resultsPage()->sigmaChart()->hasDelta());
    QCOMPARE(w.resultsPage()->badge()->verdict(), w.verdictPage()->finalVerdict());

    w.showView(u"live"_s);
    QTRY_COMPARE_WITH_TIMEOUT(w.livePage()->plot()->pointCount(u"baseline"_s), nb, kTimeout);
    QCOMPARE(w.livePage()->plot()->pointCount(u"treatment"_s), nt);
    QVERIFY(w.livePage()->plot()->lanePointCount() > 0);
}

// Issue 11: the per-arm table scrolled sideways at 1024x640. Every column is at its contents'
// width (ResizeToContents) and the whole table fits, rows included, with no scroll bar.
void TestMainWindow::resultsTableFitsAt1024x640()
{
    MainWindow w;
    w.resize(1024, 640);
    w.show();
    QVERIFY(w.openDemo(false));
    QVERIFY(w.showView(u"results"_s));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QApplication::processEvents();
    QTableView* table = w.resultsPage()->statsTable();
    QVERIFY(table->isVisible());
    QCOMPARE(table->model()->columnCount(), int(ArmStatsModel::ColumnCount));
    QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
    QVERIFY(!table->horizontalScrollBar()->isVisible());
    QVERIFY2(table->horizontalHeader()->length() <= table->viewport()->width(),
        qPrintable(
            u"columns %1 px, view %2 px"_s.arg(table->horizontalHeader()->length()).arg(table->viewport()->width())));
    for (int c = 0; c < table->model()->columnCount(); ++c)
        QVERIFY(!table->isColumnHidden(c));
    QCOMPARE(table->verticalScrollBar()->maximum(), 0);
    QVERIFY(table->verticalHeader()->length() <= table->viewport()->height());
    // The unit still heads every number column.
    QVERIFY(table->model()->headerData(ArmStatsModel::Median, Qt::Horizontal).toString().contains(u"(ms)"_s));
}

void TestMainWindow::verdictBadgesLeaveTheReasonsWhole_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addRow("1024x640") << QSize(1024, 640);
    QTest::addRow("1920x1080") << QSize(1920, 1080);
}

// Issue 11: the badge never covers the reasons. The H200 A/B's final verdict gives two reasons,
// one of three lines at 1024x640: each badge ends above its reasons, and each reasons label is as
// tall as its wrapped text needs.
void TestMainWindow::verdictBadgesLeaveTheReasonsWhole()
{
    QFETCH(QSize, size);
    MainWindow w;
    w.setOfferAutosave(false);
    w.resize(size);
    w.show();
    QVERIFY(
        w.openStudy(QStringLiteral(KWB_SOURCE_DIR "/bench/results/2026-12-01-h200-final/studies/gemm-block_n.json")));
    QVERIFY(w.showView(u"8"_s));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QApplication::processEvents();
    VerdictPage* page = w.verdictPage();
    for (const auto& [badgeName, reasonsName] :
        {std::pair {"finalVerdictBadge", "finalReasons"}, std::pair {"finalVerdictBadge", "sampleReasons"}}) {
        auto* badge = page->findChild<QWidget*>(QLatin1StringView(badgeName));
        auto* reasons = page->findChild<QLabel*>(QLatin1StringView(reasonsName));
        QVERIFY(badge && reasons && badge->isVisible() && reasons->isVisible());
        QVERIFY(!reasons->text().isEmpty());
        QVERIFY2(!badge->geometry().intersects(reasons->geometry()), reasonsName);
        QVERIFY2(badge->geometry().bottom() < reasons->geometry().top(), reasonsName);
        QVERIFY2(reasons->height() >= reasons->heightForWidth(reasons->width()),
            qPrintable(u"%1: %2 px tall, its text needs %3"_s.arg(QLatin1StringView(reasonsName))
                           .arg(reasons->height())
                           .arg(reasons->heightForWidth(reasons->width()))));
    }
}

void TestMainWindow::runLoopWithAStandInChild()
{
    qputenv("FAKE_KWB_MODE", "done");
    MainWindow w;
    int asked = 0;
    answerNewAttempt(w, &asked);
    w.show();
    QVERIFY(w.openDemo(false));
    QVERIFY(w.document()->saveAs(m_dir.filePath(u"demo.json"_s)));
    QVERIFY(!w.document()->hasRunnableExperiment()); // the demo is finished: Run adds an attempt
    const auto before = w.document()->study().experiments.size();
    auto* runAction = w.findChild<QAction*>(u"runAction"_s);
    QVERIFY(runAction && runAction->isEnabled());
    runAction->trigger();
    QCOMPARE(asked, 1); // a finished experiment: continue it, or a new attempt
    QCOMPARE(w.currentView(), u"live"_s);
    QVERIFY(w.runController()->isRunning());
    QCOMPARE(w.document()->study().experiments.size(), before + 1);
    QVERIFY(!w.document()->isModified()); // saved before the child started
    QVERIFY(!runAction->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kTimeout);
    QCOMPARE(w.runController()->lastStatus(), u"done"_s);
    QCOMPARE(w.currentView(), u"results"_s); // the end of a run shows its distributions
    QVERIFY(w.shownError().isEmpty());
    QVERIFY(runAction->isEnabled());
}

// Issue 31: Run on a finished experiment asks; "continue" runs kwb run --continue on the same
// experiment (no new attempt is appended), with the question naming the experiment.
void TestMainWindow::runOnAFinishedStudyCanContinueIt()
{
    qputenv("FAKE_KWB_MODE", "done");
    const QString argsFile = m_dir.filePath(u"continue-args.txt"_s);
    qputenv("FAKE_KWB_ARGS", QFile::encodeName(argsFile));
    MainWindow w;
    QStringList asked;
    w.setFinishedRunAsker([&](const QString& id, const QString&) {
        asked << id;
        return MainWindow::FinishedRunAnswer::Continue;
    });
    w.show();
    QVERIFY(w.openDemo(false));
    const QString path = m_dir.filePath(u"continue.json"_s);
    QVERIFY(w.document()->saveAs(path));
    const auto before = w.document()->study().experiments.size();
    w.run();
    QCOMPARE(asked, QStringList {u"ab-1"_s});
    QCOMPARE(w.document()->study().experiments.size(), before); // the same experiment, continued
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kTimeout);
    qunsetenv("FAKE_KWB_ARGS");
    QFile f(argsFile);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString args = QString::fromUtf8(f.readAll()).trimmed();
    QVERIFY2(args.startsWith(u"run "_s) && args.contains(u"--continue"_s), qPrintable(args));
    QVERIFY(args.contains(QFileInfo(path).fileName()));
    // The demo is a LICENSE: no estimate to continue to, so kwb's own target (no --runs-per-arm).
    QVERIFY2(!args.contains(u"--runs-per-arm"_s), qPrintable(args));
    f.close();

    // Run on host asks the same question: cancelled, nothing starts; continued, kwb run --host
    // gets --continue (kwb passes it on to the remote kwb).
    w.setFinishedRunAsker([](const QString&, const QString&) { return MainWindow::FinishedRunAnswer::Cancel; });
    const RemoteHost fakeHost {u"fakehost"_s, {}, {}};
    QVERIFY(!w.remoteActions()->runOn(fakeHost));
    QVERIFY(!w.runController()->isRunning());
    QCOMPARE(w.document()->study().experiments.size(), before);
    w.setFinishedRunAsker([](const QString&, const QString&) { return MainWindow::FinishedRunAnswer::Continue; });
    QFile::remove(argsFile);
    qputenv("FAKE_KWB_ARGS", QFile::encodeName(argsFile));
    QVERIFY2(w.remoteActions()->runOn(fakeHost), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kTimeout);
    qunsetenv("FAKE_KWB_ARGS");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(u'\n', Qt::SkipEmptyParts).filter(u"run "_s);
    QVERIFY(!lines.isEmpty());
    QVERIFY2(lines.last().contains(u"--host fakehost"_s) && lines.last().contains(u"--continue"_s),
        qPrintable(lines.last()));
    QCOMPARE(w.document()->study().experiments.size(), before);
}

void TestMainWindow::stopKeepsTheWindowQuiet()
{
    qputenv("FAKE_KWB_MODE", "slow");
    MainWindow w;
    answerNewAttempt(w);
    w.show();
    QVERIFY(w.openDemo(false));
    QVERIFY(w.document()->saveAs(m_dir.filePath(u"stop.json"_s)));
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(w.livePage()->plot()->pointCount(u"baseline"_s) >= 2, kTimeout);
    auto* stopAction = w.findChild<QAction*>(u"stopAction"_s);
    QVERIFY(stopAction->isEnabled());
    stopAction->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kTimeout);
    QCOMPARE(w.runController()->lastStatus(), u"stopped"_s);
    QVERIFY(w.shownError().isEmpty()); // a stop is not an error
}

void TestMainWindow::failedChildLeavesTheWindowUsable()
{
    qputenv("FAKE_KWB_MODE", "fail");
    MainWindow w;
    answerNewAttempt(w);
    w.show();
    QVERIFY(w.openDemo(false));
    QVERIFY(w.document()->saveAs(m_dir.filePath(u"fail.json"_s)));
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kTimeout);
    QVERIFY2(w.shownError().contains(u"device lost"_s), qPrintable(w.shownError()));
    QVERIFY(w.showView(u"8"_s));
    QVERIFY(!w.verdictPage()->finalVerdict().isEmpty()); // the study is still there
    qputenv("FAKE_KWB_MODE", "done");
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kTimeout);
    QCOMPARE(w.runController()->lastStatus(), u"done"_s);
}

void TestMainWindow::closingWithEditsAsksToSave()
{
    MainWindow w;
    QList<LeaveQuestion> asked;
    LeaveAnswer answer = LeaveAnswer::Cancel;
    w.setLeaveAsker([&](LeaveQuestion q) {
        asked << q;
        return answer;
    });
    w.show();
    QVERIFY(w.openDemo(false));
    const QString path = m_dir.filePath(u"edits.json"_s);
    QVERIFY(w.document()->saveAs(path));
    const std::string savedName = w.document()->study().name;
    QVERIFY(w.close()); // saved: nothing to ask
    QVERIFY(asked.isEmpty());

    w.show();
    w.document()->mutableStudy().name = "edited";
    w.document()->markModified();
    QVERIFY(!w.close()); // Cancel: the window stays with its edits
    QVERIFY(w.isVisible());
    QCOMPARE(asked, QList<LeaveQuestion> {LeaveQuestion::SaveChanges});
    QVERIFY(w.document()->isModified());

    answer = LeaveAnswer::Discard;
    QVERIFY(w.maySwitchStudy()); // New / Open: Discard lets the edits go
    QVERIFY(w.close());
    QCOMPARE(kwb::load_study(QFile::encodeName(path).toStdString()).name, savedName); // nothing written

    w.show();
    answer = LeaveAnswer::Accept;
    QVERIFY(w.close()); // Save, then close
    QCOMPARE(kwb::load_study(QFile::encodeName(path).toStdString()).name, std::string("edited"));
    QVERIFY(!w.document()->isModified());
}

void TestMainWindow::closingDuringARunStopsItFirst()
{
    qputenv("FAKE_KWB_MODE", "slow");
    MainWindow w;
    answerNewAttempt(w);
    QList<LeaveQuestion> asked;
    LeaveAnswer answer = LeaveAnswer::Cancel;
    w.setLeaveAsker([&](LeaveQuestion q) {
        asked << q;
        return answer;
    });
    w.show();
    QVERIFY(w.openDemo(false));
    QVERIFY(w.document()->saveAs(m_dir.filePath(u"close-run.json"_s)));
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(w.livePage()->plot()->pointCount(u"baseline"_s) >= 2, kTimeout);
    // New / Open wait for the run: the child owns the file.
    QVERIFY(!w.maySwitchStudy());
    QVERIFY(asked.isEmpty());

    QVERIFY(!w.close()); // Cancel: the run goes on
    QCOMPARE(asked, QList<LeaveQuestion> {LeaveQuestion::StopRun});
    QVERIFY(w.runController()->isRunning());
    QVERIFY(w.isVisible());

    answer = LeaveAnswer::Accept;
    QVERIFY(!w.close()); // Stop: the window waits for the child to save, then closes itself
    QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), kTimeout);
    QCOMPARE(w.runController()->lastStatus(), u"stopped"_s);
    QCOMPARE(asked.size(), 2);
}

// Issue 31: `kernel-workbench garbage.json` from a file manager: the window opens with the error
// banner and the recent studies to pick from (main.cpp exits 2 only for --screenshot,
// tst_workbench_cli's badInputExits2).
void TestMainWindow::badFileOnTheCommandLineOpensTheWindowWithTheBanner()
{
    const QString good = m_dir.filePath(u"recent-demo.json"_s);
    {
        MainWindow first;
        first.setOfferAutosave(false);
        QVERIFY(first.openDemo(false));
        QVERIFY(first.document()->saveAs(good));
        QVERIFY(first.openStudy(good)); // now in the recent studies
    }
    const QString garbage = m_dir.filePath(u"garbage.json"_s);
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is { not a study");
    f.close();

    MainWindow w;
    w.setOfferAutosave(false);
    w.show();
    QVERIFY(!w.openFromCommandLine(garbage));
    QVERIFY2(w.shownError().contains(garbage), qPrintable(w.shownError()));
    QListWidget* recent = w.recentList();
    QVERIFY(recent && recent->isVisible());
    QListWidgetItem* item = nullptr;
    for (int i = 0; i < recent->count(); ++i)
        if (recent->item(i)->data(Qt::UserRole).toString() == good)
            item = recent->item(i);
    QVERIFY2(item, "the recent study is offered");
    emit recent->itemActivated(item);
    QCOMPARE(w.document()->filePath(), good);
    QVERIFY(w.shownError().isEmpty());
    QVERIFY(!recent->isVisible());
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
