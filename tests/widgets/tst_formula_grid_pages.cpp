// SPDX-License-Identifier: GPL-3.0-or-later
// The phase-4 (formula) and phase-6 (grid) pages driven offscreen as a user drives them: typing a
// formula, a template, a variable; making a grid and reading its heat map and interaction.
#include "models/grid_view.h"
#include "models/study_document.h"
#include "pages/formula_page.h"
#include "pages/grid_page.h"
#include "plots/heat_map.h"
#include "study/arm_roles.h"
#include "study/grid.h"
#include "verdict/aa_verdict.h"
#include "verdict/grid_interaction.h"
#include "verdict/verdict.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

Study abStudy()
{
    Study s;
    s.name = "gemm";
    s.target.metric = "time_ms";
    s.target.unit = "ms";
    Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"block", 32}, {"threads", 1}, {"size", 128}}, std::nullopt},
        {"treatment", {{"block", 128}, {"threads", 1}, {"size", 128}}, std::nullopt}};
    s.experiments.push_back(e);
    return s;
}

// A 2x2 grid whose cells are judged from fixed runs: block alone 20% faster, threads alone 10%,
// both together only 15% (the effects do not add up). A 2x3 grid (threads 1, 2, 4) with `wide`.
Study judgedGridStudy(bool wide = false)
{
    Study s = abStudy();
    add_grid(s, s.experiments.front(),
        {{"block", {32, 128}},
            {"threads", wide ? std::vector<nlohmann::json> {1, 2, 4} : std::vector<nlohmann::json> {1, 2}}});
    const std::map<std::string, double> treatment = {
        {"grid-1-r1c0", 8.0}, {"grid-1-r0c1", 9.0}, {"grid-1-r1c1", 8.5}, {"grid-1-r0c2", 9.5}, {"grid-1-r1c2", 7.0}};
    for (auto& e : s.experiments) {
        if (e.kind != kGridCellKind)
            continue;
        std::vector<double> b, t;
        for (int i = 0; i < 6; ++i) {
            const double wiggle = 0.01 * ((i % 3) - 1);
            b.push_back(10.0 + wiggle);
            t.push_back(treatment.at(e.id) + wiggle);
            for (int arm = 0; arm < 2; ++arm) {
                Sample x;
                x.arm = e.arms[static_cast<size_t>(arm)].name;
                x.rep = i;
                x.position = 2 * i + arm;
                x.metrics = {{"time_ms", arm == 0 ? b.back() : t.back()}};
                e.samples.push_back(x);
            }
        }
        const auto v = judge_samples(b, t, make_profile("generic", Direction::Lower), true);
        e.verdict = v;
        FinalVerdict f;
        f.word = v.word;
        e.final_verdict = f;
        e.status = ExperimentStatus::Done;
    }
    judge_grids(s);
    return s;
}

template<typename T> T* child(QWidget& page, const char* name)
{
    auto* w = page.findChild<T*>(QString::fromLatin1(name));
    if (!w)
        qFatal("no child %s", name);
    return w;
}

} // namespace

class TestFormulaGridPages : public QObject {
    Q_OBJECT
private slots:
    // Issue 31: before the arms exist the page says where the arm variables come from and offers no
    // example naming them; once they exist it names the varied parameter's variables, and the
    // example it offers evaluates.
    void formulaPageNamesTheVariablesThatExist()
    {
        StudyDocument doc;
        doc.newStudy();
        FormulaPage page(&doc);
        page.show();
        page.refresh();
        auto* note = child<QLabel>(page, "formulaArmsNote");
        auto* edit = child<QLineEdit>(page, "formulaEdit");
        QVERIFY2(note->text().contains(u"once the A/B has its arms"_s), qPrintable(note->text()));
        QVERIFY(!edit->placeholderText().contains(u"baseline_"_s));
        auto* table = child<QTableWidget>(page, "formulaVariables");
        for (int row = 0; row < table->rowCount(); ++row)
            QVERIFY(!table->item(row, 0)->text().startsWith(u"baseline_"_s));

        doc.mutableStudy() = abStudy();
        page.refresh();
        QVERIFY2(note->text().contains(u"baseline_block, treatment_block"_s), qPrintable(note->text()));
        QVERIFY(!note->text().contains(u"size"_s)); // the varied parameter only, not every one
        const QString example = edit->placeholderText().mid(edit->placeholderText().indexOf(u"100"_s));
        QVERIFY2(example.contains(u"baseline_block"_s), qPrintable(example));
        QTest::keyClicks(edit, example);
        QVERIFY2(child<QLabel>(page, "formulaError")->text().isEmpty(), qPrintable(example));
        QCOMPARE(*doc.study().prediction.predicted_delta_pct, 75.0);
    }

