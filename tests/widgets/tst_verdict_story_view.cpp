// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 31: one verdict story in the window. Results and phase 8 show the final verdict as the one
// badge with the engine's deciding reason (verdict/verdict_story.h) beside it, the numbers-only
// verdict as a secondary line, and the next step of an INCONCLUSIVE as a button; the two pages
// agree for LICENSE, KILL, NOISE and every INCONCLUSIVE reason.
#include "models/study_document.h"
#include "pages/results_page.h"
#include "pages/verdict_page.h"
#include "pages/verdict_story_view.h"
#include "plots/verdict_badge.h"
#include "study/gates.h"
#include "verdict/verdict.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb;
using namespace kwb::gui;

namespace {

SampleVerdict sample(VerdictWord w, int rule, std::string reason, double delta, std::optional<double> sigma,
    const char* profile = "generic")
{
    SampleVerdict s;
    s.word = w;
    s.rule = rule;
    s.reasons = {std::move(reason)};
    s.delta_pct = delta;
    s.sigma_pct = sigma;
    s.speedup = 1 / (1 - delta / 100);
    s.profile = make_profile(profile, Direction::Lower);
    s.baseline.n = s.treatment.n = 6;
    return s;
}

StudyRulesInput named()
{
    StudyRulesInput in;
    in.tradeoffs = {{"loc-complexity", true, "a second code path"}};
    return in;
}

struct Case {
    const char* name;
    SampleVerdict sample;
    FinalVerdict final;
    VerdictWord word;
    NextStepKind next;
};

// Each verdict the window can be handed, made by the engine's own study rules.
std::vector<Case> cases()
{
    std::vector<Case> out;
    const auto add
        = [&](const char* name, const SampleVerdict& s, const StudyRulesInput& in, VerdictWord w, NextStepKind next) {
              out.push_back({name, s, apply_study_rules(s, in, s.profile), w, next});
          };
    const auto license
        = sample(VerdictWord::License, 5, "delta 39.14% >= license 10% with sigma 0.133% < 5%", 39.14, 0.133);
    add("license", license, named(), VerdictWord::License, NextStepKind::None);
    add("kill", sample(VerdictWord::Kill, 6, "delta -5% < kill 5%: a real regression", -5, 1), named(),
        VerdictWord::Kill, NextStepKind::None);
    add("noise", sample(VerdictWord::Noise, 4, "delta 0.1% is within the noise band", 0.1, 1), named(),
        VerdictWord::Noise, NextStepKind::None);
    add("no tradeoff named", license, {}, VerdictWord::Inconclusive, NextStepKind::FillGate);
    auto few = sample(VerdictWord::Inconclusive, 1, "not enough runs: 2 per arm < min_n 3", 14, 1);
    few.baseline.n = few.treatment.n = 2;
    add("too few runs", few, named(), VerdictWord::Inconclusive, NextStepKind::AddRuns);
    auto strict = sample(VerdictWord::Inconclusive, 5, "not significant: Welch p 0.2 >= 0.05", 12, 3, "strict");
    strict.runs_needed_per_arm = 21;
    add("strict not significant", strict, named(), VerdictWord::Inconclusive, NextStepKind::AddRuns);
    add("unstable", sample(VerdictWord::Inconclusive, 2, "workload not stable: sigma 12% > 10%", 14, 12), named(),
        VerdictWord::Inconclusive, NextStepKind::SteadierRuns);
    add("sigma above max",
        sample(VerdictWord::Inconclusive, 7, "grey zone: delta 20% >= license 10% but sigma 7% is not below 5%", 20, 7),
        named(), VerdictWord::Inconclusive, NextStepKind::SteadierRuns);
    add("between kill and license",
        sample(VerdictWord::Inconclusive, 7, "grey zone: delta 7% is between kill 5% and license 10%", 7, 1), named(),
        VerdictWord::Inconclusive, NextStepKind::NoRunCount);
    auto bimodal = sample(VerdictWord::Inconclusive, 3, "bimodal runs in the baseline: two modes", 14, 4);
    bimodal.reasons.push_back("bimodal runs in the treatment: two modes");
    add("bimodal", bimodal, named(), VerdictWord::Inconclusive, NextStepKind::CharacteriseModes);
    auto shared = named();
    shared.gpu_sharing = GpuSharingSummary {"NVML's compute-process list", 12, 3, {1, 4, 7}};
    add("shared gpu", license, shared, VerdictWord::Inconclusive, NextStepKind::QuieterMachine);
    GuardArms g;
    g.metric = "itl_ms";
    g.baseline = {10, 10.1, 9.9, 10.05, 9.95};
    g.treatment = {12, 12.1, 11.9, 12.05, 11.95};
    auto guarded = named();
    guarded.guards = {g};
    add("guard regressed", license, guarded, VerdictWord::Kill, NextStepKind::None);
    // The speed-of-light guard as the run writes it: the flag and its reason on the final verdict.
    Case sol {"speed of light", license, apply_study_rules(license, named(), license.profile),
        VerdictWord::Inconclusive, NextStepKind::Reprofile};
    sol.final.word = VerdictWord::Inconclusive;
    sol.final.flags.push_back("speed of light");
    sol.final.reasons.insert(
        sol.final.reasons.begin(), "the treatment cannot have done its work: 4.1 TB/s is above the 3.35 TB/s roof");
    out.push_back(sol);
    return out;
}

void load(StudyDocument& doc, const Case& c)
{
    doc.newStudy();
    doc.edit(u"experiment"_s, [&](Study& s) {
        Experiment e;
        e.id = "ab-1";
        e.arms = {{"baseline", {}}, {"treatment", {}}};
        e.status = ExperimentStatus::Done;
        e.verdict = c.sample;
        e.final_verdict = c.final;
        s.experiments.push_back(e);
    });
}

} // namespace

