// SPDX-License-Identifier: GPL-3.0-or-later
// Leaving the open study: which question, and what each answer does.
#include "models/close_guard.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

class TestCloseGuard : public QObject {
    Q_OBJECT
private slots:
    void question_data();
    void question();
    void step_data();
    void step();
    void wordsNameTheStudy();
};

void TestCloseGuard::question_data()
{
    QTest::addColumn<bool>("running");
    QTest::addColumn<bool>("modified");
    QTest::addColumn<LeaveQuestion>("expected");
    QTest::addRow("idle, saved") << false << false << LeaveQuestion::None;
    QTest::addRow("idle, edited") << false << true << LeaveQuestion::SaveChanges;
    QTest::addRow("running") << true << false << LeaveQuestion::StopRun;
    // The run owns the file; stopping it is the one decision, whatever the flag says.
    QTest::addRow("running, edited") << true << true << LeaveQuestion::StopRun;
}

void TestCloseGuard::question()
{
    QFETCH(bool, running);
    QFETCH(bool, modified);
    QFETCH(LeaveQuestion, expected);
    QCOMPARE(leaveQuestion(running, modified), expected);
}

void TestCloseGuard::step_data()
{
    QTest::addColumn<LeaveQuestion>("question");
    QTest::addColumn<LeaveAnswer>("answer");
    QTest::addColumn<LeaveStep>("expected");
    QTest::addRow("nothing to ask") << LeaveQuestion::None << LeaveAnswer::Cancel << LeaveStep::Leave;
    QTest::addRow("save") << LeaveQuestion::SaveChanges << LeaveAnswer::Accept << LeaveStep::SaveThenLeave;
    QTest::addRow("discard") << LeaveQuestion::SaveChanges << LeaveAnswer::Discard << LeaveStep::Leave;
    QTest::addRow("cancel save") << LeaveQuestion::SaveChanges << LeaveAnswer::Cancel << LeaveStep::Stay;
    QTest::addRow("stop") << LeaveQuestion::StopRun << LeaveAnswer::Accept << LeaveStep::StopThenLeave;
    QTest::addRow("keep running") << LeaveQuestion::StopRun << LeaveAnswer::Cancel << LeaveStep::Stay;
    QTest::addRow("discard a run") << LeaveQuestion::StopRun << LeaveAnswer::Discard << LeaveStep::Stay;
}

void TestCloseGuard::step()
{
    QFETCH(LeaveQuestion, question);
    QFETCH(LeaveAnswer, answer);
    QFETCH(LeaveStep, expected);
    QCOMPARE(leaveStep(question, answer), expected);
}

void TestCloseGuard::wordsNameTheStudy()
{
    QVERIFY(leaveQuestionText(LeaveQuestion::SaveChanges, u"gemm"_s).contains(u"\"gemm\""_s));
    QVERIFY(leaveQuestionText(LeaveQuestion::StopRun, u"gemm"_s).contains(u"saves"_s));
    QVERIFY(leaveQuestionTitle(LeaveQuestion::None).isEmpty());
}

QTEST_GUILESS_MAIN(TestCloseGuard)
#include "tst_close_guard.moc"
