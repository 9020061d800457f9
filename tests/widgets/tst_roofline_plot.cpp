// SPDX-License-Identifier: GPL-3.0-or-later
// The roofline plot (widgets/plots/roofline_plot.h) draws the engine's roofline and nothing of
// its own: on the recorded H200 decode A/B (simt -> mma, batch 64, 8k; recorded before the
// workload declared its FLOPs, so the engine derives them at 4 FLOP/B) the axes are log-log, the
// roofs are the engine's polylines with their labels, the two points stand at the rule's
// coordinates with their IQRs, the arrow runs baseline -> treatment and the caption says how the
// FLOPs were derived; an arm without a count has no point, no arrow, and its reason in the
// caption. The Binding (phase 3) and Verdict (phase 8) pages show it for the current experiment.
#include "models/study_document.h"
#include "pages/binding_page.h"
#include "pages/verdict_page.h"
#include "plots/roofline_plot.h"
#include "study/study_file.h"
#include "verdict/roofline_chart.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

using namespace kwb;
using namespace kwb::gui;
using namespace Qt::StringLiterals;

namespace {

const QString kDecode
    = QStringLiteral(KWB_SOURCE_DIR "/bench/results/2026-12-02-h200-evidence/evidence/decode-impl.json");

Study decodeStudy()
{
    return load_study(kDecode.toStdString());
}

} // namespace