class TestVerdictStoryView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void resultsAndVerdictTellOneStory_data();
    void resultsAndVerdictTellOneStory();
    void theNextStepButtonAsksForItsStep();
    void noVerdictYetSaysSo();
    void commandArmsOnAGpuShowTheirGpu();
};

void TestVerdictStoryView::resultsAndVerdictTellOneStory_data()
{
    QTest::addColumn<int>("index");
    const auto all = cases();
    for (int i = 0; i < static_cast<int>(all.size()); ++i)
        QTest::addRow("%s", all[static_cast<size_t>(i)].name) << i;
}

void TestVerdictStoryView::resultsAndVerdictTellOneStory()
{
    QFETCH(int, index);
    const Case c = cases().at(static_cast<size_t>(index));
    QCOMPARE(c.final.word, c.word); // the fixture is the verdict it says it is
    StudyDocument doc;
    load(doc, c);
    ResultsPage results(&doc);
    VerdictPage verdict(&doc);
    results.refresh();
    verdict.refresh();
    const VerdictStory story = verdict_story(c.final, c.sample);
    QCOMPARE(story.next.kind, c.next);
    const QString word = QString::fromLatin1(to_string(c.word));
    for (VerdictStoryView* view : {results.story(), verdict.story()}) {
        QCOMPARE(view->badge()->verdict(), word);
        QVERIFY(!view->reasonText().isEmpty());
        QCOMPARE(view->reasonText(), QString::fromStdString(story.reason));
        QCOMPARE(view->numbersAloneText(), QString::fromStdString(story.numbers_alone));
        QVERIFY(view->numbersAloneText().startsWith(u"the numbers alone: "_s));
        QCOMPARE(view->changeText().isEmpty(), story.change.empty());
        QCOMPARE(view->nextStepButton()->isVisibleTo(view), !story.next.action.empty());
        QCOMPARE(view->nextStepButton()->text(), QString::fromStdString(story.next.action));
        // An INCONCLUSIVE always names its next step; a LICENSE, KILL or NOISE has none.
        QCOMPARE(view->nextStepText().isEmpty(), c.word != VerdictWord::Inconclusive);
    }
    QCOMPARE(results.badge()->verdict(), verdict.finalVerdict());
    QCOMPARE(verdict.story()->reasonText(), results.story()->reasonText());
    // Phase 8 holds one badge: the sample verdict is a line, not a second badge.
    QCOMPARE(verdict.findChildren<VerdictBadge*>().size(), 1);
    QCOMPARE(verdict.sampleVerdict(), QString::fromLatin1(to_string(c.sample.word)));
    // The reason beside the badge argues for the badge's word: a tradeoff-less LICENSE is not
    // explained by "delta >= license".
    if (c.word != c.sample.word)
        QVERIFY(results.story()->reasonText() != QString::fromStdString(c.sample.reasons.front()));
}

