// SPDX-License-Identifier: GPL-3.0-or-later
// The live view's default lanes: the lane sets recorded in committed studies (an H200 GEMM A/B
// with CUPTI, NVML and host lanes; tiny_llm with its TTFT and ITL; a CPU run), each with the set a
// person reads first written out here by hand.
#include "sampling/cupti_metrics.h"
#include "sampling/lane_selection.h"
#include "sampling/nvml_source.h"

#include <QTest>

using namespace kwb;

namespace {

// The 24 lanes of bench/results/2026-12-01-h200-final/studies/gemm-block_n.json, in their order.
std::vector<MetricInfo> h200Lanes()
{
    std::vector<MetricInfo> out;
    for (const auto& c : kCuptiLanes)
        out.push_back({std::string(c.lane), std::string(c.unit)});
    for (const auto& m : std::vector<MetricInfo> {{"cpu_util", "%"}, {"rss", "MiB"}, {"bench_thread_cpu", "%"},
             {"other_cpu", "%"}, {"nvml_sm_clock", "MHz"}, {"mem_clock", "MHz"}, {"temperature", "C"}, {"power", "W"},
             {"memory_used", "MiB"}, {"clock_events", "bits"}, {"other_gpu_processes", "count"}})
        out.push_back(m);
    return out;
}

using Names = std::vector<std::string>;

} // namespace

class TestLaneSelection : public QObject {
    Q_OBJECT
private slots:
    void gpuRunShowsOccupancyHbmClockPower()
    {
        QCOMPARE(default_lanes(h200Lanes()), (Names {"occupancy", "dram_pct", "sm_clock", "power"}));
    }

    void servingRunAddsItsLatencyLanesFirst()
    {
        auto l = h200Lanes();
        l.push_back({"itl", "ms"});
        l.push_back({"ttft", "ms"});
        l.push_back({"batch_size", "count"}); // a workload lane that is no latency stays behind the control
        QCOMPARE(default_lanes(l), (Names {"itl", "ttft", "occupancy", "dram_pct", "sm_clock", "power"}));
    }

    void nvmlOnlyRunFallsBackToNvmlClock()
    {
        // No CUPTI (PM sampling off): the NVML clock stands in, occupancy and HBM are not there.
        const std::vector<MetricInfo> l {{"cpu_util", "%"}, {"rss", "MiB"}, {"nvml_sm_clock", "MHz"},
            {"mem_clock", "MHz"}, {"power", "W"}, {"ttft", "ms"}};
        QCOMPARE(default_lanes(l), (Names {"ttft", "nvml_sm_clock", "power"}));
    }

    void cpuRunShowsTheCpuLanesThatMatter()
    {
        const std::vector<MetricInfo> l {
            {"cpu_util", "%"}, {"rss", "MiB"}, {"bench_thread_cpu", "%"}, {"other_cpu", "%"}};
        QCOMPARE(default_lanes(l), (Names {"cpu_util", "bench_thread_cpu", "other_cpu"}));
        QCOMPARE(default_lanes({{"cpu_util", "%"}, {"rss", "MiB"}}), (Names {"cpu_util"})); // the demo study
        QCOMPARE(default_lanes({}), Names {});
    }

    void orderPutsLatencyThenResourcesThenHost()
    {
        QVERIFY(lane_display_rank("ttft", "ms") < lane_display_rank("occupancy", "%"));
        QVERIFY(lane_display_rank("occupancy", "%") < lane_display_rank("dram_pct", "%"));
        QVERIFY(lane_display_rank("sm_clock", "MHz") < lane_display_rank("power", "W"));
        QVERIFY(lane_display_rank("power", "W") < lane_display_rank("cpu_util", "%"));
        QVERIFY(lane_display_rank("rss", "MiB") < lane_display_rank("something_new", "count"));
        QCOMPARE(lane_display_rank("something_new", "count"), lane_display_rank("other_new", "GB/s"));
    }

    void everySamplerLaneIsKnown()
    {
        // A sampler lane taken for a workload's would be shown as a latency lane (were it in ms).
        for (const auto& c : kCuptiLanes)
            QCOMPARE(lane_source(c.lane), LaneSource::cupti);
        const NvmlSource nvml("");
        for (const auto& m : nvml.metrics())
            QVERIFY2(lane_source(m.name) == LaneSource::nvml, m.name.c_str());
        for (const auto* n : {"cpu_util", "bench_thread_cpu", "other_cpu", "rss"})
            QCOMPARE(lane_source(n), LaneSource::host);
        QCOMPARE(lane_source("ttft"), LaneSource::workload);
    }

    // Lanes retired for disagreeing with ncu: still a GPU counter's when an old study has them, never
    // among the lanes shown first, and after every lane kwb records.
    void retiredLanesAreNamedButNotShownFirst()
    {
        std::vector<MetricInfo> lanes;
        for (const auto& r : kCuptiRetiredLanes) {
            QCOMPARE(lane_source(r.lane), LaneSource::cupti);
            QVERIFY(!r.reason.empty());
            lanes.push_back({std::string(r.lane), "%"});
            QVERIFY(lane_display_rank(r.lane, "%") > lane_display_rank("other_gpu_processes", "count"));
        }
        lanes.push_back({"dram_pct", "%"});
        QCOMPARE(default_lanes(lanes), std::vector<std::string>({"dram_pct"}));
    }

    void percentAxisIsTheWholeScale()
    {
        QVERIFY(is_percent_unit("%"));
        QVERIFY(!is_percent_unit("MHz"));
        QCOMPARE(kPercentAxisLow, 0.0);
        QCOMPARE(kPercentAxisHigh, 100.0);
    }
};

QTEST_MAIN(TestLaneSelection)
#include "tst_lane_selection.moc"
