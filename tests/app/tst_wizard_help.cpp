// SPDX-License-Identifier: GPL-3.0-or-later
// The window explains itself: every editable field of every phase page carries a tooltip, and
// the hardware page shows the playbook's traps for the study's configurations on the chosen GPU
// and its datasheet peaks beside the measured ceilings (the engine decides both; the page asks).
#include "main_window.h"
#include "pages/hardware_page.h"
#include "study/study_file.h"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {

// The study of a GPU A/B recorded on the H200 (tests/widgets/data/h200_devices.json), with the
// calibration figures the H200 measured, whose treatment is a 256x128x32, 4-stage tile: 114 KiB
// of shared memory per block.
kwb::Study h200Study()
{
    QFile f(QStringLiteral(KWB_WIDGETS_TEST_DATA "/h200_devices.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("no h200_devices.json");
    kwb::Study s;
    s.name = "gpu traps";
    s.hardware.devices = nlohmann::json::parse(f.readAll().toStdString()).at("devices");
    for (auto& d : s.hardware.devices)
        if (d.value("kind", "") == "cuda")
            d["measured"] = {{"copy_gbs",
                                 {{"median", 4241.8}, {"n", 15}, {"min", 4237.7}, {"max", 4243.2}, {"cv_pct", 0.04},
                                     {"unit", "GB/s"}}},
                {"bf16_gemm_tflops",
                    {{"median", 702.2}, {"n", 15}, {"min", 673.8}, {"max", 790.9}, {"cv_pct", 5.1},
                        {"unit", "TFLOP/s"}}},
                {"shapes", {{"copy", "cudaMemcpyAsync device to device, 1 GiB"}}}};
    s.hardware.device_in_use = "NVIDIA H200";
    kwb::Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.backend = "cuda";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"block_m", 128}, {"block_n", 128}}},
        {"treatment", {{"block_m", 256}, {"block_n", 128}, {"stages", 4}}}};
    s.experiments.push_back(e);
    return s;
}

QString cellText(QTableWidget* t, int row, int column)
{
    return t->item(row, column) ? t->item(row, column)->text() : QString();
}

} // namespace

class TestWizardHelp : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void everyEditableFieldExplainsItself();
    void hardwarePageShowsTrapsAndPeaks();
};

void TestWizardHelp::everyEditableFieldExplainsItself()
{
    MainWindow w;
    w.setOfferAutosave(false);
    QVERIFY(w.openDemo(false)); // a CPU GEMM A/B: the arm editor and the grid maker are filled
    int checked = 0;
    // Phase 3 (binding) is being rebuilt elsewhere; the others are this page set's.
    for (const QString& name : {u"targetPage"_s, u"hardwarePage"_s, u"formulaPage"_s, u"abPage"_s, u"gridPage"_s,
             u"tradeoffPage"_s, u"verdictPage"_s}) {
        QWidget* page = w.findChild<QWidget*>(name);
        QVERIFY2(page, qPrintable(name));
        QList<QWidget*> fields;
        for (auto* e : page->findChildren<QLineEdit*>())
            if (!qobject_cast<QAbstractSpinBox*>(e->parentWidget()) && !qobject_cast<QComboBox*>(e->parentWidget()))
                fields << e;
        for (auto* b : page->findChildren<QComboBox*>())
            fields << b;
        for (auto* b : page->findChildren<QAbstractSpinBox*>())
            fields << b;
        for (auto* b : page->findChildren<QCheckBox*>())
            fields << b;
        for (auto* b : page->findChildren<QPlainTextEdit*>())
            fields << b;
        for (QWidget* f : fields) {
            QVERIFY2(!f->toolTip().trimmed().isEmpty(),
                qPrintable(u"%1: %2 (%3) has no tooltip"_s.arg(
                    name, f->objectName(), QString::fromLatin1(f->metaObject()->className()))));
            ++checked;
        }
        // An editable table explains itself, and so does every cell one can edit.
        for (auto* t : page->findChildren<QTableWidget*>()) {
            if (t->editTriggers() == QAbstractItemView::NoEditTriggers)
                continue;
            QVERIFY2(!t->toolTip().isEmpty(), qPrintable(name + u": "_s + t->objectName()));
            for (int r = 0; r < t->rowCount(); ++r)
                for (int c = 0; c < t->columnCount(); ++c)
                    if (QTableWidgetItem* item = t->item(r, c); item
                        && ((item->flags() & Qt::ItemIsEditable)
                            || ((item->flags() & Qt::ItemIsUserCheckable)
                                && item->data(Qt::CheckStateRole).isValid()))) {
                        QVERIFY2(!item->toolTip().trimmed().isEmpty(),
                            qPrintable(
                                u"%1: %2 cell (%3, %4) has no tooltip"_s.arg(name, t->objectName()).arg(r).arg(c)));
                        ++checked;
                    }
        }
    }
    QVERIFY2(checked > 40, qPrintable(QString::number(checked)));
}

