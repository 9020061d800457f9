// SPDX-License-Identifier: GPL-3.0-or-later
// The range rule of percentage lanes (study/lane_range.h): its edges, and what it makes of lanes
// the H200 recorded before the lanes were fixed (tests/data/lanes/recorded_h200_lanes.json, trimmed
// from committed studies by make_recorded_lanes.py, which also computed the expected counts).
#include "study/lane_range.h"

#include <QTest>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

using namespace kwb;

namespace {

nlohmann::json recorded()
{
    std::ifstream in(KWB_TEST_DATA_DIR "/lanes/recorded_h200_lanes.json");
    return nlohmann::json::parse(in);
}

const nlohmann::json& lane(const nlohmann::json& all, const std::string& name, const std::string& study_part)
{
    for (const auto& l : all["lanes"])
        if (l["name"] == name && l["study"].get<std::string>().find(study_part) != std::string::npos)
            return l;
    throw std::runtime_error("no recorded lane " + name);
}

} // namespace

class TestLaneRange : public QObject {
    Q_OBJECT
private slots:
    void percentagesKeepClampOrDrop()
    {
        QVERIFY(is_percentage_unit("%"));
        QVERIFY(!is_percentage_unit("GB/s"));
        const auto keep = check_lane_reading("%", 100.0);
        QVERIFY(keep.keep && !keep.clamped);
        QCOMPARE(keep.value, 100.0);
        QCOMPARE(check_lane_reading("%", 0.0).value, 0.0);
        const auto skew = check_lane_reading("%", 100.5);
        QVERIFY(skew.keep && skew.clamped);
        QCOMPARE(skew.value, 100.0);
        QVERIFY(!check_lane_reading("%", std::nextafter(100.5, 200.0)).keep);
        QVERIFY(!check_lane_reading("%", 533.0).keep);
        QVERIFY(!check_lane_reading("%", -1e-9).keep);
        QVERIFY(!check_lane_reading("%", std::numeric_limits<double>::quiet_NaN()).keep);
        QVERIFY(!check_lane_reading("%", std::numeric_limits<double>::infinity()).keep);
    }

    void otherUnitsPassExceptNonFinite()
    {
        QCOMPARE(check_lane_reading("GB/s", 4800.0).value, 4800.0);
        QCOMPARE(check_lane_reading("C", -5.0).value, -5.0);
        QVERIFY(!check_lane_reading("MHz", std::numeric_limits<double>::quiet_NaN()).keep);
    }

    // Every recorded lane, through the rule: the counts the fixture's script computed, and no
    // kept reading outside [0, 100].
    void recordedLanesComeOutInRange()
    {
        const auto all = recorded();
        QVERIFY(all["lanes"].size() >= 10);
        unsigned dropped_somewhere = 0, clamped_somewhere = 0;
        for (const auto& l : all["lanes"]) {
            const std::string unit = l["unit"];
            const auto& expect = l["expect"];
            int kept = 0, clamped = 0, dropped = 0;
            double max_kept = -1, sum = 0;
            for (double v : l["values"]) {
                const auto r = check_lane_reading(unit, v);
                if (!r.keep) {
                    ++dropped;
                    continue;
                }
                ++kept;
                clamped += r.clamped;
                if (unit == "%")
                    QVERIFY2(r.value >= 0 && r.value <= 100, qPrintable(QString::number(r.value)));
                max_kept = std::max(max_kept, r.value);
                sum += r.value;
            }
            const QString what = QString::fromStdString(l["name"].get<std::string>());
            QCOMPARE(kept - clamped, expect["kept"].get<int>());
            QCOMPARE(clamped, expect["clamped"].get<int>());
            QCOMPARE(dropped, expect["dropped"].get<int>());
            if (!expect["max_kept"].is_null())
                QCOMPARE(max_kept, expect["max_kept"].get<double>());
            QVERIFY2(std::abs(sum - expect["sum_kept"].get<double>()) < 1e-6 * (1 + std::abs(sum)), qPrintable(what));
            dropped_somewhere += dropped > 0;
            clamped_somewhere += clamped > 0;
        }
        QVERIFY(dropped_somewhere >= 5); // the fixture does hold impossible readings
        QVERIFY(clamped_somewhere >= 1); // and skew just past 100
    }

    // The recorded GEMM's tensor_pct and smem_pipe_pct are one counter under two names (CUPTI's
    // "shared pipe" is fp64 + tensor; with no fp64 work it is the tensor pipe): sample for sample
    // identical. The lane table no longer has smem_pipe_pct (tst_cupti_metrics).
    void recordedDuplicateLanesAreIdentical()
    {
        const auto all = recorded();
        const auto& tensor = lane(all, "tensor_pct", "aa-gemm-1");
        const auto& shared = lane(all, "smem_pipe_pct", "aa-gemm-1");
        QCOMPARE(tensor["values"].size(), shared["values"].size());
        QVERIFY(tensor["values"] == shared["values"]);
        double top = 0;
        for (double v : tensor["values"])
            top = std::max(top, v);
        QVERIFY(top > 90); // and not because both are idle
    }

    // cpu_util recorded as a share of one core reads above 100 on every sample of a run whose
    // benchmark thread filled a core: that lane could not be kept, hence the share of the machine.
    void recordedOneCoreCpuUtilCannotBeKept()
    {
        const auto all = recorded();
        const auto& cpu = lane(all, "cpu_util", "reverted-4fe84c0");
        for (double v : cpu["values"])
            QVERIFY(!check_lane_reading("%", v).keep);
    }
};

QTEST_GUILESS_MAIN(TestLaneRange)
#include "tst_lane_range.moc"
