// SPDX-License-Identifier: GPL-3.0-or-later
// The phase-3 page: a binding section as `kwb profile` writes it is shown whole (call, axis,
// evidence, thresholds, kernels, the disagreement warning, limitations); "Profile" runs the real
// kwb on a CPU study as a child process and the page shows what the engine wrote; a failing
// child leaves the study unlocked with its reason on the status line.
#include "models/profile_controller.h"
#include "models/study_document.h"
#include "pages/binding_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::gui;
using namespace Qt::StringLiterals;

namespace {

const QString kKwb = QStringLiteral(KWB_PROGRAM_PATH);

QString text(BindingPage& page, const char* name)
{
    auto* label = page.findChild<QLabel*>(QLatin1StringView(name));
    return label ? label->text() : u"<no label>"_s;
}

} // namespace

class TestBindingPage : public QObject {
    Q_OBJECT
private slots:
    void showsTheProfiledSection()
    {
        StudyDocument doc;
        doc.newStudy();
        auto& b = doc.mutableStudy().binding;
        b.constraint = "memory-bandwidth";
        b.axis = "fewer bytes: fuse kernels";
        b.evidence = {"DRAM throughput 82.9 % of peak > 80%"};
        b.warnings = {"profiler view and wall-clock disagree: profiled kernels take 1.500 ms a launch"};
        b.limitations = {"no NVML: clocks not recorded"};
        b.thresholds = {{"dram_bound_pct", 80}, {"tensor_low_pct", 40}};
        b.kernels = nlohmann::json::array({{{"name", "copy_float4"}, {"launches", 100}, {"mean_ms", 1.075},
            {"share_pct", 100.0}, {"samples", 96}, {"metrics", {{"dram_pct", 82.93}, {"occupancy", 94.77}}}}});
        b.metrics = {{"dram_pct", 82.93}};
        b.experiment = "ab-1";
        b.arm = "baseline";
        b.source = "cupti";
        b.measured_at = "2026-11-30T23:00:00.000Z";
        BindingPage page(&doc);
        page.refresh();
        QCOMPARE(text(page, "bindingConstraint"), u"memory-bandwidth"_s);
        QVERIFY(text(page, "bindingAxis").contains(u"fewer bytes"_s));
        QVERIFY(text(page, "bindingWarnings").contains(u"disagree"_s));
        QVERIFY(text(page, "bindingEvidence").contains(u"> 80%"_s));
        QVERIFY(text(page, "bindingLimitations").contains(u"NVML"_s));
        QVERIFY(text(page, "bindingProfiled").contains(u"ab-1"_s));
        auto* kernels = page.findChild<QTableWidget*>(u"bindingKernels"_s);
        QCOMPARE(kernels->rowCount(), 1);
        QCOMPARE(kernels->item(0, 0)->text(), u"copy_float4"_s);
        QCOMPARE(kernels->item(0, 4)->text(), u"82.9"_s); // DRAM %
        QCOMPARE(kernels->item(0, 6)->text(), u"–"_s); // tensor %: not measured
        QCOMPARE(page.findChild<QTableWidget*>(u"bindingThresholds"_s)->rowCount(), 2);
    }

    void kernelTableFitsAt1024x640()
    {
        // At 1024x640 the page is about 780 px wide: the kernel table's ten columns fit it, a long
        // kernel name is elided (whole in its tooltip) rather than scrolled to.
        StudyDocument doc;
        doc.newStudy();
        const std::string name = "void gemm_tiled<128, 64, 32, 3>(float const*, float const*, float*, int, int, int)";
        doc.mutableStudy().binding.kernels = nlohmann::json::array({{{"name", name}, {"launches", 12000},
            {"mean_ms", 0.6449}, {"share_pct", 99.8}, {"samples", 7740},
            {"metrics",
                {{"dram_pct", 41.2}, {"occupancy", 24.9}, {"tensor_pct", 61.3}, {"fma_pct", 3.1}, {"sm_pct", 98.7}}}}});
        BindingPage page(&doc);
        page.resize(780, 900);
        page.show();
        page.refresh();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        auto* kernels = page.findChild<QTableWidget*>(u"bindingKernels"_s);
        QTRY_COMPARE(kernels->horizontalScrollBar()->maximum(), 0);
        QVERIFY(!kernels->horizontalScrollBar()->isVisible());
        for (int c = 1; c < kernels->columnCount(); ++c) // every figure whole
            QVERIFY(kernels->columnWidth(c) >= kernels->horizontalHeader()->sectionSizeHint(c));
        QCOMPARE(kernels->item(0, 0)->toolTip(), QString::fromStdString(name));
    }

