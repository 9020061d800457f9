// SPDX-License-Identifier: GPL-3.0-or-later
// The Slurm dialog, offscreen, driving a stand-in `kwb` (data/fake_kwb.sh): the command lines it
// makes, the status table it shows, Resubmit on a failed cell only, Collect reloading the study.
#include "models/study_document.h"
#include "pages/slurm_dialog.h"

#include <QFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
const QString kFake = QStringLiteral(KWB_WIDGETS_TEST_DATA "/fake_kwb.sh");
constexpr int kTimeout = 30000;
const char* const kStatus = R"({"study": "g.json", "counts": {"done": 1, "failed": 1, "queued": 1},
 "cells": [
  {"id": "grid-1-r0c1", "state": "done", "slurm_job": "41_0", "slurm_state": "COMPLETED", "slurm_reason": "",
   "samples": 6, "collected": true, "detail": ""},
  {"id": "grid-1-r1c0", "state": "failed", "slurm_job": "41_1", "slurm_state": "PREEMPTED", "slurm_reason": "",
   "samples": 2, "collected": false, "detail": "resubmit: kwb submit g.json --cell grid-1-r1c0"},
  {"id": "grid-1-r1c1", "state": "queued", "slurm_job": "41_2", "slurm_state": "PENDING",
   "slurm_reason": "Resources", "samples": 0, "collected": false, "detail": ""}]})";
} // namespace

class TestSlurmDialog : public QObject {
    Q_OBJECT
private slots:
    void statusSubmitResubmitCollect();
};

void TestSlurmDialog::statusSubmitResubmitCollect()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"g.json"_s);
    const QString args = dir.filePath(u"args.txt"_s);
    const QString status = dir.filePath(u"status.json"_s);
    {
        QFile f(status);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kStatus);
    }
    qputenv("FAKE_KWB_ARGS", args.toUtf8());
    qputenv("FAKE_KWB_STATUS", status.toUtf8());
    StudyDocument doc;
    doc.newStudy();
    QVERIFY(doc.saveAs(path));

    SlurmDialog dialog(&doc, kFake);
    dialog.show();
    QSignalSpy done(&dialog, &SlurmDialog::commandFinished);
    auto* table = dialog.findChild<QTableWidget*>(u"slurmTable"_s);
    auto* resubmit = dialog.findChild<QPushButton*>(u"slurmResubmit"_s);

    dialog.findChild<QPushButton*>(u"slurmRefresh"_s)->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeout);
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->item(1, 0)->text(), u"grid-1-r1c0"_s);
    QCOMPARE(table->item(1, 1)->text(), u"failed"_s);
    QCOMPARE(table->item(1, 3)->text(), u"PREEMPTED"_s);
    QCOMPARE(table->item(0, 1)->text(), u"done (collected)"_s);
    QCOMPARE(table->item(2, 4)->text(), u"Resources"_s);
    QCOMPARE(table->item(2, 5)->text(), u"0"_s);

    // Resubmit only for a failed cell.
    table->selectRow(2);
    QVERIFY(!resubmit->isEnabled());
    table->selectRow(1);
    QVERIFY(resubmit->isEnabled());
    if (const QByteArray shot = qgetenv("KWB_SLURM_SCREENSHOT"); !shot.isEmpty())
        dialog.grab().save(QString::fromUtf8(shot));
    resubmit->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 3, kTimeout); // resubmit, then the refresh after it

    dialog.findChild<QLineEdit*>(u"slurmPartition"_s)->setText(u"gpu"_s);
    dialog.findChild<QSpinBox*>(u"slurmGpus"_s)->setValue(0);
    dialog.findChild<QLineEdit*>(u"slurmTime"_s)->setText(u"30:00"_s);
    dialog.findChild<QLineEdit*>(u"slurmExtra"_s)->setText(u"--qos=high --mem=8G"_s);
    dialog.findChild<QPushButton*>(u"slurmSubmit"_s)->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 5, kTimeout);

    QSignalSpy reloaded(&doc, &StudyDocument::changed);
    dialog.findChild<QPushButton*>(u"slurmCollect"_s)->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 7, kTimeout);
    QCOMPARE(reloaded.count(), 1); // the collected study was read back
    QVERIFY(dialog.log().contains(u"fake kwb: collect done"_s));

    QFile f(args);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(u'\n', Qt::SkipEmptyParts);
    const QStringList expected {
        u"status "_s + path + u" --json"_s,
        u"submit "_s + path + u" --cell grid-1-r1c0"_s,
        u"status "_s + path + u" --json"_s,
        u"submit "_s + path + u" --partition gpu --gpus-per-task 0 --time 30:00 -- --qos=high --mem=8G"_s,
        u"status "_s + path + u" --json"_s,
        u"collect "_s + path,
        u"status "_s + path + u" --json"_s,
    };
    QCOMPARE(lines, expected);
    qunsetenv("FAKE_KWB_ARGS");
    qunsetenv("FAKE_KWB_STATUS");
}

QTEST_MAIN(TestSlurmDialog)
#include "tst_slurm_dialog.moc"
