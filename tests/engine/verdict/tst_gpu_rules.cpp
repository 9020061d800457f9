// SPDX-License-Identifier: GPL-3.0-or-later
// The study-level GPU rules (docs/verdict.md): another process on the GPU makes the final verdict
// INCONCLUSIVE with the count; the comparison in cycles is reported beside the wall-time verdict
// and its disagreement named. Recorded-style studies and their expected numbers come from
// scripts/gen_gpu_rules_fixtures.py (tests/data/studies/gpu).
#include "../../any_contains.h"
#include "../report/json_schema_check.h"
#include "report/render.h"
#include "report/report_model.h"
#include "run/judge_experiment.h"
#include "study/study_file.h"
#include "verdict/cycles.h"
#include "verdict/gpu_sharing.h"
#include "verdict/verdict.h"
#include "verdict/verdict_json.h"

#include <QTest>
#include <algorithm>
#include <fstream>

using namespace kwb;
using kwbtest::any_contains;

namespace {

const std::string kDir = KWB_SOURCE_DIR "/tests/data/studies/gpu/";

nlohmann::json expected(const std::string& name)
{
    std::ifstream in(kDir + "expected.json");
    return nlohmann::json::parse(in).at(name);
}

Study judged(const std::string& name, const std::function<void(Experiment&)>& edit = {})
{
    Study s = load_study(kDir + name + ".json");
    if (edit)
        edit(s.experiments.at(0));
    judge_experiment(s, s.experiments.at(0), {});
    return s;
}

FinalVerdict final_of(const Study& s)
{
    return *s.experiments.at(0).final_verdict;
}

} // namespace

class TestGpuRules : public QObject {
    Q_OBJECT

private slots:
    void every_repetition_shared_is_inconclusive_with_the_count()
    {
        const Study s = judged("shared_all");
        const FinalVerdict& f = final_of(s);
        QCOMPARE(f.sample_word, VerdictWord::Kill); // the timing alone says KILL
        QCOMPARE(f.word, VerdictWord::Inconclusive);
        QVERIFY(any_contains(f.reasons, "another process used the GPU in 12 of 12 repetitions"));
        QVERIFY(f.gpu_sharing);
        QCOMPARE(f.gpu_sharing->repetitions, expected("shared_all").at("repetitions").get<int>());
        QCOMPARE(f.gpu_sharing->shared, expected("shared_all").at("shared").get<int>());
        QVERIFY(s.ledger.back().verdict == "INCONCLUSIVE");
        // The matched control it breaks is failed from the measurement.
        QCOMPARE(s.experiments.at(0).controls.checklist.at("no other process on the device"), false);
    }

    void some_repetitions_shared_are_counted_and_placed()
    {
        const FinalVerdict& f = final_of(judged("shared_some"));
        QCOMPARE(f.word, VerdictWord::Inconclusive);
        QVERIFY(any_contains(f.reasons, "another process used the GPU in 3 of 12 repetitions"));
        QCOMPARE(f.gpu_sharing->positions, expected("shared_some").at("positions").get<std::vector<int>>());
    }

    void a_clean_gpu_leaves_the_verdict_as_it_was()
    {
        const Study s = judged("clean");
        const FinalVerdict& f = final_of(s);
        QCOMPARE(f.word, VerdictWord::Kill);
        QVERIFY(!any_contains(f.reasons, "another process"));
        QCOMPARE(f.gpu_sharing->shared, 0);
        QCOMPARE(f.gpu_sharing->repetitions, 12);
        // The same verdict as without the rule: apply_study_rules without the evidence.
        StudyRulesInput input;
        input.cycles = cycles_arms(s.experiments.at(0), Direction::Lower);
        const auto without = apply_study_rules(*s.experiments.at(0).verdict, input, f.profile);
        QCOMPARE(without.word, f.word);
        // judge_experiment applies the speed-of-light guard after the study rules: its line aside,
        // the reasons are the same.
        std::vector<std::string> reasons;
        for (const auto& r : f.reasons)
            if (r.rfind("speed-of-light guard", 0) != 0)
                reasons.push_back(r);
        QCOMPARE(without.reasons, reasons);
    }

    void repetitions_without_start_times_count_as_shared_when_the_lane_saw_another_process()
    {
        const FinalVerdict& f = final_of(judged("shared_some", [](Experiment& e) {
            for (auto& smp : e.samples)
                smp.t_s.reset();
        }));
        QCOMPARE(f.gpu_sharing->shared, 12);
        QCOMPARE(f.word, VerdictWord::Inconclusive);
    }

