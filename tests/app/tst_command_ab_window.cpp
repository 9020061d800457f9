// SPDX-License-Identifier: GPL-3.0-or-later
// File > New command A/B offscreen, as a user would: the dialog's command-arm editor fills both
// arms (command, folder, environment, timeout, check, adapter, metric), Create goes through the
// engine's command::new_command_study (what kwb new --baseline-cmd runs) and the study is saved;
// then the window runs it through the real kwb child to a verdict on the stand-in benchmark
// (tests/engine/workloads/standin_bench.cpp, its --sequence noise fixed so no verdict is luck).
#include "main_window.h"
#include "models/run_controller.h"
#include "pages/ab_page.h"
#include "pages/command_ab_dialog.h"
#include "pages/command_arm_editor.h"
#include "pages/verdict_page.h"
#include "study/study_file.h"
#include "workloads/command/command_study.h"

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

const QString kStandin = QStringLiteral(KWB_STANDIN);
const QString kKwb = QStringLiteral(KWB_BIN_DIR "/kwb");
constexpr int kRunTimeout = 300000; // generous: 2 shared cores, other suites in parallel

void type(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    edit->clear();
    QTest::keyClicks(edit, text);
    emit edit->editingFinished();
    edit->clearFocus();
}

void choose(QComboBox* box, const QString& text)
{
    box->setCurrentText(text);
    emit box->activated(box->currentIndex());
}

struct ArmFields {
    QString command;
    QString env;
    double timeout = 0;
    QString check;
};

void fillArm(CommandArmEditor* editor, int arm, const ArmFields& f, const QString& cwd)
{
    editor->setArmIndex(arm);
    type(editor->findChild<QLineEdit*>(u"commandLine"_s), f.command);
    type(editor->findChild<QLineEdit*>(u"commandCwd"_s), cwd);
    type(editor->findChild<QLineEdit*>(u"commandEnv"_s), f.env);
    auto* timeout = editor->findChild<QDoubleSpinBox*>(u"commandTimeout"_s);
    timeout->setValue(f.timeout);
    emit timeout->editingFinished();
    type(editor->findChild<QLineEdit*>(u"commandCheck"_s), f.check);
}

QString standin(const QString& args)
{
    return kStandin + u' ' + args;
}

} // namespace

class TestCommandAbWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void fileMenuMakesASavedCommandStudy();
    void abPageButtonOpensTheSameDialog();
    void commandAbRunsToAVerdict();

private:
    // Drives File > New command A/B to a saved study at `path`; returns the dialog's last refusal
    // before Create succeeded (for the first test) through `refusal`.
    bool makeStudy(MainWindow& w, const QString& path, const ArmFields& base, const ArmFields& treat,
        const QString& adapter, const QString& metric, QString* refusal = nullptr);
    QTemporaryDir m_dir;
};

void TestCommandAbWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    qputenv("KWB_PROGRAM", kKwb.toUtf8());
}

bool TestCommandAbWindow::makeStudy(MainWindow& w, const QString& path, const ArmFields& base, const ArmFields& treat,
    const QString& adapter, const QString& metric, QString* refusal)
{
    w.setLeaveAsker([](LeaveQuestion) { return LeaveAnswer::Discard; });
    w.setSavePathAsker([path](const QString&) { return path; });
    auto* action = w.findChild<QAction*>(u"newCommandAbAction"_s);
    if (!action || !action->isEnabled())
        return false;
    action->trigger();
    auto* dialog = w.findChild<CommandAbDialog*>();
    if (!dialog || !dialog->isVisible())
        return false;
    CommandArmEditor* editor = dialog->armEditor();
    auto* create = dialog->findChild<QPushButton*>(u"commandAbCreate"_s);

    // Only the baseline filled: the engine refuses, naming the treatment arm; the dialog stays.
    fillArm(editor, 0, base, m_dir.path());
    create->click();
    if (refusal)
        *refusal = dialog->lastError();
    if (!dialog->isVisible())
        return false;

    fillArm(editor, 1, treat, m_dir.path());
    choose(editor->findChild<QComboBox*>(u"commandAdapter"_s), adapter);
    auto* metricBox = editor->findChild<QComboBox*>(u"commandMetric"_s);
    choose(metricBox, metric);
    if (!editor->lastRefusal().isEmpty()) {
        qWarning("editor refused: %s", qPrintable(editor->lastRefusal()));
        return false;
    }
    auto* runs = dialog->findChild<QSpinBox*>(u"commandAbRuns"_s);
    runs->setValue(6);
    type(dialog->findChild<QLineEdit*>(u"commandAbName"_s), u"my bench: a vs b"_s);
    const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        dialog->grab().save(shots + u"/command-ab-dialog.png"_s);
    create->click();
    if (dialog->isVisible() || !dialog->lastError().isEmpty()) {
        qWarning("create refused: %s", qPrintable(dialog->lastError()));
        return false;
    }
    return QFile::exists(path);
}