    void formulaIsEvaluatedAsTyped()
    {
        StudyDocument doc;
        doc.mutableStudy() = abStudy();
        FormulaPage page(&doc);
        page.resize(1024, 640);
        page.show();
        page.refresh();
        auto* edit = child<QLineEdit>(page, "formulaEdit");
        QTest::keyClicks(edit, u"100 * (1 - baseline_block / treatmnt_block)"_s);
        QCOMPARE(doc.study().prediction.formula, std::string("100 * (1 - baseline_block / treatmnt_block)"));
        QVERIFY(!doc.study().prediction.predicted_delta_pct);
        const QString error = child<QLabel>(page, "formulaError")->text();
        QVERIFY2(error.contains(u"position 29 ('treatmnt_block')"_s), qPrintable(error));
        QVERIFY(error.contains(QString(28, u' ') + u'^')); // the caret under the bad token

        edit->setCursorPosition(28);
        QTest::keyClicks(edit, u"t"_s); // treatmnt -> ttreatmnt: still wrong
        edit->selectAll();
        QTest::keyClicks(edit, u"100 * (1 - baseline_block / treatment_block)"_s);
        QCOMPARE(*doc.study().prediction.predicted_delta_pct, 75.0);
        const QString predicted = child<QLabel>(page, "predicted")->text();
        QVERIFY2(predicted.contains(u"+75.00 %"_s) && predicted.contains(u"4.000×"_s), qPrintable(predicted));
        QVERIFY(doc.isModified());
    }

    void templateAndCatalogueGpu()
    {
        StudyDocument doc;
        doc.mutableStudy() = abStudy();
        FormulaPage page(&doc);
        page.show();
        page.refresh();
        auto* templates = child<QComboBox>(page, "formulaTemplate");
        templates->setCurrentIndex(templates->findData(u"occupancy-smem"_s));
        QTest::mouseClick(child<QPushButton>(page, "useTemplate"), Qt::LeftButton);
        // No GPU in this study's sheet: the error names the first hardware constant.
        QVERIFY(!doc.study().prediction.predicted_delta_pct);
        QVERIFY(child<QLabel>(page, "formulaError")->text().contains(u"smem_per_sm"_s));
        auto* gpu = child<QComboBox>(page, "formulaGpu");
        const int h100 = gpu->findData(u"H100 80GB HBM3"_s);
        QVERIFY(h100 > 0);
        gpu->setCurrentIndex(h100);
        emit gpu->activated(h100);
        // 228 KiB per SM: 2 blocks of 96 KiB against 3 of 64 KiB.
        QVERIFY(qAbs(*doc.study().prediction.predicted_delta_pct - 100.0 / 3) < 1e-9);
        QCOMPARE(doc.study().prediction.gpu, std::string("H100 80GB HBM3"));
        QVERIFY(!doc.study().prediction.rationale.empty());
    }

