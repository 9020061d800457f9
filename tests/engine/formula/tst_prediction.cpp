// SPDX-License-Identifier: GPL-3.0-or-later
// The study's prediction: variables from the hardware sheet, the catalogue and the arms; the
// predicted delta% and speedup; the stored value always the formula's.
#include "formula/formula_templates.h"
#include "formula/formula_variables.h"
#include "formula/prediction.h"
#include "study/study_file.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTest>

using namespace kwb;

namespace {

nlohmann::json h200_devices()
{
    QFile f(QStringLiteral(KWB_SOURCE_DIR "/tests/widgets/data/h200_devices.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read h200_devices.json");
    return nlohmann::json::parse(f.readAll().toStdString()).at("devices");
}

Study gemm_study()
{
    Study s;
    s.name = "t";
    s.target.metric = "time_ms";
    Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"block", 32}, {"size", 512}, {"fast", false}, {"dtype", "fp32"}}, std::nullopt},
        {"treatment", {{"block", 128}, {"size", 512}, {"fast", true}, {"dtype", "fp32"}}, std::nullopt}};
    s.experiments.push_back(e);
    return s;
}

const FormulaVariable* find(const std::vector<FormulaVariable>& vars, const std::string& name)
{
    for (const auto& v : vars)
        if (v.name == name)
            return &v;
    return nullptr;
}

} // namespace

class TestPrediction : public QObject {
    Q_OBJECT

private slots:
    void armParametersAreVariables()
    {
        const auto vars = formula_variables(gemm_study());
        QCOMPARE(find(vars, "baseline_block")->value, 32.0);
        QCOMPARE(find(vars, "treatment_block")->value, 128.0);
        QCOMPARE(find(vars, "treatment_fast")->value, 1.0);
        QCOMPARE(find(vars, "baseline_fast")->value, 0.0);
        QVERIFY(!find(vars, "baseline_dtype")); // text is no number
        QCOMPARE(find(vars, "baseline_block")->source, std::string("baseline arm"));
    }

    void deviceSheetGivesHardwareConstants()
    {
        Study s = gemm_study();
        s.hardware.devices = h200_devices();
        const auto vars = formula_variables(s);
        QCOMPARE(find(vars, "smem_per_sm")->value, 233472.0); // the device's own report
        QCOMPARE(find(vars, "max_blocks_per_sm")->value, 32.0);
        QCOMPARE(find(vars, "sm_count")->value, 132.0);
        QCOMPARE(find(vars, "l2_bytes")->value, 62914560.0);
        QCOMPARE(find(vars, "peak_hbm_gbs")->value, 4800.0); // the catalogue's peak
        QCOMPARE(find(vars, "peak_bf16_tflops")->value, 989.4);
        QCOMPARE(find(vars, "cpu_cores")->value, 16.0);
    }

    void namedCataloguePartReplacesTheSheet()
    {
        Study s = gemm_study();
        s.hardware.devices = h200_devices();
        s.prediction.gpu = "L40S";
        const auto vars = formula_variables(s);
        QCOMPARE(find(vars, "smem_per_sm")->value, 100.0 * 1024);
        QCOMPARE(find(vars, "peak_hbm_gbs")->value, 864.0);
    }

    void typedValuesOverrideAndSayWhat()
    {
        Study s = gemm_study();
        s.hardware.devices = h200_devices();
        s.prediction.variables["smem_per_sm"] = 102400;
        const auto vars = formula_variables(s);
        const auto* v = find(vars, "smem_per_sm");
        QCOMPARE(v->value, 102400.0);
        QCOMPARE(v->source, std::string("study"));
        QVERIFY(QString::fromStdString(v->note).contains(QStringLiteral("replaces the hardware value 233472")));
        QCOMPARE(
            std::count_if(vars.begin(), vars.end(), [](const FormulaVariable& x) { return x.name == "smem_per_sm"; }),
            std::ptrdiff_t(1));
    }

    void deltaAndSpeedup_data()
    {
        QTest::addColumn<double>("delta");
        QTest::addColumn<bool>("lower");
        QTest::addColumn<double>("speedup"); // 0 = none
        QTest::addRow("lower 50 pct") << 50.0 << true << 2.0;
        QTest::addRow("lower -25 pct") << -25.0 << true << 0.8;
        QTest::addRow("lower 100 pct") << 100.0 << true << 0.0;
        QTest::addRow("higher 50 pct") << 50.0 << false << 1.5;
        QTest::addRow("higher -100 pct") << -100.0 << false << 0.0;
    }

