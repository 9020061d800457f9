// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 5 end to end: the window runs a short CPU A/B through the real `kwb run --json-progress`
// child, offscreen; and a stop mid-run keeps the finished repetitions.
#include "main_window.h"
#include "models/run_controller.h"
#include "pages/live_page.h"
#include "pages/results_page.h"
#include "pages/verdict_page.h"
#include "pages/verdict_story_view.h"
#include "plots/distribution_plot.h"
#include "plots/live_plot.h"
#include "plots/verdict_badge.h"
#include "study/study_file.h"
#include "workbench_test_util.h"

#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
const QString kKwb = QStringLiteral(KWB_BIN_DIR "/kwb");
constexpr int kRunTimeout = 300000; // generous: 2 shared cores, other suites in parallel

bool kwbSucceeds(const QStringList& args, QString* err = nullptr)
{
    QProcess p;
    p.start(kKwb, args);
    const bool ok = p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    if (err)
        *err = QString::fromUtf8(p.readAllStandardError());
    return ok;
}
} // namespace

class TestWorkbenchRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void shortCpuAbThroughTheRealChild();
    void stopMidRunKeepsFinishedRepetitions();
    void runOnTheFinishedDemoAddsAnAttempt();
    void addRunsContinuesTheExperimentToTheEstimatedN();

private:
    QString newStudy(const QString& name, int runs);
    QTemporaryDir m_dir;
};

void TestWorkbenchRun::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    // kwb is built beside the workbench: its missing `run` or `new` is a defect, not a skip.
    QVERIFY2(kwbSucceeds({u"run"_s, u"--help"_s}), "kwb run --help failed");
    QVERIFY2(kwbSucceeds({u"new"_s, u"--help"_s}), "kwb new --help failed");
    qputenv("KWB_PROGRAM", kKwb.toUtf8());
}

QString TestWorkbenchRun::newStudy(const QString& name, int runs)
{
    const QString path = m_dir.filePath(name);
    QString err;
    if (!kwbSucceeds({u"new"_s, u"--workload"_s, u"gemm"_s, u"--vary"_s, u"block=32,128"_s, u"--runs"_s,
                         QString::number(runs), u"--out"_s, path},
            &err))
        qWarning("kwb new failed: %s", qPrintable(err));
    // The window keeps Run locked until phase 1's target and phase 4's prediction exist.
    kwb::Study s = kwb::load_study(QFile::encodeName(path).toStdString());
    s.target.metric = s.experiments.at(0).metric;
    s.target.current = 30;
    s.target.goal = 20;
    s.prediction.formula = "30"; // the stored prediction is always the formula's value
    s.prediction.predicted_delta_pct = 30;
    kwb::save_study(s, QFile::encodeName(path).toStdString());
    return path;
}

void TestWorkbenchRun::shortCpuAbThroughTheRealChild()
{
    const QString path = newStudy(u"ab.json"_s, 3);
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY2(w.openStudy(path), qPrintable(w.document()->lastError()));

    // What the live plot held while the child ran (the stream), before the reload replaced it.
    int liveBaseline = 0;
    int liveTreatment = 0;
    QTimer watch;
    connect(&watch, &QTimer::timeout, this, [&] {
        if (w.runController()->isRunning()) {
            liveBaseline = std::max(liveBaseline, w.livePage()->plot()->pointCount(u"baseline"_s));
            liveTreatment = std::max(liveTreatment, w.livePage()->plot()->pointCount(u"treatment"_s));
        }
    });
    watch.start(20);
    w.run();
    QVERIFY2(w.runController()->isRunning(), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    watch.stop();
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));
    QVERIFY(w.shownError().isEmpty());
    QVERIFY2(liveBaseline > 0 && liveTreatment > 0, "both arms arrived live through the stream");

    // The window reloaded the study the child wrote.
    const kwb::Study& study = w.document()->study();
    const kwb::Experiment* e = w.document()->currentExperiment();
    QVERIFY(e);
    QCOMPARE(e->status, kwb::ExperimentStatus::Done);
    const auto nb = static_cast<int>(kwb::judged_values(*e, e->arms[0].name, e->metric).size());
    const auto nt = static_cast<int>(kwb::judged_values(*e, e->arms[1].name, e->metric).size());
    QVERIFY(nb >= 3 && nt >= 3);
    QCOMPARE(w.resultsPage()->distributionPlot()->pointCount(u"baseline"_s), nb);
    QCOMPARE(w.resultsPage()->distributionPlot()->pointCount(u"treatment"_s), nt);
    // After the run the live view replays the recorded samples (it drew the stream before).
    QCOMPARE(w.livePage()->plot()->pointCount(u"baseline"_s), nb);
    QCOMPARE(w.livePage()->plot()->pointCount(u"treatment"_s), nt);

    // The verdict shown is the engine's for the same samples and profile.
    QVERIFY(e->verdict.has_value());
    const auto engine = kwb::test::engineSampleVerdict(study, *e, e->verdict->paired.has_value());
    QCOMPARE(w.verdictPage()->sampleVerdict(), QString::fromStdString(std::string(to_string(engine.word))));
    QCOMPARE(w.verdictPage()->sampleVerdict(), QString::fromStdString(std::string(to_string(e->verdict->word))));
    QCOMPARE(w.verdictPage()->finalVerdict(), QString::fromStdString(std::string(to_string(e->final_verdict->word))));
    QCOMPARE(w.resultsPage()->badge()->verdict(), w.verdictPage()->finalVerdict());
    QCOMPARE(w.currentView(), u"results"_s); // the end of the run lands on the distributions
    QVERIFY(std::abs(*e->verdict->delta_pct - to_json(engine).at("delta_pct").get<double>()) < 1e-9);
}