void TestVerdictStoryView::theNextStepButtonAsksForItsStep()
{
    for (const Case& c : cases()) {
        StudyDocument doc;
        load(doc, c);
        ResultsPage page(&doc);
        page.refresh();
        VerdictStoryView* view = page.story();
        QSignalSpy runs(view, &VerdictStoryView::addRunsRequested);
        QSignalSpy phase(view, &VerdictStoryView::phaseRequested);
        QSignalSpy attempt(view, &VerdictStoryView::newAttemptRequested);
        if (!view->nextStepButton()->isVisibleTo(view))
            continue;
        QTest::mouseClick(view->nextStepButton(), Qt::LeftButton);
        const NextStep next = verdict_story(c.final, c.sample).next;
        switch (next.kind) {
        case NextStepKind::AddRuns:
            QCOMPARE(runs.size(), 1);
            QCOMPARE(runs.at(0).at(0).toInt(), *next.runs_per_arm);
            break;
        case NextStepKind::QuieterMachine:
            QCOMPARE(attempt.size(), 1);
            break;
        default:
            QCOMPARE(phase.size(), 1);
            QCOMPARE(phase.at(0).at(0).toInt(), next.phase);
            QVERIFY(next.phase >= 1 && next.phase <= 8);
        }
        QCOMPARE(runs.size() + phase.size() + attempt.size(), 1);
    }
    // The named cases go where the issue says: a tradeoff to phase 7, re-profiling to phase 3,
    // the strict profile's estimate as the runs to add.
    const auto all = cases();
    const auto find = [&](std::string_view name) {
        return *std::find_if(all.begin(), all.end(), [&](const Case& c) { return c.name == name; });
    };
    QCOMPARE(verdict_story(find("no tradeoff named").final, find("no tradeoff named").sample).next.phase, 7);
    QCOMPARE(verdict_story(find("speed of light").final, find("speed of light").sample).next.phase, 3);
    QCOMPARE(
        verdict_story(find("strict not significant").final, find("strict not significant").sample).next.runs_per_arm,
        std::optional<int>(21));
}

void TestVerdictStoryView::noVerdictYetSaysSo()
{
    StudyDocument doc;
    doc.newStudy();
    ResultsPage page(&doc);
    page.refresh();
    QCOMPARE(page.badge()->verdict(), QString());
    QVERIFY(!page.story()->nextStepButton()->isVisibleTo(page.story()));
    QVERIFY(!page.story()->reasonText().isEmpty());
}

// Issue 31: a command experiment the run recorded on an H200 says so, not "command on cpu" (its
// backend setting); one that has not run yet shows its setting.
void TestVerdictStoryView::commandArmsOnAGpuShowTheirGpu()
{
    StudyDocument doc;
    doc.newStudy();
    doc.edit(u"command"_s, [](Study& s) {
        Experiment e;
        e.id = "ab-1";
        e.workload = "command";
        e.backend = "auto";
        e.arms = {{"baseline", {}}, {"treatment", {}}};
        e.device = {"cuda", "NVIDIA H200", "GPU-8c1a", 0, "580.65"};
        s.experiments.push_back(e);
    });
    ResultsPage page(&doc);
    page.refresh();
    QVERIFY2(page.summaryText().contains(u"command on NVIDIA H200 (cuda 0"_s), qPrintable(page.summaryText()));
    doc.edit(u"not run"_s, [](Study& s) { s.experiments[0].device = {}; });
    QVERIFY2(page.summaryText().contains(u"command on auto"_s), qPrintable(page.summaryText()));
}

QTEST_MAIN(TestVerdictStoryView)
#include "tst_verdict_story_view.moc"
