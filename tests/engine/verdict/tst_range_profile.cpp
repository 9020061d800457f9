// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb profile --arms all`'s engine side on fixed numbers: the plugin's range_profile reply read
// into per-launch values (verdict/range_profile.h), the launch aggregates (sums, sector-weighted hit
// rate, time-weighted occupancy, the longest kernel's registers), and the diff table with the
// verdict's noise rule (verdict/range_profile_diff.h).
#include "verdict/range_profile_diff.h"

#include <QTest>
#include <cmath>

using namespace kwb;
using nlohmann::json;

namespace {

// The reply of three launches of one kernel; columns in range_profiler_cupti_names() order:
// time (ns), DRAM read, DRAM write, L2 sectors, L2 hit %, occupancy %.
json one_kernel_reply(const std::vector<std::vector<double>>& ranges, int registers, int smem_static, int smem_dyn)
{
    json r {{"metrics", range_profiler_cupti_names()}, {"passes", 2}, {"launches", ranges.size()},
        {"kernels",
            json::array({{{"name", "gemm_tiled<128,128>"}, {"registers_per_thread", registers},
                {"static_smem_bytes", smem_static}, {"dynamic_smem_bytes", smem_dyn}}})},
        {"ranges", ranges}};
    return r;
}

const MetricDiffRow* row(const RangeProfileDiff& d, const std::string& scope, const std::string& metric)
{
    for (const auto& r : d.rows)
        if (r.scope == scope && r.row.metric == metric)
            return &r.row;
    return nullptr;
}

} // namespace

class TestRangeProfile : public QObject {
    Q_OBJECT
private slots:
    void metricNamesExistOnSm90()
    {
        // Each name is in shared/notes/range-profiler-metrics-sm90.txt (base metric + a listed suffix).
        const std::vector<std::string> expected {"gpu__time_duration.sum", "dram__bytes_read.sum",
            "dram__bytes_write.sum", "lts__t_sectors.sum", "lts__t_sector_hit_rate.pct",
            "sm__warps_active.avg.pct_of_peak_sustained_active"};
        QCOMPARE(range_profiler_cupti_names(), expected);
    }

    void readsTheReply()
    {
        const auto arm = range_profile_from_reply("baseline",
            one_kernel_reply(
                {{2.0e6, 100, 50, 6.30e6, 80, 40}, {2.2e6, 110, 50, 6.31e6, 81, 41}, {1.8e6, 90, 50, 6.29e6, 79, 42}},
                168, 0, 49152));
        QVERIFY(arm.unavailable.empty());
        QCOMPARE(arm.passes, 2);
        QCOMPARE(arm.launches.size(), std::size_t {3});
        const auto v = per_launch_values(arm, {});
        const std::vector<double> ms {2.0, 2.2, 1.8}; // ns -> ms
        QCOMPARE(v.at("kernel_ms").size(), ms.size());
        for (std::size_t i = 0; i < ms.size(); ++i)
            QVERIFY(std::fabs(v.at("kernel_ms")[i] - ms[i]) < 1e-12);
        QCOMPARE(v.at("registers_per_thread"), (std::vector<double> {168, 168, 168}));
        QCOMPARE(v.at("smem_per_block_bytes"), (std::vector<double> {49152, 49152, 49152}));
        const auto s = per_launch_stats(arm, {});
        QCOMPARE(s.at("dram_read_bytes").repetitions, std::size_t {3});
        QCOMPARE(*s.at("dram_read_bytes").mean, 100.0);
        QCOMPARE(*s.at("dram_read_bytes").cv_pct, 10.0); // sd 10 of mean 100
        // t(0.975, 2) = 4.302653: half-width 4.302653 x 10 / sqrt(3) = 24.8414.
        QVERIFY(std::fabs(*s.at("dram_read_bytes").ci95_low - (100 - 24.8414)) < 1e-3);
    }

    void rangesThatAreNotWholeLaunchesAreRefused()
    {
        auto reply = one_kernel_reply({{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}}, 64, 0, 0);
        reply["launches"] = 3;
        const auto arm = range_profile_from_reply("treatment", reply);
        QVERIFY(arm.launches.empty());
        QCOMPARE(QString::fromStdString(arm.unavailable),
            QStringLiteral("the range profiler gave 2 ranges for 3 launches of 1 kernels each; they cannot be matched "
                           "to kernels"));
        QCOMPARE(range_profile_from_reply("b", json {{"error", "CUPTI not loaded"}}).unavailable,
            std::string("CUPTI not loaded"));
    }

    void aggregatesTheKernelsOfALaunch()
    {
        // Two kernels a launch: 1 ms at occupancy 20 % with 1000 sectors hitting 90 %, then 3 ms at
        // occupancy 60 % with 3000 sectors hitting 50 %.
        json reply {{"metrics", range_profiler_cupti_names()}, {"launches", 2},
            {"kernels",
                json::array({{{"name", "qkv"}, {"registers_per_thread", 40}, {"static_smem_bytes", 1024}},
                    {{"name", "attn"}, {"registers_per_thread", 96}, {"dynamic_smem_bytes", 8192}}})},
            {"ranges",
                json::array({json::array({1e6, 10, 1, 1000, 90, 20}), json::array({3e6, 30, 3, 3000, 50, 60}),
                    json::array({1e6, 10, 1, 1000, 90, 20}), json::array({3e6, 30, 3, 3000, 50, 60})})}};
        const auto arm = range_profile_from_reply("baseline", reply);
        const auto v = per_launch_values(arm, {});
        QCOMPARE(v.at("dram_read_bytes").front(), 40.0);
        QCOMPARE(v.at("l2_sectors").front(), 4000.0);
        QCOMPARE(v.at("l2_hit_pct").front(), 60.0); // (900 + 1500) / 4000
        QCOMPARE(v.at("occupancy_pct").front(), 50.0); // (1 x 20 + 3 x 60) / 4
        QCOMPARE(v.at("registers_per_thread").front(), 96.0); // the longest kernel's
        QCOMPARE(v.at("smem_per_block_bytes").front(), 8192.0);
        QCOMPARE(per_launch_values(arm, "qkv").at("smem_per_block_bytes").front(), 1024.0);
        QCOMPARE(kernel_names(arm), (std::vector<std::string> {"qkv", "attn"}));
    }