void TestWizardHelp::hardwarePageShowsTrapsAndPeaks()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"gpu.json"_s);
    kwb::Study study = h200Study();
    kwb::save_study(study, path.toStdString());
    MainWindow w;
    w.setOfferAutosave(false);
    QVERIFY2(w.openStudy(path), qPrintable(w.shownError()));
    auto* page = w.findChild<HardwarePage*>(u"hardwarePage"_s);
    QVERIFY(page);
    // The GPU the study recorded is the default.
    QVERIFY2(page->limitsKey().startsWith(u"recorded:"_s), qPrintable(page->limitsKey()));
    auto* warnings = page->findChild<QLabel*>(u"hardwareWarnings"_s);
    auto* occupancy = page->findChild<QLabel*>(u"hardwareOccupancy"_s);
    // 114 KiB per block leaves one block on a 228 KiB SM: the smem-bound signature.
    QVERIFY2(warnings->text().contains(u"ab-1 treatment"_s) && warnings->text().contains(u"1 block per SM"_s),
        qPrintable(warnings->text()));
    QVERIFY(warnings->text().contains(u"sm_90a"_s));
    QVERIFY(!warnings->toolTip().isEmpty()); // the playbook rules behind them
    QVERIFY2(occupancy->text().contains(u"ab-1 baseline"_s) && occupancy->text().contains(u"4 blocks per SM"_s),
        qPrintable(occupancy->text()));

    auto* peaks = page->findChild<QTableWidget*>(u"hardwarePeaks"_s);
    QCOMPARE(peaks->rowCount(), 4);
    const int hbm = peaks->rowCount() - 1;
    QCOMPARE(cellText(peaks, hbm, 0), u"Memory bandwidth"_s);
    QVERIFY2(cellText(peaks, hbm, 1).startsWith(u"4800"_s), qPrintable(cellText(peaks, hbm, 1)));
    QVERIFY2(cellText(peaks, hbm, 2).startsWith(u"4241.8 GB/s (median of 15"_s), qPrintable(cellText(peaks, hbm, 2)));
    QCOMPARE(cellText(peaks, hbm, 3), u"88 %"_s);
    QCOMPARE(cellText(peaks, 0, 3), u"71 %"_s); // 702.2 of 989 TFLOP/s

    // The same study planned for a 100 KB Ada part: the treatment's tile cannot launch there.
    QVERIFY(page->chooseLimits(u"part:RTX 4090"_s));
    QVERIFY2(warnings->text().contains(u"cannot launch there"_s), qPrintable(warnings->text()));
    QVERIFY(warnings->text().contains(u"TN layout"_s));
    QCOMPARE(cellText(peaks, 0, 2), u"not measured"_s);
    // The choice survives an edit of the study.
    w.document()->edit(u"rename"_s, [](kwb::Study& s) { s.name = "renamed"; });
    QCOMPARE(page->limitsKey(), u"part:RTX 4090"_s);
}

QTEST_MAIN(TestWizardHelp)
#include "tst_wizard_help.moc"
