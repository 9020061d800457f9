// SPDX-License-Identifier: GPL-3.0-or-later
// Sampler lanes in the study: readings reach the experiment's lanes on a timer and at the end, not
// with every repetition's save; they stay in order and bounded with their spikes; every sample
// carries its start on the lanes' clock (the live view's bands). The readings are handed over by
// a scripted sampler at each repetition's start, from the run thread outside the runner's lock,
// as a sampler thread would; the fake clock advances 1 s per repetition.
#include "fake_workload.h"
#include "run/runner.h"
#include "sampling/lane_downsample.h"
#include "study/study.h"
#include "study/study_json.h"

#include <QTest>
#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using namespace kwb;
using namespace kwb::test;

namespace {

class ScriptedSampler : public Sampler {
public:
    std::string name() const override { return "scripted"; }
    std::string unavailable_reason() const override { return {}; }
    void start(MetricSink sink, double) override { sink_ = std::move(sink); }
    void stop() override { sink_ = nullptr; }
    void deliver(const MetricReading& r)
    {
        if (sink_)
            sink_(r);
    }

private:
    MetricSink sink_;
};

struct LaneRun {
    FakeClock clock;
    FakeWorkload workload {&clock};
    ScriptedSampler sampler;
    int per_repetition = 5;
    int delivered = 0;
    std::string name = "dram_pct", unit = "%";
    std::vector<MetricReading> script; // when set: all of it, before the first repetition
    RunObserver* observer = nullptr;
    std::function<double(int)> value = [](int i) { return static_cast<double>(i % 50); };
    std::vector<size_t> lane_points_at_save; // lane points the study held at each checkpoint
    std::vector<size_t> samples_at_save;

    void run(Study& s, double flush_period_s)
    {
        Experiment& e = s.experiments[0];
        RunnerOptions o;
        o.clock = [this] { return clock(); };
        o.samplers = {&sampler};
        o.lane_flush_period_s = flush_period_s;
        o.observer = observer;
        o.before_repetition = [this] {
            if (!script.empty()) {
                for (const auto& r : script)
                    sampler.deliver(r);
                script.clear();
                return;
            }
            for (int k = 0; k < per_repetition; ++k, ++delivered)
                sampler.deliver({delivered * 1e-3, name, value(delivered), unit});
        };
        o.checkpoint = [this, &e] {
            size_t n = 0;
            for (const auto& l : e.lanes)
                n += l.t_s.size();
            lane_points_at_save.push_back(n);
            samples_at_save.push_back(e.samples.size());
        };
        Runner runner(workload, o);
        runner.run(s, e);
    }
};

Study make_study(int runs)
{
    Study s;
    s.name = "lanes";
    s.target.metric = "time_ms";
    Experiment e;
    e.id = "ab-1";
    e.workload = "fake";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"speed", 1.0}}}, {"treatment", {{"speed", 1.25}}}};
    e.plan.runs_per_arm = runs;
    e.plan.warmup_runs = 1;
    s.experiments.push_back(e);
    return s;
}

} // namespace

