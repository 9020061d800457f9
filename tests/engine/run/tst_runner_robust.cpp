// SPDX-License-Identifier: GPL-3.0-or-later
// The Runner where runs go wrong: what a client sees against what is saved, an observer that
// throws on a sampler's thread, values JSON cannot hold, plans at the end of int, and the clock
// of live readings when preparing the arms takes time.
#include "runner_harness.h"
#include "study/study_file.h"
#include "study/study_json.h"

#include <QTest>
#include <limits>
#include <stdexcept>

class TestRunnerRobust : public QObject {
    Q_OBJECT

private slots:
    void eachSampleIsSavedBeforeItIsAnnounced()
    {
        Harness h;
        Study s = make_study(1.0, count_plan(3));
        Experiment& e = s.experiments[0];
        std::vector<size_t> unsaved;
        h.recorder.after_sample = [&](const Sample&) {
            if (h.checkpoint_sizes.empty() || h.checkpoint_sizes.back() != e.samples.size())
                unsaved.push_back(e.samples.size());
        };
        h.run(s, e);
        QCOMPARE(unsaved, std::vector<size_t> {});
    }

    void aThrowingLiveMetricFailsTheRunNotTheProcess()
    {
        struct Throws : Recorder {
            void on_metric(const MetricReading&) override { throw std::runtime_error("stream gone"); }
        };
        Harness h;
        Throws observer;
        FakeSampler sampler;
        RunnerOptions o;
        o.observer = &observer;
        o.samplers = {&sampler};
        o.clock = [&] { return h.clock(); };
        Study s = make_study(1.0, count_plan(3));
        QCOMPARE(Runner(h.workload, o).run(s, s.experiments[0]), RunOutcome::Failed);
        QVERIFY(s.experiments[0].error.find("stream gone") != std::string::npos);
    }

    void nonFiniteValuesSurviveTheFileRoundTrip()
    {
        Harness h;
        Study s = make_study(1.0, count_plan(3));
        s.experiments[0].arms[1].params["speed"] = 0.0; // time_ms = 10 / 0: infinite, discarded
        h.run(s, s.experiments[0]);
        QVERIFY(s.experiments[0].samples.back().discarded);
        const Study back = parse_study(study_to_json(s).dump(), "memory");
        QCOMPARE(back.experiments[0].samples.size(), s.experiments[0].samples.size());
        QVERIFY(back.experiments[0].samples.back().discarded);
    }

    void hugePlansDoNotOverflowTheProgress()
    {
        Harness h;
        RunPlan p = count_plan(std::numeric_limits<int>::max(), 0);
        p.max_seconds = 3;
        Study s = make_study(1.0, p);
        h.run(s, s.experiments[0]);
        QVERIFY(!h.recorder.progress.empty());
        for (const auto& pr : h.recorder.progress)
            QVERIFY(pr.planned >= pr.done && pr.planned > 0);
    }

    void liveReadingsCountFromTheirSamplersStart()
    {
        Harness h;
        FakeSampler sampler; // readings at 0, 0.1 and 0.2 s after its start
        h.samplers = {&sampler};
        Study s = make_study(1.0, count_plan(3), {{"prepare_seconds", 5.0}});
        Experiment& e = s.experiments[0];
        h.run(s, e);
        // The session starts, both arms take 5 s to prepare, then the sampler starts: 10 s in.
        QCOMPARE(h.recorder.metrics.size(), size_t(3));
        QCOMPARE(h.recorder.metrics[0].t_s, 10.0);
        QCOMPARE(e.lanes.at(0).t_s.front(), 10.0);
    }
};

QTEST_GUILESS_MAIN(TestRunnerRobust)
#include "tst_runner_robust.moc"