void TestWorkbenchRun::stopMidRunKeepsFinishedRepetitions()
{
    const QString path = newStudy(u"stop.json"_s, 40);
    MainWindow w;
    w.show();
    QVERIFY2(w.openStudy(path), qPrintable(w.document()->lastError()));
    w.resize(1280, 800);
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(w.runController()->done() >= 2, kRunTimeout);
    // For the docs: KWB_SCREENSHOT_DIR=docs/screenshots saves the live view mid-run.
    const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
        QTRY_VERIFY_WITH_TIMEOUT(w.runController()->done() >= 24, kRunTimeout);
        QTest::qWait(100);
        QVERIFY(w.grab().save(shots + u"/live-midrun.png"_s));
    }
    w.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QCOMPARE(w.runController()->lastStatus(), u"stopped"_s);
    QCOMPARE(w.runController()->lastExitCode(), 130);
    QVERIFY2(w.shownError().isEmpty(), qPrintable(w.shownError()));

    // On disk, not just in the window: the repetitions finished before the stop.
    const kwb::Study onDisk = kwb::load_study(QFile::encodeName(path).toStdString());
    const kwb::Experiment& e = onDisk.experiments.at(0);
    size_t judged = 0;
    for (const auto& arm : e.arms)
        judged += kwb::judged_values(e, arm.name, e.metric).size();
    QVERIFY2(judged >= 2 && judged < 80, qPrintable(QString::number(judged)));
    QCOMPARE(e.status, kwb::ExperimentStatus::Stopped);
    QCOMPARE(w.document()->currentExperiment()->samples.size(), e.samples.size());
}

void TestWorkbenchRun::runOnTheFinishedDemoAddsAnAttempt()
{
    // The README's first steps: open the demo, press Run, see a new attempt fill in.
    MainWindow w;
    int asked = 0;
    w.setFinishedRunAsker([&](const QString& id, const QString&) {
        ++asked;
        return id == u"ab-1"_s ? MainWindow::FinishedRunAnswer::NewAttempt : MainWindow::FinishedRunAnswer::Cancel;
    });
    w.show();
    QVERIFY(w.openDemo(false));
    QVERIFY(w.document()->saveAs(m_dir.filePath(u"demo.json"_s)));
    w.run();
    QCOMPARE(asked, 1); // finished: continue it, or a new attempt
    QVERIFY2(w.runController()->isRunning(), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));
    const kwb::Study& study = w.document()->study();
    QCOMPARE(study.experiments.size(), size_t {2});
    const kwb::Experiment* e = w.document()->currentExperiment();
    QCOMPARE(e->id, std::string("ab-2"));
    QCOMPARE(e->status, kwb::ExperimentStatus::Done);
    QVERIFY(!kwb::judged_values(*e, "baseline", e->metric).empty());
    QVERIFY(!kwb::judged_values(*e, "treatment", e->metric).empty());
    const auto engine = kwb::test::engineSampleVerdict(study, *e, e->verdict->paired.has_value());
    QCOMPARE(w.verdictPage()->sampleVerdict(), QString::fromStdString(std::string(to_string(engine.word))));
}

// Issue 31: an INCONCLUSIVE for too few runs offers "Add runs" (the engine's next step); the button
// continues the same experiment through `kwb run --continue --runs-per-arm N`, to that n per arm.
void TestWorkbenchRun::addRunsContinuesTheExperimentToTheEstimatedN()
{
    const QString path = newStudy(u"continue.json"_s, 2);
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY2(w.openStudy(path), qPrintable(w.document()->lastError()));
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));
    const kwb::Experiment* e = w.document()->currentExperiment();
    QVERIFY(e && e->verdict && e->final_verdict);
    const kwb::VerdictStory story = kwb::verdict_story(*e->final_verdict, *e->verdict);
    QCOMPARE(story.word, kwb::VerdictWord::Inconclusive);
    QCOMPARE(story.next.kind, kwb::NextStepKind::AddRuns);
    QVERIFY(story.next.runs_per_arm && *story.next.runs_per_arm > 2);
    const int target = *story.next.runs_per_arm;
    const std::string id = e->id;

    QCOMPARE(w.currentView(), u"results"_s);
    QPushButton* addRuns = w.resultsPage()->story()->nextStepButton();
    QVERIFY(addRuns->isVisible());
    QCOMPARE(addRuns->text(), QString::fromStdString(story.next.action));
    QTest::mouseClick(addRuns, Qt::LeftButton);
    QVERIFY2(w.runController()->isRunning(), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));

    // The same experiment, now at the estimated n per arm: no new attempt beside it.
    const kwb::Study& study = w.document()->study();
    QCOMPARE(study.experiments.size(), size_t {1});
    e = w.document()->currentExperiment();
    QCOMPARE(e->id, id);
    QCOMPARE(e->status, kwb::ExperimentStatus::Done);
    for (const auto& arm : e->arms)
        QCOMPARE(static_cast<int>(kwb::judged_values(*e, arm.name, e->metric).size()), target);
    QCOMPARE(w.resultsPage()->badge()->verdict(), QString::fromLatin1(kwb::to_string(e->final_verdict->word)));
}

QTEST_MAIN(TestWorkbenchRun)
#include "tst_workbench_run.moc"