    void diffUsesTheVerdictNoiseRule()
    {
        // The decode change of issue 30: L2 sectors 6.30 M -> 4.20 M, beyond noise; DRAM reads
        // 100 +- 10 -> 102 +- 6 (delta 2 % against noise 2 x 10 % = 20 %), within; registers
        // 168 -> 128 every launch (cv 0 both), beyond by any nonzero delta.
        const auto b = range_profile_from_reply("baseline",
            one_kernel_reply(
                {{2.0e6, 100, 50, 6.30e6, 80, 40}, {2.2e6, 110, 50, 6.31e6, 81, 41}, {1.8e6, 90, 50, 6.29e6, 79, 42}},
                168, 0, 49152));
        const auto t = range_profile_from_reply("treatment",
            one_kernel_reply(
                {{1.5e6, 102, 50, 4.20e6, 70, 60}, {1.5e6, 108, 50, 4.21e6, 71, 61}, {1.5e6, 96, 50, 4.19e6, 69, 62}},
                128, 0, 49152));
        const auto d = range_profile_diff(b, t, 2.0);
        QVERIFY(d.notes.empty());
        const auto* l2 = row(d, kWholeLaunch, "l2_sectors");
        QVERIFY(l2);
        QVERIFY(l2->beyond_noise);
        QVERIFY(std::fabs(*l2->delta - (-2.10e6)) < 1e-3);
        const auto* dram = row(d, kWholeLaunch, "dram_read_bytes");
        QVERIFY(dram);
        QVERIFY(!dram->beyond_noise);
        QVERIFY(std::fabs(*dram->delta_pct - 2.0) < 1e-9);
        QVERIFY(std::fabs(*dram->noise_pct - 20.0) < 1e-9);
        const auto* regs = row(d, kWholeLaunch, "registers_per_thread");
        QVERIFY(regs && regs->beyond_noise && *regs->delta == -40.0);
        const auto* smem = row(d, kWholeLaunch, "smem_per_block_bytes");
        QVERIFY(smem && !smem->beyond_noise && *smem->delta == 0.0);
        const auto* writes = row(d, kWholeLaunch, "dram_write_bytes");
        QVERIFY(writes && !writes->beyond_noise); // 50 every launch in both
        // One kernel a launch: no per-kernel rows (they would repeat the launch's).
        for (const auto& r : d.rows)
            QCOMPARE(QString::fromStdString(r.scope), QString::fromLatin1(kWholeLaunch));

        const auto j = range_profile_json({b, t}, {d});
        QCOMPARE(j.at("arms").size(), std::size_t {2});
        QCOMPARE(j.at("arms")[0].at("launch").at("l2_sectors").at("n").get<int>(), 3);
        QCOMPARE(j.at("diffs")[0].at("treatment").get<std::string>(), std::string("treatment"));
        QVERIFY(j.at("diffs")[0].at("rows").size() >= 6);
    }

    void anArmWithoutMetricsSaysSo()
    {
        const auto b = range_profile_from_reply(
            "baseline", one_kernel_reply({{1e6, 1, 1, 1, 1, 1}, {1e6, 1, 1, 1, 1, 1}}, 32, 0, 0));
        RangeProfileArm t;
        t.arm = "treatment";
        t.unavailable = "a command arm: its kernels run in another process";
        const auto d = range_profile_diff(b, t, 2.0);
        QVERIFY(d.rows.empty());
        QCOMPARE(d.notes.size(), std::size_t {1});
        QCOMPARE(QString::fromStdString(d.notes.front()),
            QStringLiteral("cannot be had for arm treatment: a command arm: its kernels run in another process"));
        QCOMPARE(range_profile_json({b, t}, {d}).at("arms")[1].at("unavailable").get<std::string>(), t.unavailable);
    }

    void multiKernelLaunchesAlsoDiffByKernelName()
    {
        json kernels = json::array({{{"name", "qkv"}, {"registers_per_thread", 40}}, {{"name", "attn"}}});
        const auto make = [&](const char* arm, double attn_sectors) {
            return range_profile_from_reply(arm,
                json {{"metrics", range_profiler_cupti_names()}, {"launches", 2}, {"kernels", kernels},
                    {"ranges",
                        json::array({json::array({1e6, 10, 1, 1000, 90, 20}),
                            json::array({3e6, 30, 3, attn_sectors, 50, 60}), json::array({1e6, 11, 1, 1001, 90, 20}),
                            json::array({3e6, 31, 3, attn_sectors + 1, 50, 60})})}});
        };
        const auto d = range_profile_diff(make("baseline", 6000), make("treatment", 4000), 2.0);
        QVERIFY(row(d, "qkv", "l2_sectors") && !row(d, "qkv", "l2_sectors")->beyond_noise);
        QVERIFY(row(d, "attn", "l2_sectors") && row(d, "attn", "l2_sectors")->beyond_noise);
        QVERIFY(row(d, kWholeLaunch, "l2_sectors")->beyond_noise);
    }
};

QTEST_GUILESS_MAIN(TestRangeProfile)
#include "tst_range_profile.moc"