class TestRunnerLanes : public QObject {
    Q_OBJECT
private slots:
    void lanesReachTheStudyOnATimerAndAtTheEnd()
    {
        LaneRun r;
        Study s = make_study(10);
        r.run(s, 3.0); // repetitions take 1 s: lanes move every third repetition
        const Experiment& e = s.experiments[0];
        const int reps = static_cast<int>(e.samples.size());
        QCOMPARE(reps, 22);
        // Saves after repetitions: the first ones hold samples but no lane points yet.
        std::set<size_t> distinct;
        size_t first_rep_save = 0;
        while (r.samples_at_save[first_rep_save] == 0)
            ++first_rep_save;
        QCOMPARE(r.lane_points_at_save[first_rep_save], size_t {0});
        for (size_t i = first_rep_save; i + 1 < r.lane_points_at_save.size(); ++i) {
            QVERIFY(r.lane_points_at_save[i] <= r.lane_points_at_save[i + 1]);
            distinct.insert(r.lane_points_at_save[i]);
        }
        QVERIFY2(distinct.size() <= static_cast<size_t>(reps) / 3 + 1, qPrintable(QString::number(distinct.size())));
        QVERIFY(distinct.size() >= 3); // and it does move during the run, not only at the end
        // The end: every reading, in order.
        QCOMPARE(r.lane_points_at_save.back(), static_cast<size_t>(r.delivered));
        QCOMPARE(e.lanes.size(), size_t {1});
        const SamplerLane& lane = e.lanes[0];
        QCOMPARE(lane.name, std::string("dram_pct"));
        QCOMPARE(lane.t_s.size(), static_cast<size_t>(r.delivered));
        QVERIFY(std::is_sorted(lane.t_s.begin(), lane.t_s.end()));
        for (size_t i = 0; i < lane.values.size(); ++i)
            QCOMPARE(lane.values[i], r.value(static_cast<int>(i)));
    }

    void longLanesStayBoundedAndKeepTheirSpikes()
    {
        LaneRun r;
        r.per_repetition = 3000;
        r.name = "dram_read"; // not a percentage: the range rule leaves its spikes alone
        r.unit = "GB/s";
        r.value = [](int i) { return i == 23456 ? 1000.0 : (i == 40001 ? -5.0 : 50.0 + (i % 3)); };
        Study s = make_study(10);
        r.run(s, 2.0);
        const SamplerLane& lane = s.experiments[0].lanes.at(0);
        QCOMPARE(r.delivered, 22 * 3000);
        QVERIFY(lane.t_s.size() <= kMaxLanePoints);
        QVERIFY(lane.t_s.size() >= kMaxLanePoints / 4);
        QVERIFY(std::is_sorted(lane.t_s.begin(), lane.t_s.end()));
        const auto top = std::max_element(lane.values.begin(), lane.values.end());
        QCOMPARE(*top, 1000.0);
        QCOMPARE(lane.t_s[static_cast<size_t>(top - lane.values.begin())], 23456e-3);
        QCOMPARE(*std::min_element(lane.values.begin(), lane.values.end()), -5.0);
        // Every save stayed within the bound too.
        for (const size_t n : r.lane_points_at_save)
            QVERIFY(n <= kMaxLanePoints);
    }

    // Lanes the H200 recorded before the lanes were fixed (tests/data/lanes, with the counts its
    // script computed), delivered as a sampler would: the study keeps every percentage within
    // [0, 100], counts what it dropped on its lane (kept through the study file), and the stream
    // never shows a dropped reading.
    void recordedReadingsEnterTheStudyThroughTheRangeRule()
    {
        struct Metrics : RunObserver {
            std::vector<MetricReading> seen;
            void on_metric(const MetricReading& r) override { seen.push_back(r); }
        } observer;
        std::ifstream in(KWB_TEST_DATA_DIR "/lanes/recorded_h200_lanes.json");
        const auto fixture = nlohmann::json::parse(in);
        LaneRun r;
        r.observer = &observer;
        r.per_repetition = 0; // the recorded readings only
        std::map<std::string, nlohmann::json> expect;
        for (const auto& l : fixture["lanes"]) {
            // One recorded study per lane name: the first.
            const std::string name = l["name"];
            if (expect.count(name))
                continue;
            expect[name] = l["expect"];
            const auto& t = l["t_s"];
            for (size_t i = 0; i < t.size(); ++i)
                r.script.push_back({t[i].get<double>(), name, l["values"][i].get<double>(), l["unit"]});
        }
        Study s = make_study(2);
        r.run(s, 2.0);
        const Experiment& e = s.experiments[0];
        QCOMPARE(e.lanes.size(), expect.size());
        unsigned long long dropped_total = 0;
        for (const auto& lane : e.lanes) {
            const auto& x = expect.at(lane.name);
            QCOMPARE(lane.dropped_out_of_range, x["dropped"].get<unsigned long long>());
            QCOMPARE(lane.values.size(), x["kept"].get<size_t>() + x["clamped"].get<size_t>());
            if (lane.unit == "%")
                for (double v : lane.values)
                    QVERIFY2(v >= 0 && v <= 100, qPrintable(QString::fromStdString(lane.name)));
            dropped_total += lane.dropped_out_of_range;
        }
        QVERIFY(dropped_total > 30);
        size_t streamed = 0;
        for (const auto& m : observer.seen)
            if (expect.count(m.name)) {
                ++streamed;
                if (m.unit == "%")
                    QVERIFY(m.value >= 0 && m.value <= 100);
            }
        size_t kept = 0;
        for (const auto& lane : e.lanes)
            kept += lane.values.size();
        QCOMPARE(streamed, kept);
        // The counts survive the study file; a lane without one reads 0.
        const Study back = study_from_json(study_to_json(s));
        for (size_t i = 0; i < e.lanes.size(); ++i)
            QCOMPARE(back.experiments[0].lanes[i].dropped_out_of_range, e.lanes[i].dropped_out_of_range);
        auto old = study_to_json(s);
        for (auto& l : old["experiments"][0]["lanes"])
            l.erase("dropped_out_of_range");
        QCOMPARE(study_from_json(old).experiments[0].lanes[0].dropped_out_of_range, 0ULL);
    }

