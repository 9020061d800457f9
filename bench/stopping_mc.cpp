// SPDX-License-Identifier: GPL-3.0-or-later
// Monte Carlo of decision stopping against a fixed n, through the real Runner on the synthetic
// workload (in process, no save per repetition). For every cell (true delta%, cv%) it runs
// `studies` studies with decision stopping (cap `cap` runs per arm) and, on the same draws (the
// synthetic stream depends only on seed, arm and position), the same studies at a fixed n = cap.
// It reports the rate of each sample-verdict word under both, and the mean runs per arm of the
// decision rule, as JSON on stdout (bench/results/*-stopping-mc.json).
//
//   stopping_mc [--studies N] [--cap N] [--threads N] [--dist normal|lognormal] [--first-seed S]
#include "builtin_workloads.h"
#include "run/runner.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace kwb;

struct Options {
    int studies = 2000;
    int cap = 30;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::string dist = "normal";
    std::uint64_t first_seed = 1;
};

struct Outcome {
    VerdictWord word = VerdictWord::Inconclusive;
    int runs_per_arm = 0;
    std::string code;
};

Outcome run_study(
    const Workload& w, double delta, double cv, std::uint64_t seed, StopRule stop, int cap, const std::string& dist)
{
    Study s;
    s.target.metric = "value";
    Experiment e;
    e.id = "mc";
    e.workload = "synthetic";
    e.backend = "cpu";
    e.metric = "value";
    const nlohmann::json shared = {{"dist", dist}, {"mean", 10.0}, {"cv_pct", cv}, {"seed", seed}};
    auto base = shared, treat = shared;
    base["delta_pct"] = 0.0;
    treat["delta_pct"] = delta;
    e.arms = {{"baseline", base, std::nullopt}, {"treatment", treat, std::nullopt}};
    e.plan.runs_per_arm = cap;
    e.plan.warmup_runs = 0;
    e.plan.stop = stop;
    e.plan.min_rep_ms = 0;
    s.experiments.push_back(e);
    RunnerOptions o;
    Runner runner(w, o);
    runner.run(s, s.experiments[0]);
    const Experiment& done = s.experiments[0];
    Outcome out;
    if (done.verdict) {
        out.word = done.verdict->word;
        out.runs_per_arm = static_cast<int>(done.verdict->n_baseline());
    }
    if (done.stopping)
        out.code = done.stopping->code;
    return out;
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const char* v = argv[i + 1];
        if (k == "--studies")
            o.studies = std::atoi(v);
        else if (k == "--cap")
            o.cap = std::atoi(v);
        else if (k == "--threads")
            o.threads = std::atoi(v);
        else if (k == "--dist")
            o.dist = v;
        else if (k == "--first-seed")
            o.first_seed = std::strtoull(v, nullptr, 10);
        else {
            fmt::print(stderr, "stopping_mc: unknown option {}\n", k);
            std::exit(2);
        }
    }
    return o;
}

} // namespace

int main(int argc, char** argv)
{
    const Workload& w = *builtin_workloads().find("synthetic");
    // `stopping_mc --one SEED DELTA CV [CAP]`: one decision-stopped study, "WORD N" on stdout (the
    // in-process twin of one `kwb run`, for bench/stopping_cli.sh).
    if (argc >= 5 && std::strcmp(argv[1], "--one") == 0) {
        const auto r = run_study(w, std::atof(argv[3]), std::atof(argv[4]), std::strtoull(argv[2], nullptr, 10),
            StopRule::Decision, argc >= 6 ? std::atoi(argv[5]) : 30, "normal");
        fmt::print("{} {}\n", to_string(r.word), r.runs_per_arm);
        return 0;
    }
    const Options o = parse(argc, argv);
    const std::vector<double> deltas {0, 5, 8, 9, 20};
    const std::vector<double> cvs {1, 3, 4.5};
    const auto t0 = std::chrono::steady_clock::now();
    nlohmann::json cells = nlohmann::json::array();
    long long simulated = 0;
    for (double delta : deltas)
        for (double cv : cvs) {
            std::vector<Outcome> seq(static_cast<size_t>(o.studies)), fixed(static_cast<size_t>(o.studies));
            std::atomic<int> next {0};
            std::vector<std::thread> pool;
            for (int t = 0; t < o.threads; ++t)
                pool.emplace_back([&] {
                    for (int i = next++; i < o.studies; i = next++) {
                        const std::uint64_t seed = o.first_seed + static_cast<std::uint64_t>(i);
                        seq[size_t(i)] = run_study(w, delta, cv, seed, StopRule::Decision, o.cap, o.dist);
                        fixed[size_t(i)] = run_study(w, delta, cv, seed, StopRule::Count, o.cap, o.dist);
                    }
                });
            for (auto& t : pool)
                t.join();
            simulated += 2LL * o.studies;
            std::map<std::string, int> words_seq, words_fixed, codes;
            double runs = 0;
            for (int i = 0; i < o.studies; ++i) {
                ++words_seq[std::string(to_string(seq[size_t(i)].word))];
                ++words_fixed[std::string(to_string(fixed[size_t(i)].word))];
                ++codes[seq[size_t(i)].code];
                runs += seq[size_t(i)].runs_per_arm;
            }
            const auto rate
                = [&](std::map<std::string, int>& m, const char* word) { return 100.0 * m[word] / o.studies; };
            nlohmann::json cell = {{"delta_pct", delta}, {"cv_pct", cv}, {"studies", o.studies},
                {"license_pct_decision", rate(words_seq, "LICENSE")},
                {"license_pct_fixed", rate(words_fixed, "LICENSE")}, {"mean_runs_per_arm_decision", runs / o.studies},
                {"words_decision", words_seq}, {"words_fixed", words_fixed}, {"stop_codes", codes}};
            fmt::print(stderr,
                "delta {:>4}% cv {:>3}%: LICENSE {:5.2f}% (decision) vs {:5.2f}% (fixed n = {}), mean "
                "runs/arm {:.2f}\n",
                delta, cv, rate(words_seq, "LICENSE"), rate(words_fixed, "LICENSE"), o.cap, runs / o.studies);
            cells.push_back(cell);
        }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const nlohmann::json out = {{"benchmark", "stopping_mc"}, {"cap_per_arm", o.cap}, {"dist", o.dist},
        {"studies_per_cell_and_rule", o.studies}, {"simulated_studies", simulated}, {"threads", o.threads},
        {"first_seed", o.first_seed}, {"wall_s", secs}, {"cells", cells}};
    fmt::print("{}\n", out.dump(2));
    return 0;
}
