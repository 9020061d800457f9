// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"
#include "cpu/triad.h"
#include "cpu/workload_util.h"

#include <QTest>
#include <cmath>

using namespace kwb;
using namespace kwb::cpu;

class TestKernelTriad : public QObject {
    Q_OBJECT

private slots:
    void matchesScalarLoop_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("threads");
        // Lengths around the 16-float step and the per-thread slices, more threads than lines.
        for (int n : {0, 1, 15, 16, 17, 1000, 4097})
            for (int threads : {1, 2, 3})
                QTest::addRow("n %d, %d threads", n, threads) << n << threads;
    }

    void matchesScalarLoop()
    {
        QFETCH(int, n);
        QFETCH(int, threads);
        const auto size = static_cast<std::size_t>(n);
        std::vector<float> b(size), c(size), a(size, NAN), ref(size);
        fill_uniform(b, 1);
        fill_uniform(c, 2);
        ThreadPool pool(threads);
        triad(size, 3.0f, b.data(), c.data(), a.data(), pool);
        triad_reference(size, 3.0f, b.data(), c.data(), ref.data());
        // Same operations per element; a contracted multiply-add may differ by one rounding.
        QVERIFY(max_abs_diff(a, ref) <= 2e-6 * std::max(1.0, max_abs(ref)));
    }

    void workloadVerifies()
    {
        const Workload* w = builtin_workloads().find("triad");
        QVERIFY(w);
        auto prepared
            = w->prepare(resolve_params(*w, {{"size_mb", 1}, {"threads", 2}, {"iterations", 4}}), Backend::Cpu);
        const auto r = prepared->run_once();
        QCOMPARE(r.iterations.size(), std::size_t {4});
        QVERIFY(r.metrics.at("time_ms") > 0);
        QVERIFY(r.metrics.at("gbs") > 0);
        const auto v = prepared->verify();
        QVERIFY2(v.ok, v.detail.c_str());
    }
};

QTEST_GUILESS_MAIN(TestKernelTriad)
#include "tst_kernel_triad.moc"