    void neverProfiledSaysNotSet()
    {
        StudyDocument doc;
        doc.newStudy();
        BindingPage page(&doc);
        page.refresh();
        QCOMPARE(text(page, "bindingConstraint"), u"not set"_s);
        QCOMPARE(page.findChild<QTableWidget*>(u"bindingKernels"_s)->rowCount(), 0);
    }

    void profileActionRunsKwbProfile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"cpu.json"_s);
        QProcess make;
        make.start(kKwb,
            {u"new"_s, u"--workload"_s, u"rmsnorm"_s, u"--param"_s, u"rows=64"_s, u"--param"_s, u"hidden=1024"_s,
                u"--vary"_s, u"vector_width=1,4"_s, u"--backend"_s, u"cpu"_s, u"--out"_s, path});
        QVERIFY(make.waitForFinished(60000));
        QCOMPARE(make.exitCode(), 0);
        StudyDocument doc;
        QVERIFY(doc.load(path));
        BindingPage page(&doc);
        page.refresh();
        page.profileController()->setProgram(kKwb);
        page.profileController()->setExtraArguments({u"--duration-ms"_s, u"50"_s});
        QSignalSpy finished(page.profileController(), &ProfileController::finished);
        auto* button = page.findChild<QPushButton*>(u"profileButton"_s);
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(doc.isLocked());
        QVERIFY(!button->isEnabled());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toString(), u"done"_s);
        QVERIFY(!doc.isLocked());
        QVERIFY(button->isEnabled());
        // The CPU profile: timing and procfs, no constraint called, and it says why.
        QCOMPARE(doc.study().binding.source, std::string("procfs"));
        QCOMPARE(doc.study().binding.experiment, doc.study().experiments.front().id);
        QVERIFY(text(page, "bindingLimitations").contains(u"launch-overhead does not apply"_s));
        QVERIFY(text(page, "bindingConstraint").contains(u"not called"_s));
        QVERIFY(text(page, "bindingProfiled").contains(u"procfs"_s));
    }

    void failingChildReportsAndUnlocks()
    {
        QTemporaryDir dir;
        StudyDocument doc;
        doc.newStudy(); // no experiment: kwb profile refuses it (exit 2)
        QVERIFY(doc.saveAs(dir.filePath(u"empty.json"_s)));
        BindingPage page(&doc);
        page.profileController()->setProgram(kKwb);
        QSignalSpy finished(page.profileController(), &ProfileController::finished);
        QVERIFY(page.startProfile());
        QVERIFY(finished.wait(60000));
        QCOMPARE(page.profileController()->lastStatus(), u"failed"_s);
        QCOMPARE(page.profileController()->lastExitCode(), 2);
        QVERIFY(page.profileController()->lastError().contains(u"no experiment to profile"_s));
        QVERIFY(text(page, "profileStatus").contains(u"no experiment to profile"_s));
        QVERIFY(!doc.isLocked());
    }

    void lockedStudyIsRefused()
    {
        QTemporaryDir dir;
        StudyDocument doc;
        doc.newStudy();
        QVERIFY(doc.saveAs(dir.filePath(u"s.json"_s)));
        doc.setLocked(true); // a run owns it
        BindingPage page(&doc);
        page.profileController()->setProgram(kKwb);
        QVERIFY(!page.startProfile());
        QVERIFY(text(page, "profileStatus").contains(u"locked"_s));
    }
};

QTEST_MAIN(TestBindingPage)
#include "tst_binding_page.moc"