    void sharing_overrides_a_license_too()
    {
        const Profile p = make_profile("generic", Direction::Lower);
        const SampleVerdict v = judge_samples({10, 10.1, 9.9, 10.05, 9.95}, {8.6, 8.55, 8.58, 8.52, 8.61}, p, false);
        StudyRulesInput input;
        input.tradeoffs = {{"loc-complexity", true, "a second code path"}};
        input.gpu_sharing = GpuSharingSummary {"NVML", 10, 1, {7}};
        const FinalVerdict f = apply_study_rules(v, input, p);
        QCOMPARE(v.word, VerdictWord::License);
        QCOMPARE(f.word, VerdictWord::Inconclusive);
        QVERIFY(any_contains(f.reasons, "in 1 of 10 repetitions"));
    }

    void slower_on_the_wall_faster_per_cycle_is_named()
    {
        const FinalVerdict& f = final_of(judged("throttled"));
        const auto want = expected("throttled");
        QCOMPARE(f.word, VerdictWord::Kill); // the wall-time verdict stands
        QVERIFY(f.cycles);
        QCOMPARE(f.cycles->clock_source, std::string("cupti_sm_clock"));
        QVERIFY(f.cycles->caveat.empty());
        QVERIFY(std::fabs(*f.cycles->delta_pct - want.at("cycles_delta_pct").get<double>()) < 1e-9);
        // The lane's idle clock between repetitions must not leak into a repetition's mean.
        QVERIFY(std::fabs(*f.cycles->clock_baseline_mhz - want.at("clock_baseline_mhz").get<double>()) < 1e-6);
        QVERIFY(std::fabs(*f.cycles->clock_treatment_mhz - want.at("clock_treatment_mhz").get<double>()) < 1e-6);
        QCOMPARE(f.cycles->word, VerdictWord::License);
        QVERIFY(f.cycles->ci95_delta_pct);
        QVERIFY(f.cycles->disagrees);
        QVERIFY(any_contains(f.reasons, "faster per cycle, throttled more"));
        QVERIFY(any_contains(f.reasons, "in cycles ("));
    }

    void agreeing_cycles_are_cited_without_a_disagreement()
    {
        const FinalVerdict& f = final_of(judged("clean"));
        QVERIFY(f.cycles);
        QVERIFY(std::fabs(*f.cycles->delta_pct - expected("clean").at("cycles_delta_pct").get<double>()) < 1e-9);
        QVERIFY(!f.cycles->disagrees);
        QVERIFY(!any_contains(f.reasons, "disagree"));
    }

    void nvml_clock_is_the_fallback_with_its_caveat()
    {
        const FinalVerdict& f = final_of(judged("throttled", [](Experiment& e) {
            e.lanes.erase(std::remove_if(e.lanes.begin(), e.lanes.end(),
                              [](const SamplerLane& l) { return l.name == kPmClockLane; }),
                e.lanes.end());
        }));
        QVERIFY(f.cycles);
        QCOMPARE(f.cycles->clock_source, std::string("nvml_sm_clock"));
        QVERIFY(f.cycles->caveat.find("reads high under tensor load") != std::string::npos);
        QVERIFY(std::fabs(*f.cycles->delta_pct - expected("throttled").at("cycles_delta_pct").get<double>()) < 1e-9);
    }

    void cpu_backend_has_no_cycles()
    {
        const FinalVerdict& f = final_of(judged("cpu"));
        QVERIFY(!f.cycles);
        QVERIFY(!to_json(f).contains("cycles")); // absent in the study, as in files judged before it existed
    }

    void the_new_entries_round_trip_through_json()
    {
        for (const char* name : {"shared_some", "throttled", "cpu"}) {
            const FinalVerdict& f = final_of(judged(name));
            const auto j = to_json(f);
            QCOMPARE(to_json(final_verdict_from_json(j)).dump(), j.dump());
        }
    }

    void the_report_shows_the_count_and_the_cycles()
    {
        const Study s = judged("shared_all");
        const report::Report r = report::build_report(s, {});
        const auto j = report::render_json(r);
        const auto& fv = j.at("experiments").at(0).at("final_verdict");
        QCOMPARE(fv.at("verdict").get<std::string>(), std::string("INCONCLUSIVE"));
        QCOMPARE(fv.at("gpu_sharing").at("shared").get<int>(), 12);
        QCOMPARE(fv.at("cycles").at("clock_source").get<std::string>(), std::string("cupti_sm_clock"));
        std::ifstream in(KWB_SOURCE_DIR "/docs/report-schema.json");
        std::vector<std::string> problems;
        kwbtest::check_schema(nlohmann::json::parse(in), j, "$", problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        std::vector<report::Attachment> charts;
        const std::string md = report::render_markdown(r, "shared", charts);
        QVERIFY(md.find("another process used the GPU in 12 of 12 repetitions") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestGpuRules)
#include "tst_gpu_rules.moc"
