// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"
#include "cpu/rmsnorm.h"
#include "cpu/workload_util.h"

#include <QTest>
#include <cfloat>
#include <cmath>

using namespace kwb;
using namespace kwb::cpu;

class TestKernelRmsNorm : public QObject {
    Q_OBJECT

private slots:
    void matchesReference_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("threads");
        // hidden below, at and off multiples of the vector width: the tails run the scalar path.
        QTest::addRow("1x1 width 1") << 1 << 1 << 1 << 1;
        QTest::addRow("1x3 width 4 (tail only)") << 1 << 3 << 4 << 1;
        QTest::addRow("3x17 width 8, 2 threads") << 3 << 17 << 8 << 2;
        QTest::addRow("5x33 width 16") << 5 << 33 << 16 << 1;
        QTest::addRow("7x100 width 1, 2 threads") << 7 << 100 << 1 << 2;
        QTest::addRow("64x1024 width 8, 2 threads") << 64 << 1024 << 8 << 2;
        QTest::addRow("9x4099 width 4, 3 threads") << 9 << 4099 << 4 << 3;
        QTest::addRow("2x7 width 16") << 2 << 7 << 16 << 1;
    }

    void matchesReference()
    {
        QFETCH(int, rows);
        QFETCH(int, hidden);
        QFETCH(int, width);
        QFETCH(int, threads);
        std::vector<float> x(static_cast<std::size_t>(rows) * hidden), w(static_cast<std::size_t>(hidden));
        fill_uniform(x, 7, -4.0f, 4.0f);
        fill_uniform(w, 8, 0.5f, 1.5f);
        std::vector<float> y(x.size(), NAN), ref(x.size());
        ThreadPool pool(threads);
        rmsnorm(rows, hidden, width, x.data(), w.data(), y.data(), pool);
        rmsnorm_reference(rows, hidden, x.data(), w.data(), ref.data());
        const double tol = (hidden + 8) * FLT_EPSILON * std::max(1.0, max_abs(ref));
        QVERIFY2(max_abs_diff(y, ref) <= tol,
            qPrintable(QStringLiteral("error %1 > %2").arg(max_abs_diff(y, ref)).arg(tol)));
    }

    void referenceNormalisesToUnitRms()
    {
        // A row of equal values c has rms |c|, so y = sign(c) * weight.
        const std::vector<float> x {-2, -2, -2, -2}, w {1, 2, 3, 4};
        std::vector<float> y(4);
        rmsnorm_reference(1, 4, x.data(), w.data(), y.data());
        for (int i = 0; i < 4; ++i)
            QVERIFY(std::abs(y[i] + w[i]) < 1e-5);
    }

    void widths()
    {
        for (int width : {1, 4, 8, 16})
            QVERIFY(rmsnorm_supports_width(width));
        for (int width : {0, 2, 3, 5, 32})
            QVERIFY(!rmsnorm_supports_width(width));
    }

    void workloadVerifiesEveryWidth_data()
    {
        QTest::addColumn<int>("width");
        for (int width : {1, 4, 8, 16})
            QTest::addRow("width %d", width) << width;
    }

    void workloadVerifiesEveryWidth()
    {
        QFETCH(int, width);
        const Workload* w = builtin_workloads().find("rmsnorm");
        QVERIFY(w);
        const auto params
            = resolve_params(*w, {{"rows", 33}, {"hidden", 1000}, {"vector_width", width}, {"iterations", 3}});
        auto prepared = w->prepare(params, Backend::Cpu);
        const auto r = prepared->run_once();
        QCOMPARE(r.iterations.size(), std::size_t {3});
        QVERIFY(r.metrics.at("gbs") > 0);
        const auto v = prepared->verify();
        QVERIFY2(v.ok, v.detail.c_str());
    }
};

QTEST_GUILESS_MAIN(TestKernelRmsNorm)
#include "tst_kernel_rmsnorm.moc"
