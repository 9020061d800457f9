// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"
#include "cpu/attention.h"
#include "cpu/workload_util.h"

#include <QTest>
#include <cfloat>
#include <cmath>

using namespace kwb;
using namespace kwb::cpu;

class TestKernelAttention : public QObject {
    Q_OBJECT

private slots:
    void matchesExplicitSoftmax_data()
    {
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("tile_q");
        QTest::addColumn<int>("tile_k");
        QTest::addColumn<int>("threads");
        // Tiles that do not divide the sequence, tiles of one, tiles longer than the sequence,
        // unequal query and key tiles (the diagonal then cuts tiles in different places).
        QTest::addRow("one token") << 1 << 1 << 1 << 1 << 1 << 1;
        QTest::addRow("seq 7, tiles 3x2") << 1 << 7 << 4 << 3 << 2 << 1;
        QTest::addRow("seq 33, tiles 16x16, 2 threads") << 2 << 33 << 16 << 16 << 16 << 2;
        QTest::addRow("seq 65, tile_k 1") << 3 << 65 << 8 << 64 << 1 << 1;
        QTest::addRow("tiles longer than seq") << 1 << 100 << 32 << 128 << 128 << 1;
        QTest::addRow("seq 129, tiles 32x48, 2 threads") << 2 << 129 << 24 << 32 << 48 << 2;
        QTest::addRow("seq 50, tiles 7x13, 3 threads") << 4 << 50 << 64 << 7 << 13 << 3;
        QTest::addRow("odd head_dim") << 2 << 40 << 5 << 16 << 8 << 2;
    }

    void matchesExplicitSoftmax()
    {
        QFETCH(int, heads);
        QFETCH(int, seq);
        QFETCH(int, head_dim);
        QFETCH(int, tile_q);
        QFETCH(int, tile_k);
        QFETCH(int, threads);
        const AttentionShape shape {heads, seq, head_dim};
        const auto n = static_cast<std::size_t>(heads) * seq * head_dim;
        std::vector<float> q(n), k(n), v(n), o(n, NAN), ref(n);
        fill_uniform(q, 1, -3.0f, 3.0f); // scores of several units: a peaked softmax
        fill_uniform(k, 2, -3.0f, 3.0f);
        fill_uniform(v, 3);
        ThreadPool pool(threads);
        FlashAttention flash(tile_q, tile_k, head_dim, pool);
        flash.run(shape, q.data(), k.data(), v.data(), o.data());
        attention_reference(shape, q.data(), k.data(), v.data(), ref.data());
        const double tol = 4.0 * (head_dim + seq) * FLT_EPSILON;
        QVERIFY2(max_abs_diff(o, ref) <= tol,
            qPrintable(QStringLiteral("error %1 > %2").arg(max_abs_diff(o, ref)).arg(tol)));
    }

    void referenceIsCausal()
    {
        // The first query sees only the first key, so its output is exactly the first value row.
        const AttentionShape shape {1, 3, 2};
        const std::vector<float> q {1, 0, 0, 1, 1, 1}, k {1, 0, 0, 1, 1, 1}, v {0.5f, -0.5f, 9, 9, 7, 7};
        std::vector<float> o(6);
        attention_reference(shape, q.data(), k.data(), v.data(), o.data());
        QCOMPARE(o[0], 0.5f);
        QCOMPARE(o[1], -0.5f);
    }

    void workloadVerifies_data()
    {
        QTest::addColumn<int>("seq_len");
        QTest::addColumn<int>("tile_q");
        QTest::addColumn<int>("tile_k");
        QTest::addRow("128, tiles 16x128") << 128 << 16 << 128;
        QTest::addRow("200, tiles 64x32") << 200 << 64 << 32;
    }

    void workloadVerifies()
    {
        QFETCH(int, seq_len);
        QFETCH(int, tile_q);
        QFETCH(int, tile_k);
        const Workload* w = builtin_workloads().find("attention");
        QVERIFY(w);
        const auto params = resolve_params(
            *w, {{"seq_len", seq_len}, {"heads", 2}, {"tile_q", tile_q}, {"tile_k", tile_k}, {"iterations", 1}});
        auto prepared = w->prepare(params, Backend::Cpu);
        const auto r = prepared->run_once();
        QVERIFY(r.metrics.at("time_ms") > 0);
        QVERIFY(r.metrics.at("gflops") > 0);
        const auto v = prepared->verify();
        QVERIFY2(v.ok, v.detail.c_str());
    }
};

QTEST_GUILESS_MAIN(TestKernelAttention)
#include "tst_kernel_attention.moc"
