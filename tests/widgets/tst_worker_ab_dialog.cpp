// SPDX-License-Identifier: GPL-3.0-or-later
// File > New worker A/B offscreen, on the fake worker (tests/engine/workloads/fake_worker.cpp): Create
// asks kwb new (the worker described, its parameters checked), the window keeps turning meanwhile,
// the study comes back with the worker arms kwb wrote; kwb's refusal is shown in its own words and
// the dialog stays open.
#include "pages/worker_ab_dialog.h"

#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

void type(WorkerAbDialog& d, const char* field, const QString& text)
{
    auto* edit = d.findChild<QLineEdit*>(QString::fromLatin1(field));
    QVERIFY(edit);
    edit->setText(text);
}

} // namespace

class TestWorkerAbDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qputenv("KWB_PROGRAM", KWB_TEST_KWB); }

    void createAsksKwbNew()
    {
        WorkerAbDialog d;
        type(d, "workerAbCommand", QStringLiteral(KWB_FAKE_WORKER));
        type(d, "workerAbParams", u"variant=b"_s);
        type(d, "workerAbVary", u"work=1,3"_s);
        d.findChild<QSpinBox*>(u"workerAbRuns"_s)->setValue(6);
        QSignalSpy done(&d, &WorkerAbDialog::createFinished);
        d.findChild<QPushButton*>(u"workerAbCreate"_s)->click();
        QVERIFY(d.isCreating()); // kwb runs as a child; the event loop turns
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().first().toBool(), qPrintable(d.lastError()));
        QCOMPARE(d.result(), int(QDialog::Accepted));
        const Study& s = d.study();
        QCOMPARE(s.experiments.size(), size_t {1});
        const Experiment& e = s.experiments.front();
        QCOMPARE(e.workload, std::string("worker"));
        QCOMPARE(e.plan.runs_per_arm, 6);
        QCOMPARE(e.arms.size(), size_t {2});
        QVERIFY(e.arms[0].worker && e.arms[1].worker);
        QCOMPARE(e.arms[0].worker->description.worker, std::string("fake-normal"));
        QCOMPARE(e.arms[1].params.at("work").get<int>(), 3);
        QCOMPARE(e.arms[0].params.at("variant").get<std::string>(), std::string("b"));
    }

    void refusalsStayOpen()
    {
        WorkerAbDialog d;
        QSignalSpy done(&d, &WorkerAbDialog::createFinished);
        // Nothing to run: said at once, without kwb.
        d.create();
        QCOMPARE(done.size(), 1);
        QVERIFY(d.lastError().startsWith(u"Worker command"_s));
        // A parameter the worker does not describe: kwb new's own line.
        type(d, "workerAbCommand", QStringLiteral(KWB_FAKE_WORKER));
        type(d, "workerAbVary", u"blocks=1,2"_s);
        d.create();
        QVERIFY(done.wait(60000));
        QCOMPARE(done.last().first().toBool(), false);
        QVERIFY2(d.lastError().contains(u"blocks"_s), qPrintable(d.lastError()));
        QVERIFY(!d.lastError().startsWith(u"kwb: "_s));
        QVERIFY(d.result() != int(QDialog::Accepted));
        QVERIFY(d.findChild<QPushButton*>(u"workerAbCreate"_s)->isEnabled());
    }
};

QTEST_MAIN(TestWorkerAbDialog)
#include "tst_worker_ab_dialog.moc"
