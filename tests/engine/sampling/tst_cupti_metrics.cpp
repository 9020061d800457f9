// SPDX-License-Identifier: GPL-3.0-or-later
// The CUPTI lane table (sampling/cupti_metrics.h): distinct counters for distinct names, ratios
// taken within one counter domain, and lanes that stay in range when the counters are consistent.
// Raw counter dependencies come from tests/data/lanes/cupti_gh100_deps.json (make_cupti_deps.sh,
// NVPW offline for GH100).
#include "hardware/gpu_backend_abi.h"
#include "sampling/cupti_metrics.h"

#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

using namespace kwb;

namespace {

nlohmann::json deps()
{
    std::ifstream in(KWB_TEST_DATA_DIR "/lanes/cupti_gh100_deps.json");
    return nlohmann::json::parse(in);
}

std::string domain(std::string_view expression)
{
    const auto unit = expression.find("__");
    const auto dot = expression.substr(0, unit).rfind('.');
    return dot == std::string_view::npos ? std::string() : std::string(expression.substr(0, dot));
}

std::set<std::string> raw_of(const nlohmann::json& current, std::string_view expression)
{
    const auto& r = current["raw_dependencies"].at(std::string(expression));
    return r.is_null() ? std::set<std::string> {} : r.get<std::set<std::string>>();
}

// The counters a lane reads (the union over what it is computed from).
std::set<std::string> lane_counters(const nlohmann::json& current, const CuptiLane& l)
{
    std::set<std::string> out = raw_of(current, kCuptiCollected[l.a]);
    if (l.formula == CuptiFormula::PctOfActive)
        out.merge(raw_of(current, kCuptiCollected[l.c]));
    if (l.formula == CuptiFormula::Busiest)
        for (const auto& [count, peak] : kCuptiBusiestOf)
            out.merge(raw_of(current, kCuptiCollected[count]));
    return out;
}

} // namespace

class TestCuptiMetrics : public QObject {
    Q_OBJECT
private slots:
    void collectedExpressionsAreDistinctAndFitTheAbi()
    {
        std::set<std::string_view> seen(kCuptiCollected.begin(), kCuptiCollected.end());
        QCOMPARE(seen.size(), kCuptiCollected.size());
        QVERIFY(kCuptiCollected.size() <= KWB_PM_MAX_METRICS);
        for (const auto& l : kCuptiLanes) {
            QVERIFY(l.a < kCuptiCollected.size());
            if (l.formula != CuptiFormula::Direct)
                QVERIFY(l.c < kCuptiCollected.size());
            if (l.formula == CuptiFormula::PctOfActive)
                QVERIFY(l.b < kCuptiCollected.size());
        }
    }

    void oneNameOneCounter()
    {
        std::set<std::string_view> names;
        std::set<std::tuple<int, std::size_t, std::size_t, std::size_t>> formulas;
        for (const auto& l : kCuptiLanes) {
            QVERIFY(names.insert(l.lane).second);
            QVERIFY2(formulas.insert({static_cast<int>(l.formula), l.a, l.b, l.c}).second, l.lane.data());
            QVERIFY(!l.ncu.empty());
        }
        // CUPTI's "shared pipe" is fp64 + tensor: beside the tensor pipe it named the tensor
        // counter twice (tensor_pct == smem_pipe_pct in every recorded study).
        QVERIFY(!names.count("smem_pipe_pct"));
        for (const auto& c : kCuptiCollected)
            QVERIFY2(c.find("pipe_shared") == std::string_view::npos, c.data());
    }

    // The lanes that disagreed with ncu on the H200 are gone with their counters, each with its reason.
    void retiredLanesAreNotCollected()
    {
        for (const auto& r : kCuptiRetiredLanes) {
            QVERIFY(std::none_of(
                kCuptiLanes.begin(), kCuptiLanes.end(), [&](const CuptiLane& l) { return l.lane == r.lane; }));
            QCOMPARE(cupti_retired_reason(r.lane), r.reason);
            QVERIFY(r.reason.find("ncu") != std::string_view::npos || r.lane == "smem_pipe_pct");
        }
        QVERIFY(cupti_retired_reason("dram_pct").empty());
        for (const auto& c : kCuptiCollected) {
            QVERIFY2(c.find("lts__throughput") == std::string_view::npos, c.data());
            QVERIFY2(c != "sm__inst_executed_realtime.avg.per_cycle_active", c.data());
        }
    }

