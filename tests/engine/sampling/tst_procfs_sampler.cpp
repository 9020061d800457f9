// SPDX-License-Identifier: GPL-3.0-or-later
// The procfs CPU sampler: parsing of /proc/<pid>/stat and statm, and live readings on its thread.
#include "sampling/procfs_sampler.h"

#include <QTest>
#include <atomic>
#include <mutex>
#include <vector>

using namespace kwb;

class TestProcfsSampler : public QObject {
    Q_OBJECT

private slots:
    void parsesStatWithAwkwardCommandNames_data()
    {
        QTest::addColumn<QString>("stat");
        QTest::addColumn<double>("seconds");
        // utime (14th field) = 250 ticks, stime (15th) = 50 ticks: 3 s at 100 ticks/s.
        QTest::addRow("plain") << QStringLiteral("1234 (kwb) R 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 3") << 3.0;
        QTest::addRow("spaces and parens") << QStringLiteral("1234 (a) b (c) R 1 2 3 4 5 6 7 8 9 10 250 50 0 0") << 3.0;
    }
    void parsesStatWithAwkwardCommandNames()
    {
        QFETCH(QString, stat);
        QFETCH(double, seconds);
        const auto v = parse_proc_stat_cpu_seconds(stat.toStdString(), 100);
        QVERIFY(v.has_value());
        QCOMPARE(*v, seconds);
    }

    void rejectsMalformedText()
    {
        QVERIFY(!parse_proc_stat_cpu_seconds("no parenthesis here", 100));
        QVERIFY(!parse_proc_stat_cpu_seconds("1 (x) R 1 2", 100));
        QVERIFY(!parse_proc_statm_rss_mib("", 4096));
    }

    void parsesStatm()
    {
        const auto v = parse_proc_statm_rss_mib("1000 512 100 10 0 200 0\n", 4096);
        QVERIFY(v.has_value());
        QCOMPARE(*v, 2.0); // 512 pages of 4 KiB
    }

    void parsesMachineStat()
    {
        // user nice system idle iowait irq softirq steal guest guest_nice, at 100 ticks/s
        const auto v = parse_proc_stat_machine("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n", 100);
        QVERIFY(v.has_value());
        QCOMPARE(v->first, 1.5); // user + system
        QCOMPARE(v->second, 10.0); // + idle + iowait
        const auto old_kernel = parse_proc_stat_machine("cpu 10 0 10 80\n", 100); // only four fields
        QVERIFY(old_kernel.has_value());
        QCOMPARE(old_kernel->second, 1.0);
        QVERIFY(!parse_proc_stat_machine("intr 1 2 3 4\n", 100));
        QVERIFY(!parse_proc_stat_machine("cpu 1 2\n", 100));
    }

    void parsesSchedstatInNanoseconds()
    {
        const auto v = parse_schedstat_cpu_seconds("1234567890 55 7\n");
        QVERIFY(v.has_value());
        QCOMPARE(*v, 1.23456789);
        QVERIFY(!parse_schedstat_cpu_seconds("x"));
    }

    // Each percentage says what it is of: cpu_util of the machine, bench_thread_cpu of one core.
    void sharesAreOfTheirCores()
    {
        QCOMPARE(*cpu_share_pct(0.4, 0.2, 16), 12.5); // 2 busy threads on 16 cores
        QCOMPARE(*cpu_share_pct(0.2, 0.2, 1), 100.0);
        QVERIFY(!cpu_share_pct(1, 0, 4));
        QVERIFY(!cpu_share_pct(1, 1, 0));
    }

    void deliversReadingsUntilStopped()
    {
        ProcfsSampler sampler;
        if (!sampler.unavailable_reason().empty())
            QSKIP("no procfs here");
        std::mutex m;
        std::vector<MetricReading> got;
        sampler.start(
            [&](const MetricReading& r) {
                std::lock_guard l(m);
                got.push_back(r);
            },
            0.02);
        // Burn some CPU so utilisation is not zero, until a few readings have come.
        volatile double x = 0;
        for (int round = 0; round < 1000; ++round) {
            for (int i = 0; i < 100000; ++i)
                x = x + i;
            {
                std::lock_guard l(m);
                if (got.size() >= 12)
                    break;
            }
            QTest::qWait(5);
        }
        sampler.stop();
        std::lock_guard l(m);
        const size_t n = got.size();
        bool cpu = false, rss = false, other = false, thread = false;
        for (const auto& r : got) {
            if (r.name == "cpu_util") {
                cpu = true;
                QCOMPARE(r.unit, std::string("%"));
                QVERIFY(r.value >= 0 && r.value <= 100.5); // of the machine: two threads cannot fill it past 100
            } else if (r.name == "other_cpu") {
                other = true;
                QVERIFY(r.value >= 0 && r.value <= 100);
            } else if (r.name == "bench_thread_cpu") {
                thread = true;
                QVERIFY(r.value >= 0);
            } else if (r.name == "rss") {
                rss = true;
                QCOMPARE(r.unit, std::string("MiB"));
                QVERIFY(r.value > 0);
            }
            QVERIFY(r.t_s > 0);
        }
        QVERIFY(cpu && rss && other && thread);
        // stop() returns only once the sink will not be called again.
        QTest::qWait(100);
        QCOMPARE(got.size(), n);
    }
};

QTEST_GUILESS_MAIN(TestProcfsSampler)
#include "tst_procfs_sampler.moc"