    void deltaAndSpeedup()
    {
        QFETCH(double, delta);
        QFETCH(bool, lower);
        QFETCH(double, speedup);
        const auto s = speedup_from_delta(delta, lower ? Direction::Lower : Direction::Higher);
        if (speedup == 0)
            QVERIFY(!s);
        else
            QCOMPARE(*s, speedup);
    }

    void refreshStoresTheFormulaValueOnly()
    {
        Study s = gemm_study();
        s.prediction.formula = "100 * (1 - baseline_block / treatment_block)";
        s.prediction.predicted_delta_pct = 12; // typed: never kept
        const auto r = refresh_prediction(s);
        QCOMPARE(*s.prediction.predicted_delta_pct, 75.0);
        QCOMPARE(*r.speedup, 4.0);
        s.prediction.formula = "100 * (1 - baseline_block / unknown)";
        refresh_prediction(s);
        QVERIFY(!s.prediction.predicted_delta_pct);
        s.prediction.formula.clear();
        s.prediction.predicted_delta_pct = 12;
        refresh_prediction(s);
        QVERIFY(!s.prediction.predicted_delta_pct);
    }

    void loadAndSaveRecompute()
    {
        Study s = gemm_study();
        s.prediction.formula = "2 * k";
        s.prediction.variables["k"] = 7;
        s.prediction.predicted_delta_pct = 99;
        const QString path
            = QDir::tempPath() + QStringLiteral("/kwb_prediction_%1.json").arg(QCoreApplication::applicationPid());
        save_study(s, path.toStdString());
        QCOMPARE(*s.prediction.predicted_delta_pct, 14.0);
        // A file whose stored value disagrees with its formula (typed by hand) loads with the formula's.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        auto doc = nlohmann::json::parse(f.readAll().toStdString());
        f.close();
        doc["prediction"]["predicted_delta_pct"] = 55;
        const Study loaded = parse_study(doc.dump(), "hand-edited");
        QCOMPARE(*loaded.prediction.predicted_delta_pct, 14.0);
        QFile::remove(path);
    }

    void templatesEvaluateOnAKnownPart_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("expected");
        // By hand from the templates' example inputs and the H200 sheet:
        // occupancy: floor(233472 / 98304) = 2 and floor(233472 / 65536) = 3 blocks -> 100 (1 - 2/3).
        QTest::addRow("occupancy-smem") << "occupancy-smem" << 100.0 * (1 - 2.0 / 3.0);
        // roofline: memory-bound at both ends (1 GB and 0.5 GB at 4800 GB/s) -> 50%.
        QTest::addRow("roofline") << "roofline" << 50.0;
        QTest::addRow("launch-overhead") << "launch-overhead" << 100.0 * 299 * 4 / (2000 + 300 * 4);
        QTest::addRow("loop-iteration") << "loop-iteration" << 100.0 * 32 * 12 / (500 + 64 * 12);
    }

    void templatesEvaluateOnAKnownPart()
    {
        QFETCH(QString, id);
        QFETCH(double, expected);
        Study s = gemm_study();
        s.hardware.devices = h200_devices();
        const FormulaTemplate* t = find_formula_template(id.toStdString());
        QVERIFY(t);
        apply_formula_template(s, *t);
        QVERIFY(s.prediction.predicted_delta_pct);
        QVERIFY(qAbs(*s.prediction.predicted_delta_pct - expected) < 1e-9);
    }

    void templateKeepsTypedValues()
    {
        Study s = gemm_study();
        s.prediction.variables["iter_ns"] = 24;
        apply_formula_template(s, *find_formula_template("loop-iteration"));
        QCOMPARE(s.prediction.variables.at("iter_ns"), 24.0);
        QCOMPARE(s.prediction.variables.at("fixed_ns"), 500.0);
    }

    void templateWithoutHardwareNamesWhatIsMissing()
    {
        Study s = gemm_study(); // no GPU in its sheet
        apply_formula_template(s, *find_formula_template("occupancy-smem"));
        const auto r = evaluate_prediction(s);
        QVERIFY(!r.evaluation.ok());
        QCOMPARE(r.evaluation.error->token, std::string("smem_per_sm"));
        QCOMPARE(r.evaluation.error->position(), 22);
    }
};

QTEST_GUILESS_MAIN(TestPrediction)
#include "tst_prediction.moc"
