// SPDX-License-Identifier: GPL-3.0-or-later
// The window's Slurm dialog against a real single-node Slurm cluster on localhost (the one
// tst_kwb_slurm uses, started and stopped here) and the real kwb: Submit sends the 2x2 CPU grid
// as a job array, Refresh follows the cells through Slurm's states until every one is done,
// Collect folds the parts into the study and the dialog's document reloads it whole, as
// `kwb collect` leaves it. Where the cluster cannot start here, the case skips with one line.
#include "kwb_process.h"
#include "models/study_document.h"
#include "pages/slurm_dialog.h"
#include "slurm_fixture.h"

#include <QElapsedTimer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwbtest;
using kwb::gui::SlurmDialog;
using kwb::gui::StudyDocument;

namespace {
constexpr int kCommandTimeout = 60000;

QStringList column(const QTableWidget* table, int col)
{
    QStringList values;
    for (int row = 0; row < table->rowCount(); ++row)
        values << (table->item(row, col) ? table->item(row, col)->text() : QString());
    return values;
}
} // namespace

class TestSlurmDialogCluster : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_cluster.start(); }
    void cleanupTestCase() { m_cluster.stop(); }
    void gridSubmittedFollowedAndCollectedFromTheDialog();

private:
    SlurmFixture m_cluster;
};

void TestSlurmDialogCluster::gridSubmittedFollowedAndCollectedFromTheDialog()
{
    if (!m_cluster.started())
        QSKIP(qPrintable(m_cluster.skipReason()));
    QTemporaryDir dir;
    const QString path = dir.filePath(u"g.json"_s);
    const auto made
        = kwbtest::kwb({u"new"_s, u"--workload"_s, u"gemm"_s, u"--param"_s, u"size=128"_s, u"--runs"_s, u"4"_s,
            u"--backend"_s, u"cpu"_s, u"--grid"_s, u"block=32,128"_s, u"--grid"_s, u"threads=1,2"_s, u"--out"_s, path});
    QVERIFY2(made.exit_code == 0, made.err.constData());

    StudyDocument doc;
    QVERIFY(doc.load(path));
    SlurmDialog dialog(&doc, kKwb);
    dialog.show();
    QSignalSpy finished(&dialog, &SlurmDialog::commandFinished);
    auto* table = dialog.findChild<QTableWidget*>(u"slurmTable"_s);
    QVERIFY(table);

    dialog.findChild<QPushButton*>(u"slurmSubmit"_s)->click();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() && !dialog.isBusy(), kCommandTimeout);
    QVERIFY2(dialog.log().contains(u"submitted job array"_s), qPrintable(dialog.log()));

    // Refresh until Slurm and the part files say every cell is done (a hang guard of 3 minutes,
    // not a measurement): the table shows the cells, their states and their array tasks.
    QElapsedTimer waited;
    waited.start();
    while (column(table, 1) != QStringList(3, u"done"_s) && waited.elapsed() < 180000) {
        const qsizetype before = finished.count();
        dialog.findChild<QPushButton*>(u"slurmRefresh"_s)->click();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > before && !dialog.isBusy(), kCommandTimeout);
        QTest::qWait(500);
    }
    QCOMPARE(column(table, 0), QStringList({u"grid-1-r0c1"_s, u"grid-1-r1c0"_s, u"grid-1-r1c1"_s}));
    QVERIFY2(column(table, 1) == QStringList(3, u"done"_s), qPrintable(dialog.log()));
    for (const QString& task : column(table, 2))
        QVERIFY2(task.contains(u'_'), qPrintable(task)); // JOB_TASK of the array

    QSignalSpy reloaded(&doc, &StudyDocument::changed);
    const qsizetype before = finished.count();
    dialog.findChild<QPushButton*>(u"slurmCollect"_s)->click();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() > before && !dialog.isBusy(), kCommandTimeout);
    QVERIFY2(reloaded.count() >= 1, qPrintable(dialog.log()));
    QVERIFY2(dialog.log().contains(u"grid-1: interaction: "_s), qPrintable(dialog.log()));

    // The reloaded document holds what a local run of the grid would: every cell judged.
    const kwb::Study& s = doc.study();
    QCOMPARE(s.experiments.size(), size_t(3));
    for (const auto& e : s.experiments) {
        QCOMPARE(e.status, kwb::ExperimentStatus::Done);
        QVERIFY(e.final_verdict.has_value());
        QVERIFY(e.placement && !e.placement->slurm_job.empty());
    }
    QVERIFY(s.grids.front().interaction.has_value());
    // And the dialog's table says so after its refresh.
    QTRY_VERIFY_WITH_TIMEOUT(column(table, 1) == QStringList(3, u"done (collected)"_s), kCommandTimeout);
}

QTEST_MAIN(TestSlurmDialogCluster)
#include "tst_slurm_dialog_cluster.moc"