    void variablesAreAddedAndEdited()
    {
        StudyDocument doc;
        doc.mutableStudy() = abStudy();
        doc.mutableStudy().prediction.formula = "2 * k";
        FormulaPage page(&doc);
        page.show();
        page.refresh();
        QTest::keyClicks(child<QLineEdit>(page, "newVariableName"), u"k"_s);
        QTest::keyClicks(child<QLineEdit>(page, "newVariableValue"), u"6"_s);
        QTest::mouseClick(child<QPushButton>(page, "addVariable"), Qt::LeftButton);
        QCOMPARE(*doc.study().prediction.predicted_delta_pct, 12.0);
        auto* table = child<QTableWidget>(page, "formulaVariables");
        int row = -1;
        for (int r = 0; r < table->rowCount(); ++r)
            if (table->item(r, 0)->text() == u"k"_s)
                row = r;
        QVERIFY(row >= 0);
        table->item(row, 1)->setText(u"7.5"_s);
        QCOMPARE(*doc.study().prediction.predicted_delta_pct, 15.0);
        QTest::keyClicks(child<QLineEdit>(page, "newVariableName"), u"2k"_s);
        QTest::keyClicks(child<QLineEdit>(page, "newVariableValue"), u"1"_s);
        QTest::mouseClick(child<QPushButton>(page, "addVariable"), Qt::LeftButton);
        QVERIFY(!doc.study().prediction.variables.count("2k"));
        QVERIFY(child<QLabel>(page, "formulaError")->text().contains(u"_2k"_s));
    }

    void makeGridFromTheAb()
    {
        StudyDocument doc;
        doc.mutableStudy() = abStudy();
        GridPage page(&doc);
        page.resize(1024, 640);
        page.show();
        page.refresh();
        child<QComboBox>(page, "rowVariable")->setCurrentText(u"block"_s);
        child<QComboBox>(page, "colVariable")->setCurrentText(u"threads"_s);
        QTest::keyClicks(child<QLineEdit>(page, "rowLevels"), u"32"_s);
        QTest::keyClicks(child<QLineEdit>(page, "colLevels"), u"1, 2"_s);
        QTest::mouseClick(child<QPushButton>(page, "makeGrid"), Qt::LeftButton);
        QVERIFY(doc.study().grids.empty()); // one level is no grid
        QVERIFY(child<QLabel>(page, "makeStatus")->text().contains(u"2 to 4"_s));

        QTest::keyClicks(child<QLineEdit>(page, "rowLevels"), u", 64, 128"_s);
        QTest::mouseClick(child<QPushButton>(page, "makeGrid"), Qt::LeftButton);
        QCOMPARE(doc.study().grids.size(), size_t(1));
        QCOMPARE(doc.study().experiments.size(), size_t(1 + 5)); // the A/B and a 3x2 grid's cells
        const auto& cell = *doc.study().find_experiment("grid-1-r2c1");
        QCOMPARE(cell.arms[1].params.at("block").get<int>(), 128);
        QCOMPARE(cell.arms[1].params.at("threads").get<int>(), 2);
        QCOMPARE(cell.arms[1].params.at("size").get<int>(), 128);
        QVERIFY(child<QLabel>(page, "interaction")->text().contains(u"waiting for"_s));
    }

    void heatMapAndInteraction()
    {
        StudyDocument doc;
        doc.mutableStudy() = judgedGridStudy();
        GridPage page(&doc);
        page.resize(1024, 640);
        page.show();
        page.refresh();
        const QString corner = page.heatMap()->cellText(1, 1);
        QVERIFY2(corner.contains(u"Δ +15.0 %"_s) && corner.contains(u"CI ["_s) && corner.contains(u"σ"_s),
            qPrintable(corner));
        QVERIFY(page.heatMap()->cellText(0, 0).contains(u"baseline"_s));
        QVERIFY(page.heatMap()->cellText(1, 0).contains(u"LICENSE"_s));
        const QString interaction = child<QLabel>(page, "interaction")->text();
        QVERIFY2(
            interaction.contains(u"do not add up"_s) && interaction.contains(u"-15.00"_s), qPrintable(interaction));

        const GridView view = gridView(doc.study(), doc.study().grids.front());
        QVERIFY(view.flagged);
        QVERIFY(qAbs(*view.differenceOfDifferences - (15.0 - 20.0 - 10.0)) < 1e-9);
    }