void TestCommandAbWindow::fileMenuMakesASavedCommandStudy()
{
    MainWindow w;
    w.setOfferAutosave(false);
    w.resize(1024, 640);
    w.show();
    const QString path = m_dir.filePath(u"made.json"_s);
    const ArmFields base {standin(u"--format vllm --mean 80 --out {out}"_s), u"KWB_TEST=1 MODE=a"_s, 45, u"true"_s};
    const ArmFields treat {standin(u"--format vllm --mean 60 --out {out}"_s), u"KWB_TEST=1 MODE=b"_s, 45, u"true"_s};
    QString refusal;
    QVERIFY(makeStudy(w, path, base, treat, u"vllm"_s, u"ttft_ms"_s, &refusal));
    QVERIFY2(refusal.startsWith(u"Treatment arm:"_s), qPrintable(refusal));

    // The saved file holds the arms as typed, in the shape kwb new writes.
    const Study s = load_study(QFile::encodeName(path).toStdString());
    QCOMPARE(s.name, std::string("my bench: a vs b"));
    QCOMPARE(s.experiments.size(), std::size_t(1));
    const Experiment& e = s.experiments.front();
    QCOMPARE(e.workload, std::string("command"));
    QCOMPARE(e.metric, std::string("ttft_ms"));
    QCOMPARE(e.plan.runs_per_arm, 6);
    QCOMPARE(e.plan.min_rep_ms, 0.0);
    QCOMPARE(e.arms.size(), std::size_t(2));
    QCOMPARE(e.arms[0].name, std::string("baseline"));
    QCOMPARE(e.arms[1].name, std::string("treatment"));
    for (std::size_t i = 0; i < 2; ++i) {
        const ArmFields& f = i == 0 ? base : treat;
        QVERIFY(e.arms[i].command.has_value());
        const CommandSpec& c = *e.arms[i].command;
        QCOMPARE(QString::fromStdString(c.cmd), f.command);
        QCOMPARE(QString::fromStdString(c.cwd), m_dir.path());
        QCOMPARE(c.env.at("KWB_TEST"), std::string("1"));
        QCOMPARE(c.env.at("MODE"), std::string(i == 0 ? "a" : "b"));
        QCOMPARE(c.timeout_s, 45.0);
        QCOMPARE(c.check, std::string("true"));
        QCOMPARE(c.adapter, std::string("vllm"));
    }
    QCOMPARE(s.target.metric, std::string("ttft_ms"));
    QCOMPARE(s.target.direction, Direction::Lower);
    // The same request to the engine gives the same arms: the dialog added no rule of its own.
    command::CommandStudyRequest r;
    r.baseline = *e.arms[0].command;
    r.treatment = *e.arms[1].command;
    r.metric = "ttft_ms";
    r.plan.runs_per_arm = 6;
    const Study engine = command::new_command_study(r);
    QCOMPARE(engine.experiments.front().arms[0].command->cmd, e.arms[0].command->cmd);
    QCOMPARE(engine.target.unit, s.target.unit);
    QCOMPARE(engine.experiments.front().plan.runs_per_arm, e.plan.runs_per_arm);

    // The window shows it unmodified on the A/B page: the command editor and the commands' diff,
    // no parameter table and no "varied parameter".
    QCOMPARE(w.document()->filePath(), path);
    QVERIFY(!w.document()->isModified());
    QCOMPARE(w.currentView(), u"5"_s);
    AbPage* page = w.abPage();
    QVERIFY(page->commandArmEditor()->isVisible());
    QVERIFY(!page->findChild<QTableWidget*>(u"armsTable"_s)->isVisible());
    QVERIFY(!page->findChild<QComboBox*>(u"abVaried"_s)->isVisible());
    const QString diff = page->findChild<QLabel*>(u"armDiff"_s)->text();
    QVERIFY2(diff.contains(u"command line"_s) && diff.contains(u"environment MODE: a  →  b"_s), qPrintable(diff));
    QVERIFY2(!diff.contains(u"KWB_TEST"_s), qPrintable(diff)); // the same on both arms: not a difference
    // At 1024x640 the page scrolls down but never sideways: everything fits the width. Qt hides a
    // scroll bar whose range went to 0 by a queued call, so a grab taken before the event loop
    // runs shows a stale one; the width check does not depend on that timing.
    auto* area = qobject_cast<QScrollArea*>(page->parentWidget()->parentWidget());
    QVERIFY(area);
    QVERIFY2(page->minimumSizeHint().width() <= area->viewport()->width(),
        qPrintable(u"the A/B page needs %1 px, the window gives it %2"_s.arg(page->minimumSizeHint().width())
                       .arg(area->viewport()->width())));
    QTRY_VERIFY(!area->horizontalScrollBar()->isVisible());
    const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        w.grab().save(shots + u"/command-ab-page-1024.png"_s);
}