    // By NVPW's raw dependencies: every collected expression is known, fits one pass, and no two
    // lanes read the same set of counters.
    void noTwoLanesReadTheSameCounters()
    {
        const auto d = deps();
        const auto& current = d["current"];
        QCOMPARE(current["pm_sampling_passes"].get<int>(), 1);
        for (const auto& c : kCuptiCollected)
            QVERIFY2(current["raw_dependencies"].contains(std::string(c)), c.data());
        std::set<std::set<std::string>> seen;
        for (const auto& l : kCuptiLanes) {
            const auto counters = lane_counters(current, l);
            QVERIFY2(!counters.empty(), l.lane.data());
            QVERIFY2(seen.insert(counters).second, l.lane.data());
        }
    }

    // The fix, by construction: a computed ratio takes numerator and active cycles from one
    // counter domain. The recorded lanes that read 533 % divided TPC counters by the SM domain's
    // cycles: NVPW lists sm__cycles_active's own counter among the old fma ratio's dependencies,
    // not the TPC domain's.
    void ratiosStayWithinOneDomain()
    {
        for (const auto& l : kCuptiLanes)
            if (l.formula == CuptiFormula::PctOfActive) {
                QCOMPARE(domain(kCuptiCollected[l.a]), domain(kCuptiCollected[l.c]));
                QCOMPARE(domain(kCuptiCollected[l.b]), domain(kCuptiCollected[l.c]));
            }
        for (const auto& [count, peak] : kCuptiBusiestOf)
            QCOMPARE(domain(kCuptiCollected[count]), std::string("TPC.TriageCompute"));
        const auto d = deps();
        const auto tpc_cycles = raw_of(d["current"], "TPC.TriageCompute.sm__cycles_active.avg");
        const auto sm_cycles = raw_of(d["current"], "sm__cycles_active.avg.pct_of_peak_sustained_elapsed");
        QCOMPARE(tpc_cycles.size(), size_t {1});
        const auto old_fma = raw_of(d["before_issue_30"],
            "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_active");
        QVERIFY(!old_fma.count(*tpc_cycles.begin())); // the old ratio did not use the TPC cycles
        bool shares_sm_cycles = false;
        for (const auto& c : sm_cycles)
            shares_sm_cycles = shares_sm_cycles || old_fma.count(c);
        QVERIFY(shares_sm_cycles); // it used the SM domain's
    }

    void consistentCountersGiveLanesInRange()
    {
        const auto at = [](std::string_view e) { return cupti_collected_index(e).value(); };
        const auto lane = [](std::string_view name) {
            for (std::size_t i = 0; i < kCuptiLanes.size(); ++i)
                if (kCuptiLanes[i].lane == name)
                    return i;
            throw std::runtime_error("no lane");
        };
        for (double share : {0.0, 0.25, 0.95, 1.0}) {
            double v[KWB_PM_MAX_METRICS] = {};
            v[at("TPC.TriageCompute.sm__cycles_active.avg")] = 1.5e6;
            v[at("TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.peak_sustained")] = 1;
            v[at("TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg")] = share * 1.5e6;
            v[at("TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.peak_sustained")] = 2;
            v[at("TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg")] = share * 0.5 * 2 * 1.5e6;
            v[at("TPC.TriageCompute.sm__inst_executed_realtime.avg.peak_sustained")] = 4;
            v[at("TPC.TriageCompute.sm__inst_executed_realtime.avg")] = 0.6 * 4 * 1.5e6;
            v[at("TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.avg.peak_sustained")] = 2;
            v[at("sm__cycles_active.avg.pct_of_peak_sustained_elapsed")] = 80;
            v[at("gpc__cycles_elapsed.avg.per_second")] = 1.98e9;
            v[at("dram__bytes_read.sum.per_second")] = 4.4e12;
            const auto out = cupti_lane_values(v);
            QCOMPARE(out[lane("tensor_pct")], 100 * share);
            QCOMPARE(out[lane("fma_pct")], 50 * share);
            QCOMPARE(out[lane("sm_pct")], std::max(100 * share, 60.0) * 0.8);
            QCOMPARE(out[lane("sm_active_pct")], 80.0);
            QCOMPARE(out[lane("sm_clock")], 1980.0);
            QCOMPARE(out[lane("dram_read")], 4400.0);
        }
    }

    void noActiveCyclesReadsZero()
    {
        double v[KWB_PM_MAX_METRICS] = {};
        v[cupti_collected_index("TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg").value()] = 5;
        for (const double x : cupti_lane_values(v))
            QCOMPARE(x, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestCuptiMetrics)
#include "tst_cupti_metrics.moc"