    // Beyond 2x2 the engine's summary already names the two-way test: the page does not say it twice.
    void interactionSaysTheTwoWayTestOnce()
    {
        StudyDocument doc;
        doc.mutableStudy() = judgedGridStudy(true);
        const auto& in = doc.study().grids.front().interaction;
        QVERIFY(in && in->p_two_way && !in->two_by_two());
        GridPage page(&doc);
        page.refresh();
        const QString interaction = child<QLabel>(page, "interaction")->text();
        QCOMPARE(interaction.count(u"two-way test"_s), qsizetype(1));
        // A 2x2 summary does not name it: the page adds the p-value.
        doc.mutableStudy() = judgedGridStudy();
        page.refresh();
        QCOMPARE(child<QLabel>(page, "interaction")->text().count(u"two-way test p = "_s), qsizetype(1));
    }

    // The grid's A/A box: ticking it puts the baseline cell again beside the first cell (r0c1) as
    // an A/A arm; its verdict shows under the interaction, which the third arm leaves alone.
    void gridAaArmBox()
    {
        StudyDocument doc;
        doc.mutableStudy() = judgedGridStudy();
        GridPage page(&doc);
        page.resize(1024, 640);
        page.show();
        page.refresh();
        QVERIFY(!page.aaArmBox()->isChecked());
        QVERIFY(page.aaText().isEmpty() || !child<QLabel>(page, "gridAa")->isVisible());
        page.aaArmBox()->click();
        const Experiment* carrier = grid_aa_cell(doc.study(), doc.study().grids.front());
        QVERIFY(carrier);
        QCOMPARE(carrier->id, std::string("grid-1-r0c1"));
        QCOMPARE(carrier->arms.size(), size_t(3));
        QCOMPARE(carrier->arms[2].name, std::string("r0c0-aa"));
        QVERIFY(carrier->arms[2].params == carrier->arms[0].params);
        QCOMPARE(page.aaText(), u"A/A arm beside cell r0c1: no verdict yet"_s);
        QVERIFY(page.aaArmBox()->isChecked());

        doc.edit(u"aa runs"_s, [](Study& s) {
            Experiment& e = *s.find_experiment("grid-1-r0c1");
            for (int i = 0; i < 6; ++i) {
                Sample x;
                x.arm = "r0c0-aa";
                x.rep = i;
                x.position = 100 + i;
                x.metrics = {{"time_ms", 10.0 + 0.01 * (((i + 1) % 3) - 1)}};
                e.samples.push_back(x);
            }
            e.aa_verdict = judge_aa_arm(e, make_profile("generic", Direction::Lower));
            judge_grids(s);
        });
        page.refresh();
        QVERIFY2(page.aaText().startsWith(u"A/A at n = 6: NOISE, delta "_s), qPrintable(page.aaText()));
        QVERIFY2(
            page.aaText().endsWith(u"(the baseline cell r0c0 again, beside cell r0c1)"_s), qPrintable(page.aaText()));
        QVERIFY(doc.study().grids.front().interaction.has_value()); // the A/A arm is not a cell of the grid
        QVERIFY(child<QLabel>(page, "interaction")->text().contains(u"do not add up"_s));

        page.aaArmBox()->click();
        QVERIFY(!grid_aa_cell(doc.study(), doc.study().grids.front()));
        for (const auto& e : doc.study().experiments)
            QVERIFY(!aa_arm(e));
        QVERIFY(!child<QLabel>(page, "gridAa")->isVisible());
    }
};

QTEST_MAIN(TestFormulaGridPages)
#include "tst_formula_grid_pages.moc"