void TestCommandAbWindow::abPageButtonOpensTheSameDialog()
{
    MainWindow w;
    w.setOfferAutosave(false);
    w.setLeaveAsker([](LeaveQuestion) { return LeaveAnswer::Discard; });
    w.show();
    w.showView(u"5"_s);
    auto* button = w.abPage()->findChild<QPushButton*>(u"newCommandAb"_s);
    QVERIFY(button && button->isVisible());
    button->click();
    auto* dialog = w.findChild<CommandAbDialog*>();
    QVERIFY(dialog && dialog->isVisible());
    // Cancel leaves the window's study as it was.
    const std::string before = w.document()->study().name;
    dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Cancel)->click();
    QVERIFY(!dialog->isVisible());
    QCOMPARE(w.document()->study().name, before);
}

void TestCommandAbWindow::commandAbRunsToAVerdict()
{
    MainWindow w;
    w.setOfferAutosave(false);
    w.resize(1280, 800);
    w.show();
    const QString path = m_dir.filePath(u"run.json"_s);
    // gbench time: the treatment 30 % faster, 1 % noise from the fixed sequence.
    const auto arm = [&](double mean, const char* name) {
        return ArmFields {standin(u"--format gbench --mean %1 --noise 0.01 --sequence '%2/%3.seq'"_s.arg(mean).arg(
                              m_dir.path(), QString::fromLatin1(name))),
            QString(), 60, u"true"_s};
    };
    QVERIFY(makeStudy(w, path, arm(10, "baseline"), arm(7, "treatment"), u"gbench"_s, u"time_ms"_s));

    // Run stays locked until phases 1 and 4 say what is wanted and predicted (as for any A/B).
    QVERIFY(!w.runBlockedReason().isEmpty());
    w.document()->edit(u"target and prediction"_s, [](Study& s) {
        s.target.current = 10;
        s.target.goal = 7;
        s.prediction.formula = "30";
        s.prediction.predicted_delta_pct = 30;
    });
    QVERIFY2(w.runBlockedReason().isEmpty(), qPrintable(w.runBlockedReason()));
    w.run();
    QVERIFY2(w.runController()->isRunning(), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));

    const Experiment* e = w.document()->currentExperiment();
    QVERIFY(e);
    QCOMPARE(e->status, ExperimentStatus::Done);
    QVERIFY(e->verdict.has_value() && e->final_verdict.has_value());
    QCOMPARE(e->verdict->word, VerdictWord::License);
    QVERIFY(std::abs(*e->verdict->delta_pct - 30.0) < 2.0);
    for (const auto& x : e->samples) {
        QCOMPARE(x.adapter, std::string("gbench"));
        QVERIFY(!x.failed);
    }
    QCOMPARE(w.verdictPage()->sampleVerdict(), u"LICENSE"_s);
    // A finished command A/B offers New A/B; with the workload fields hidden it stays a button of
    // its own size, not a bar across the page.
    w.showView(u"5"_s);
    auto* create = w.abPage()->findChild<QPushButton*>(u"createAb"_s);
    QTRY_VERIFY(create->isVisible());
    QTRY_VERIFY2(
        create->width() <= create->sizeHint().width() + 8, qPrintable(u"New A/B is %1 px wide"_s.arg(create->width())));
    const QString shots = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        w.grab().save(shots + u"/command-ab-results.png"_s);
}

QTEST_MAIN(TestCommandAbWindow)
#include "tst_command_ab_window.moc"
