// SPDX-License-Identifier: GPL-3.0-or-later
// The history view (plots/history_plot.h, pages/history_dialog.h): a ledger built from study
// files with a planted step is drawn with one change-point line at the step, every point with its
// CI, and a click on a point asks for that point's study. With KWB_HISTORY_KEEP=DIR the studies
// and the ledger stay in DIR (for `kernel-workbench --history KEY --screenshot`, docs/ledger.md).
#include "ledger/ledger_index.h"
#include "ledger/ledger_row.h"
#include "ledger_studies.h"
#include "pages/history_dialog.h"
#include "plots/history_plot.h"

#include <QApplication>
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::gui;

class TestHistoryPlot : public QObject {
    Q_OBJECT
private slots:
    void drawsTheChangePointAndOpensAPointsStudy()
    {
        QTemporaryDir temp;
        const QString keep = qEnvironmentVariable("KWB_HISTORY_KEEP");
        const QString dir = keep.isEmpty() ? temp.path() : keep;
        QDir().mkpath(dir);
        const auto file
            = [&](const std::string& name) { return QDir(dir).filePath(QString::fromStdString(name)).toStdString(); };
        QFile::remove(QString::fromStdString(file("ledger.sqlite")));
        ledger::Database db(file("ledger.sqlite"), file("no-aa-history.jsonl"));
        std::string key;
        for (int i = 0; i < 20; ++i) {
            Study s;
            s.name = fmt::format("nightly-{:02}", i + 1);
            s.target.kernel = "vector add fp32";
            const std::string at = fmt::format("2026-11-{:02}T02:00:00Z", i + 1);
            const double t = (i >= 12 ? 10.9 : 10.0) * (1 + 0.003 * std::sin(1.3 * i));
            auto e = ledger_test::judged_experiment(
                "ab-1", ledger_test::around(10.0, 1, 6, i), ledger_test::around(t, 1, 6, i + 2), "NVIDIA H200", at);
            ledger_test::add_ledger_entry(s, e, at);
            s.experiments.push_back(std::move(e));
            const auto path = file(s.name + ".json");
            save_study(s, path);
            ledger::index_study(db, path, load_study(path));
            key = ledger::benchmark_key(load_study(path).experiments[0]);
        }
        const auto history = ledger::load_history(db, key, "NVIDIA H200");
        QCOMPARE(history.change_points.size(), size_t(1));
        QCOMPARE(history.change_points[0].index, size_t(12));

        HistoryDialog dialog(history);
        dialog.resize(1000, 520);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        HistoryPlot* plot = dialog.plot();
        QCOMPARE(plot->graph(0)->dataCount(), 20);
        QCOMPARE(plot->changePointLines(), QList<double> {11.5});
        QCOMPARE(plot->itemCount(), 2); // the line and its label
        for (int i = 0; i < 20; ++i) // every point inside the plot, its CI drawn around it
            QVERIFY(plot->axisRect()->rect().contains(plot->pointPixel(i).toPoint()));

        QSignalSpy opened(&dialog, &HistoryDialog::openStudyRequested);
        plot->replot();
        QTest::mouseClick(plot, Qt::LeftButton, {}, plot->pointPixel(15).toPoint());
        QCOMPARE(opened.size(), 1);
        QCOMPARE(opened[0][0].toString(), QString::fromStdString(ledger::study_key(file("nightly-16.json"))));
        if (!keep.isEmpty()) {
            QVERIFY(dialog.grab().save(QDir(dir).filePath(QStringLiteral("history.png"))));
            qInfo("key: %s", key.c_str());
        }
    }
};

QTEST_MAIN(TestHistoryPlot)
#include "tst_history_plot.moc"
