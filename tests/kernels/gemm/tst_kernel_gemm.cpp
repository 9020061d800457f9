// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"
#include "cpu/gemm.h"
#include "cpu/workload_util.h"

#include <QTest>
#include <algorithm>
#include <cfloat>

using namespace kwb;
using namespace kwb::cpu;

class TestKernelGemm : public QObject {
    Q_OBJECT

private slots:
    void matchesTripleLoop_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("threads");
        // Sizes that are not multiples of the block or of the 4x8 register tile, blocks smaller
        // than the tile and larger than the matrix, one and several threads.
        QTest::addRow("1x1x1 block 1") << 1 << 1 << 1 << 1 << 1;
        QTest::addRow("5x7x3 block 4") << 5 << 7 << 3 << 4 << 1;
        QTest::addRow("33x17x65 block 16, 2 threads") << 33 << 17 << 65 << 16 << 2;
        QTest::addRow("64^3 block 64") << 64 << 64 << 64 << 64 << 1;
        QTest::addRow("100x37x129 block 32, 2 threads") << 100 << 37 << 129 << 32 << 2;
        QTest::addRow("128^3 block 128, 2 threads") << 128 << 128 << 128 << 128 << 2;
        QTest::addRow("70x90x50 block 256") << 70 << 90 << 50 << 256 << 1;
        QTest::addRow("13x300x9 block 8, 3 threads") << 13 << 300 << 9 << 8 << 3;
        QTest::addRow("3x3x200 block 7") << 3 << 3 << 200 << 7 << 2;
    }

    void matchesTripleLoop()
    {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        QFETCH(int, block);
        QFETCH(int, threads);
        std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
        fill_uniform(a, 100 + m);
        fill_uniform(b, 200 + n);
        std::vector<float> c(static_cast<std::size_t>(m) * n, 12345.0f), ref(c.size());
        ThreadPool pool(threads);
        BlockedGemm gemm(block, pool);
        gemm.run(m, n, k, a.data(), b.data(), c.data());
        gemm_reference(m, n, k, a.data(), b.data(), ref.data());
        const double tol = k * FLT_EPSILON * std::max(1.0, max_abs(ref));
        QVERIFY2(max_abs_diff(c, ref) <= tol,
            qPrintable(QStringLiteral("error %1 > %2").arg(max_abs_diff(c, ref)).arg(tol)));
        // A second run on the same buffers overwrites C rather than accumulating into it.
        gemm.run(m, n, k, a.data(), b.data(), c.data());
        QVERIFY(max_abs_diff(c, ref) <= tol);
    }

    void referenceIsExactOnSmallIntegers()
    {
        // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]: the oracle itself must be right.
        const std::vector<float> a {1, 2, 3, 4}, b {5, 6, 7, 8};
        std::vector<float> c(4);
        gemm_reference(2, 2, 2, a.data(), b.data(), c.data());
        QCOMPARE(c, (std::vector<float> {19, 22, 43, 50}));
    }

    void workloadVerifies_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("threads");
        QTest::addRow("128 block 32") << 128 << 32 << 1;
        QTest::addRow("200 block 128, 2 threads") << 200 << 128 << 2;
        QTest::addRow("130 block 64") << 130 << 64 << 2;
    }

    void workloadVerifies()
    {
        QFETCH(int, size);
        QFETCH(int, block);
        QFETCH(int, threads);
        const Workload* w = builtin_workloads().find("gemm");
        QVERIFY(w);
        const auto params
            = resolve_params(*w, {{"size", size}, {"block", block}, {"threads", threads}, {"iterations", 2}});
        auto prepared = w->prepare(params, Backend::Cpu);
        const auto r = prepared->run_once();
        QCOMPARE(r.iterations.size(), std::size_t {2});
        QVERIFY(r.metrics.at("time_ms") > 0);
        QVERIFY(r.metrics.at("gflops") > 0);
        const auto v = prepared->verify();
        QVERIFY2(v.ok, v.detail.c_str());
        QVERIFY(v.tolerance > 0);
    }

    void blockIsAnIntegerParameterListing32And128()
    {
        const Workload* w = builtin_workloads().find("gemm");
        QVERIFY(w);
        const auto params = w->params();
        const auto block
            = std::find_if(params.begin(), params.end(), [](const ParamSpec& p) { return p.name == "block"; });
        QVERIFY(block != params.end());
        QVERIFY(block->default_value.is_number_integer());
        QVERIFY(std::count(block->values.begin(), block->values.end(), nlohmann::json(32)) == 1);
        QVERIFY(std::count(block->values.begin(), block->values.end(), nlohmann::json(128)) == 1);
        QCOMPARE(w->metrics().front().name, std::string("time_ms"));
    }
};

QTEST_GUILESS_MAIN(TestKernelGemm)
#include "tst_kernel_gemm.moc"