class TestRooflinePlot : public QObject {
    Q_OBJECT
private slots:
    void drawsTheEnginesRoofline()
    {
        const Study s = decodeStudy();
        const auto r = study_roofline(s, s.experiments.at(0));
        QVERIFY(r);
        RooflinePlot plot;
        plot.resize(640, 420);
        plot.setRoofline(r);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.plot()->replot();

        QCOMPARE(plot.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(plot.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        // The roofs: DRAM (read-only ceiling), the measured L2, compute; each the engine's polyline.
        const auto segments = roofline_segments(*r, roofline_frame(*r));
        QCOMPARE(plot.roofLabels().size(), 3);
        QVERIFY(plot.roofLabels()[0].startsWith(u"DRAM 4.38 TB/s (read-only ceiling)"_s));
        QVERIFY(plot.roofLabels()[1].startsWith(u"L2 8.01 TB/s"_s));
        QVERIFY(plot.roofLabels()[2].startsWith(u"compute 989.4 TFLOP/s"_s));
        for (int i = 0; i < 3; ++i) {
            const auto& engine = segments[static_cast<std::size_t>(i)].points;
            QCOMPARE(plot.roofLines()[i].size(), static_cast<int>(engine.size()));
            QCOMPARE(plot.roofLines()[i].back(), QPointF(engine.back().first, engine.back().second));
        }
        QVERIFY(plot.ridge());
        QCOMPARE(*plot.ridge(), *r->ridge_intensity);

        // Both arms at the rule's coordinates, with their IQRs.
        QCOMPARE(plot.armNames(), QStringList({u"baseline"_s, u"treatment"_s}));
        for (int i = 0; i < 2; ++i) {
            const auto& p = *r->arms[static_cast<std::size_t>(i)].point;
            QCOMPARE(plot.armPoints()[i], QPointF(p.intensity, p.tflops));
            QCOMPARE(plot.armSpreads()[i].second, QPointF(p.tflops_iqr.lo, p.tflops_iqr.hi));
        }
        QCOMPARE(plot.armPoints()[0].x(), 4.0);
        // Each arm's point on its measured DRAM traffic, an open circle at the same TFLOP/s.
        QCOMPARE(plot.measuredPoints().size(), 2);
        for (int i = 0; i < 2; ++i) {
            const auto& a = r->arms[static_cast<std::size_t>(i)];
            QCOMPARE(plot.measuredPoints()[i], QPointF(*a.measured_dram_intensity, a.point->tflops));
        }
        QVERIFY(plot.armPoints()[1].y() > plot.armPoints()[0].y()); // mma reads faster
        QVERIFY(plot.hasArrow());
        QCOMPARE(plot.arrowFrom(), plot.armPoints()[0]);
        QCOMPARE(plot.arrowTo(), plot.armPoints()[1]);
        // Every point inside the frame the axes show.
        for (const QPointF& p : plot.armPoints()) {
            QVERIFY(plot.plot()->xAxis->range().contains(p.x()));
            QVERIFY(plot.plot()->yAxis->range().contains(p.y()));
        }
        QVERIFY(plot.caption().contains(
            u"baseline and treatment: FLOPs derived (recorded before attention_decode declared them): 4 FLOP/B"_s));
        QVERIFY(plot.caption().contains(u"% of the memory roof"_s));
    }

    void aMissingCountIsCaptioned()
    {
        Study s = decodeStudy();
        Experiment& e = s.experiments.at(0);
        e.workload = "bandwidth"; // the copy: bytes, no FLOPs, nothing to derive them from
        RooflinePlot plot;
        plot.setExperiment(s, &e);
        QVERIFY(plot.armPoints().isEmpty());
        QVERIFY(!plot.hasArrow());
        QVERIFY2(plot.caption().contains(u"baseline: no point: the workload declares no FLOP count"_s),
            qPrintable(plot.caption()));
        QCOMPARE(plot.roofLabels().size(), 3); // the roofs still stand

        // Only the treatment loses its count: one point, no arrow.
        const Study decode = decodeStudy();
        auto only = study_roofline(decode, decode.experiments.at(0));
        only->arms[1].point.reset();
        only->arms[1].reason = "the workload declares no FLOP count (no TFLOP/s metric)";
        plot.setRoofline(only);
        QCOMPARE(plot.armNames(), QStringList({u"baseline"_s}));
        QVERIFY(!plot.hasArrow());
        QVERIFY(plot.caption().contains(u"treatment: no point: the workload declares no FLOP count"_s));

        QVERIFY(!plot.plot()->isHidden()); // roofs to draw

        plot.setExperiment(s, nullptr);
        QVERIFY(plot.roofLabels().isEmpty());
        QVERIFY(plot.caption().contains(u"No A/B to place"_s));
        QVERIFY(plot.plot()->isHidden()); // empty axes would say nothing

        // No roof and no point (the demo: a CPU GEMM declaring FLOPs only): the reasons alone.
        Study cpu;
        Experiment gemm;
        gemm.workload = "gemm";
        gemm.device = {"cpu", "Fixture CPU", "", 0, ""};
        gemm.arms = {{"baseline", {}}, {"treatment", {}}};
        for (const char* arm : {"baseline", "treatment"}) {
            Sample smp;
            smp.arm = arm;
            smp.metrics = {{"time_ms", 10.0}, {"gflops", 20.0}};
            gemm.samples.push_back(smp);
        }
        plot.setExperiment(cpu, &gemm);
        QVERIFY(plot.plot()->isHidden());
        QVERIFY(plot.caption().contains(u"baseline: no point: the workload declares no byte count"_s));
        QVERIFY(plot.caption().contains(u"no bandwidth roof for Fixture CPU"_s));
    }

    void theBindingAndVerdictPagesShowIt()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"decode.json"_s);
        QVERIFY(QFile::copy(kDecode, path));
        StudyDocument doc;
        QVERIFY(doc.load(path));
        BindingPage binding(&doc);
        binding.refresh();
        auto* onBinding = binding.findChild<RooflinePlot*>(u"bindingRoofline"_s);
        QVERIFY(onBinding);
        QCOMPARE(onBinding->armPoints().size(), 2);
        QVERIFY(onBinding->hasArrow());
        VerdictPage verdict(&doc);
        verdict.refresh();
        auto* onVerdict = verdict.findChild<RooflinePlot*>(u"verdictRoofline"_s);
        QVERIFY(onVerdict);
        QCOMPARE(onVerdict->armPoints(), onBinding->armPoints());
        QVERIFY(onVerdict->hasArrow());
    }
};

QTEST_MAIN(TestRooflinePlot)
#include "tst_roofline_plot.moc"