    void samplesCarryTheirStartOnTheLanesClock()
    {
        LaneRun r;
        Study s = make_study(4);
        r.run(s, 2.0);
        const Experiment& e = s.experiments[0];
        for (size_t i = 0; i < e.samples.size(); ++i) {
            QVERIFY(e.samples[i].t_s.has_value());
            QVERIFY(*e.samples[i].t_s >= 0);
            if (i + 1 < e.samples.size())
                QVERIFY(*e.samples[i].t_s + e.samples[i].duration_s <= *e.samples[i + 1].t_s + 1e-9);
        }
        // Round trip through the study file.
        const Study back = study_from_json(study_to_json(s));
        QCOMPARE(back.experiments[0].samples.back().t_s, e.samples.back().t_s);
    }

    void workloadReadingsJoinTheLanesAndTheStream()
    {
        struct Metrics : RunObserver {
            std::vector<MetricReading> seen;
            void on_metric(const MetricReading& r) override { seen.push_back(r); }
        } observer;
        FakeClock clock;
        FakeWorkload workload {&clock};
        Study s = make_study(2);
        Experiment& e = s.experiments[0];
        for (auto& arm : e.arms)
            arm.params["readings"] = 1;
        RunnerOptions o;
        o.clock = [&clock] { return clock(); };
        o.observer = &observer;
        o.run_started_s = clock();
        Runner runner(workload, o);
        runner.run(s, e);
        const auto* ttft = [&]() -> const SamplerLane* {
            for (const auto& l : e.lanes)
                if (l.name == "ttft")
                    return &l;
            return nullptr;
        }();
        QVERIFY(ttft);
        QCOMPARE(ttft->unit, std::string("ms"));
        // One reading per repetition (warm-ups included), at the repetition's start plus its offset.
        QCOMPARE(ttft->values.size(), e.samples.size());
        for (size_t i = 0; i < e.samples.size(); ++i)
            QCOMPARE(ttft->t_s[i], *e.samples[i].t_s + 0.25);
        QCOMPARE(observer.seen.size(), 2 * e.samples.size());
        QCOMPARE(observer.seen[1].name, std::string("itl"));
        QCOMPARE(observer.seen[1].value, 200.0);
        QVERIFY(observer.seen[1].t_s > observer.seen[0].t_s);
    }
};

QTEST_GUILESS_MAIN(TestRunnerLanes)
#include "tst_runner_lanes.moc"
