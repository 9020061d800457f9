// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm's weight-only fp8 rule (cpu/weight_fp8.h), whose host twin the GPU quantiser follows:
// a row's largest |w| lands on 448 exactly, every weight comes back within half an e4m3 step,
// an all-zero row gets the scale 1 and zero codes; and the quantised arm's declared bytes
// (decode_traffic.h): a step reads a byte a weight plus a scale a row, a prefill the bf16 copy.
#include "cpu/decode_traffic.h"
#include "cpu/weight_fp8.h"

#include <QTest>
#include <cmath>
#include <random>

using namespace kwb;

class TstKernelWeightFp8 : public QObject {
    Q_OBJECT
private slots:
    void round_trip_data();
    void round_trip();
    void zero_row();
    void declared_bytes();
};

void TstKernelWeightFp8::round_trip_data()
{
    QTest::addColumn<int>("distribution");
    QTest::addColumn<float>("spread");
    QTest::addRow("uniform, tiny_llm's init") << 0 << std::sqrt(3.0f / 2048);
    QTest::addRow("gaussian, heavy tail to the subnormals") << 1 << 0.02f;
    QTest::addRow("uniform, large") << 0 << 1000.0f;
}

void TstKernelWeightFp8::round_trip()
{
    QFETCH(int, distribution);
    QFETCH(float, spread);
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> uniform(-spread, spread);
    std::normal_distribution<float> normal(0.0f, spread);
    std::vector<float> row(2048);
    for (float& w : row)
        w = distribution == 0 ? uniform(gen) : normal(gen);
    row[100] = -5.0f * spread; // the largest |w|, negative
    const auto q = llm::quantise_weight_row(row.data(), row.size());
    QCOMPARE(q.scale, 5.0f * spread / 448.0f);
    QCOMPARE(q.codes[100], std::uint8_t(0xfe)); // -448: the row's largest weight is exact
    QCOMPARE(q.value(100), row[100]);
    double ss_err = 0, ss = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
        const double err = std::abs(static_cast<double>(q.value(i)) - row[i]);
        if (err > llm::weight_fp8_error_bound(row[i], q.scale) * (1 + 1e-6))
            QFAIL(qPrintable(QStringLiteral("weight %1: %2 came back as %3").arg(i).arg(row[i]).arg(q.value(i))));
        ss_err += err * err;
        ss += static_cast<double>(row[i]) * row[i];
    }
    // e4m3's 3 mantissa bits: the RMS relative error of a row is a few percent, not more (the
    // accuracy guard's tolerance in kernels/cuda/tiny_llm_guard.cu takes 2.55% for uniform rows).
    const double rel = std::sqrt(ss_err / ss);
    QVERIFY2(rel > 0.005 && rel < 0.04, qPrintable(QString::number(rel)));
}

void TstKernelWeightFp8::zero_row()
{
    const std::vector<float> row(64, 0.0f);
    const auto q = llm::quantise_weight_row(row.data(), row.size());
    QCOMPARE(q.scale, 1.0f);
    QCOMPARE(llm::weight_fp8_scale(0.0f), 1.0f);
    for (std::size_t i = 0; i < row.size(); ++i) {
        QCOMPARE(q.codes[i], std::uint8_t(0));
        QCOMPARE(q.value(i), 0.0f);
    }
}

void TstKernelWeightFp8::declared_bytes()
{
    // 1000 weights in 40 rows; 3 layers, kv_dim 8, 2-byte K, V.
    const auto w8 = llm::DecodeBytes::quantised(1000, 40, 2, 3, 8, 2);
    const auto bf16 = llm::DecodeBytes::of(1000, 2, 3, 8, 2);
    QCOMPARE(w8.weights, 1000.0 + 4 * 40);
    QCOMPARE(w8.prefill_weights, 2000.0);
    QCOMPARE(bf16.prefill_weights, bf16.weights);
    QCOMPARE(w8.kv_per_position, bf16.kv_per_position);
    const llm::DecodeTraffic t {2, 10, 500};
    QCOMPARE(w8.total(t), 2 * 2000.0 + 10 * 1160.0 + 500 * w8.kv_per_position);
    QCOMPARE(w8.per_step(t), 1160.0 + 50 * w8.kv_per_position);
}

QTEST_GUILESS_MAIN(TstKernelWeightFp8)
#include "tst_kernel_weight_fp8.moc"
