// SPDX-License-Identifier: GPL-3.0-or-later
// The command workload end to end: the process runner (exit status, timeout, a child left
// behind, daemons that leave the group, the output cap, a stop), the timeout over parsing, and A/B
// experiments on the stand-in benchmark through the Runner, through every
// adapter, with the failure cases (exit, garbage, NaN, empty result file, missing key) recorded as
// failed repetitions and never as numbers, and the matched-control rules on the verdict.
#include "../../process_alive.h"
#include "run/runner.h"
#include "util/process_containment.h"
#include "workloads/command/adapter_text.h"
#include "workloads/command/command_controls.h"
#include "workloads/command/command_workload.h"
#include "workloads/command/parse_budget.h"
#include "workloads/command/process.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <thread>

using namespace kwb;
using namespace kwb::command;

namespace {

const std::string kStandin = KWB_STANDIN;

std::string standin(const std::string& args)
{
    return fmt::format("'{}' {}", kStandin, args);
}

CommandSpec spec(
    const std::string& cmd, const std::string& adapter = "auto", nlohmann::json options = nlohmann::json::object())
{
    CommandSpec c;
    c.cmd = cmd;
    c.timeout_s = 60;
    c.adapter = adapter;
    c.adapter_options = std::move(options);
    return c;
}

Study command_study(CommandSpec base, CommandSpec treat, const std::string& metric, int runs = 6)
{
    Study s;
    s.name = "command";
    s.target.metric = metric;
    Experiment e;
    e.id = "ab-1";
    e.workload = kCommandWorkload;
    e.metric = metric;
    e.plan.runs_per_arm = runs;
    e.plan.warmup_runs = 0;
    e.plan.min_rep_ms = 0;
    Arm a {"baseline", nlohmann::json::object()}, b {"treatment", nlohmann::json::object()};
    a.command = std::move(base);
    b.command = std::move(treat);
    e.arms = {a, b};
    s.experiments.push_back(e);
    return s;
}

RunOutcome run(Study& s)
{
    const auto w = make_command_workload();
    Runner r(*w, RunnerOptions {});
    return r.run(s, s.experiments.front());
}

int failed_count(const Experiment& e)
{
    return static_cast<int>(
        std::count_if(e.samples.begin(), e.samples.end(), [](const Sample& x) { return x.failed; }));
}

using kwbtest::process_alive;

int read_pid(const std::string& path)
{
    int pid = 0;
    std::ifstream(path) >> pid;
    return pid;
}

// A command that starts a daemon (setsid: its own session and group, so a kill of the command's
// group misses it) that writes its pid to `pidfile` and then holds stdout open for 300 s, and
// waits until the daemon runs. `scrub` also empties the daemon's environment (env -i) and
// double-forks it, so only a subreaper finds it.
std::string start_daemon(const std::string& pidfile, bool scrub = false)
{
    const std::string daemon = fmt::format("/usr/bin/setsid /bin/sh -c 'echo $$ > \"{}\"; exec sleep 300'", pidfile);
    return fmt::format("{} while [ ! -s '{}' ]; do sleep 0.05; done",
        scrub ? fmt::format("( env -i {} & );", daemon) : daemon + " &", pidfile);
}

// Sets `flag` once `path` exists (a command's marker that its slow part has begun), or after 60 s.
std::thread set_when_exists(const std::string& path, std::atomic<bool>& flag)
{
    return std::thread([path, &flag] {
        for (int i = 0; i < 6000 && !std::filesystem::exists(path); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        flag.store(true);
    });
}

} // namespace

class TestCommandWorkload : public QObject {
    Q_OBJECT
private slots:
    void process_exit_status_and_streams()
    {
        const auto r = run_process({"echo out; echo err >&2; exit 3", "", {{"KWB_X", "y"}}, 10});
        QCOMPARE(r.exit_status, 3);
        QVERIFY(!r.ok());
        QCOMPARE(r.out, std::string("out\n"));
        QCOMPARE(r.err, std::string("err\n"));
        QCOMPARE(r.describe(), std::string("exit 3"));
        const auto env = run_process({"printf %s \"$KWB_X\"", "/", {{"KWB_X", "y"}}, 10});
        QCOMPARE(env.out, std::string("y"));
    }
    void timeout_kills_the_group()
    {
        QTemporaryDir dir;
        const std::string pidfile = dir.filePath(QStringLiteral("pid")).toStdString();
        const auto r = run_process({fmt::format("sleep 60 & echo $! > '{}'; sleep 60", pidfile), "", {}, 0.5});
        QVERIFY(r.timed_out);
        QVERIFY(!r.ok());
        int pid = 0;
        std::ifstream(pidfile) >> pid;
        QVERIFY(pid > 0);
        QTRY_VERIFY(!process_alive(pid));
    }
    void child_left_behind_is_ended()
    {
        QTemporaryDir dir;
        const std::string pidfile = dir.filePath(QStringLiteral("pid")).toStdString();
        // Exits at once, leaving a child that holds stdout open for 60 s.
        const auto r = run_process({fmt::format("sleep 60 & echo $! > '{}'; echo done", pidfile), "", {}, 30});
        QVERIFY(r.ok());
        QVERIFY(!r.timed_out);
        QCOMPARE(r.out, std::string("done\n"));
        int pid = 0;
        std::ifstream(pidfile) >> pid;
        QTRY_VERIFY(!process_alive(pid));
        // The stand-in's own forked child, through a repetition.
        const auto a = run_attempt(spec(standin("--format gbench --fork-child 60")));
        QVERIFY2(a.ok, a.error.c_str());
    }
    // Issue 26: a daemon that left the group and keeps stdout open held a repetition for 300 s and
    // survived it. Its leader exits at once: the repetition ends at once and the daemon with it.
    void daemon_holding_stdout_does_not_hold_the_repetition()
    {
        QTemporaryDir dir;
        const std::string pidfile = dir.filePath(QStringLiteral("daemon")).toStdString();
        const auto r = run_process({start_daemon(pidfile) + "; echo done", "", {}, 60});
        QVERIFY2(r.ok(), r.describe().c_str());
        QCOMPARE(r.out, std::string("done\n"));
        QVERIFY2(r.seconds < 30, fmt::format("{} s, not at once", r.seconds).c_str()); // not 60 s, not 300 s
        const int pid = read_pid(pidfile);
        QVERIFY(pid > 0);
        QTRY_VERIFY(!process_alive(pid));
        QVERIFY(r.others_killed >= 1);
    }
    // The same daemon beside a leader that runs past its timeout of 3 s: the repetition ends within
    // a few seconds of it, and nothing it started survives.
    void daemon_is_ended_at_the_timeout()
    {
        QTemporaryDir dir;
        const std::string pidfile = dir.filePath(QStringLiteral("daemon")).toStdString();
        const auto r = run_process({start_daemon(pidfile) + "; sleep 300", "", {}, 3});
        QVERIFY(r.timed_out);
        QVERIFY2(r.seconds >= 3 && r.seconds < 20, fmt::format("{} s", r.seconds).c_str());
        const int pid = read_pid(pidfile);
        QVERIFY(pid > 0);
        QTRY_VERIFY(!process_alive(pid));
    }
    // A daemon that scrubbed its environment (no tag) and was orphaned by a double fork is found
    // only because orphans reparent to a subreaper (kwb run is one): become_subreaper() here.
    void scrubbed_orphan_comes_back_to_the_subreaper()
    {
        QVERIFY(become_subreaper());
        QTemporaryDir dir;
        const std::string pidfile = dir.filePath(QStringLiteral("daemon")).toStdString();
        const auto r = run_process({start_daemon(pidfile, true) + "; echo done", "", {}, 60});
        QVERIFY2(r.ok(), r.describe().c_str());
        const int pid = read_pid(pidfile);
        QVERIFY(pid > 0);
        QTRY_VERIFY(!process_alive(pid));
        QVERIFY(!std::filesystem::exists(fmt::format("/proc/{}", pid))); // reaped here, not a zombie
    }
    // 100 MB on stdout: ended at the cap (64 MiB by default) with that reason, before its timeout;
    // the memory held is the cap's. The timeout is far beyond any machine's time to read 64 MiB
    // (a 3 s one can lose that race on a loaded 2-core machine under ASan), so only the cap ends it.
    void output_past_the_cap_fails_the_repetition()
    {
        auto s = spec("head -c 100000000 /dev/zero");
        s.timeout_s = 120;
        const auto a = run_attempt(s);
        QVERIFY(!a.ok);
        QVERIFY2(a.error.find("more than 64 MiB to stdout, the cap on captured output") != std::string::npos,
            a.error.c_str());
        QVERIFY2(a.seconds < s.timeout_s, fmt::format("{} s", a.seconds).c_str());
        // A smaller cap, on stderr and on the result file too; under it nothing is cut.
        s.max_output_mib = 1;
        s.cmd = "head -c 2000000 /dev/zero >&2";
        QVERIFY(run_attempt(s).error.find("more than 1 MiB to stderr") != std::string::npos);
        s.cmd = "head -c 2000000 /dev/zero > {out}";
        const auto file = run_attempt(s);
        QVERIFY2(file.error.find("result file") != std::string::npos
                && file.error.find("the cap on captured output") != std::string::npos,
            file.error.c_str());
        s.cmd = "head -c 500000 /dev/zero";
        QVERIFY(run_attempt(s).error.find("no adapter recognises") != std::string::npos);
    }
    // The timeout covers reading the output into metrics: a parse that has not finished by the
    // deadline stops there (20 million numbers took 40 s under a 3 s timeout), as does one under a
    // stop request. Without a budget the same text parses.
    void parsing_stops_at_the_deadline()
    {
        std::string text = "[";
        for (int i = 0; i < 200000; ++i)
            text += std::to_string(i) + ".5,";
        text += "0]";
        QVERIFY(parse_lenient_json(text).has_value());
        {
            const ParseBudget spent(steady_now_s() - 1, 3, nullptr, text);
            try {
                (void)parse_lenient_json(text);
                QFAIL("the parse went on past its deadline");
            } catch (const ParseInterrupted& e) {
                QVERIFY(!e.stopped());
                QVERIFY2(
                    std::string(e.what()).find("timed out after 3 s while its output") != std::string::npos, e.what());
            }
        }
        std::atomic<bool> stop {true};
        const ParseBudget stopped(0, 3, &stop, text);
        try {
            (void)detect_adapter(text);
            QFAIL("detection went on after a stop");
        } catch (const ParseInterrupted& e) {
            QVERIFY(e.stopped());
        }
        // Line-wise readers (the console block) check it between lines.
        const std::string console(3000000, '\n');
        bool interrupted = false;
        try {
            (void)make_adapter("console")->read(console);
        } catch (const ParseInterrupted&) {
            interrupted = true;
        }
        QVERIFY(interrupted);
    }
    // A repetition whose output takes long to read is failed at its timeout, not after the parse.
    void big_json_output_ends_near_its_timeout()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("big.json")).toStdString();
        {
            std::ofstream out(file);
            out << '[';
            for (int i = 0; i < 4000000; ++i)
                out << i << ".25,";
            out << "0]";
        }
        auto s = spec(fmt::format("cat '{}'", file));
        s.timeout_s = 0.5;
        const auto t0 = steady_now_s();
        const auto a = run_attempt(s);
        const double took = steady_now_s() - t0;
        QVERIFY(!a.ok);
        QVERIFY2(took < 20, fmt::format("{} s for a 0.5 s timeout", took).c_str());
        QVERIFY2(a.error.find("timed out") != std::string::npos || a.error.find("no adapter") != std::string::npos,
            a.error.c_str());
    }
    // The run's stop request ends a command (and what it started) at once, whatever it does.
    void stop_ends_the_command_at_once()
    {
        QTemporaryDir dir;
        const std::string marker = dir.filePath(QStringLiteral("started")).toStdString();
        const std::string pidfile = dir.filePath(QStringLiteral("daemon")).toStdString();
        std::atomic<bool> stop {false};
        auto setter = set_when_exists(marker, stop);
        ProcessSpec p {fmt::format("{}; touch '{}'; sleep 60", start_daemon(pidfile), marker), "", {}, 120};
        p.stop = &stop;
        const auto r = run_process(p);
        setter.join();
        QVERIFY(r.stopped);
        QVERIFY(!r.ok());
        QVERIFY2(r.seconds < 30, fmt::format("{} s", r.seconds).c_str());
        QTRY_VERIFY(!process_alive(read_pid(pidfile)));
        // Through an attempt: interrupted, neither a measurement nor a failure of the arm.
        std::atomic<bool> already {true};
        const auto a = run_attempt(spec("sleep 60"), &already);
        QVERIFY(a.interrupted);
        QVERIFY(!a.ok);
    }
    // A stop during a repetition: that repetition is not kept, the ones before it are, and the
    // experiment is stopped (resumable), not failed.
    void stop_during_a_repetition_keeps_the_earlier_ones()
    {
        QTemporaryDir dir;
        const std::string count = dir.filePath(QStringLiteral("count")).toStdString();
        const std::string marker = dir.filePath(QStringLiteral("started")).toStdString();
        // The first two repetitions (one per arm) report at once; the third sleeps.
        const auto arm = [&](int mean) {
            return spec(fmt::format("n=$(cat '{0}' 2>/dev/null || echo 0); echo $((n+1)) > '{0}'; "
                                    "if [ $n -ge 2 ]; then touch '{1}'; sleep 60; fi; {2}",
                count, marker, standin(fmt::format("--format gbench --mean {}", mean))));
        };
        Study s = command_study(arm(10), arm(11), "time_ms", 6);
        std::atomic<bool> stop {false};
        auto setter = set_when_exists(marker, stop);
        const auto w = make_command_workload();
        RunnerOptions o;
        o.cancel = &stop;
        Runner r(*w, o);
        const auto t0 = steady_now_s();
        const RunOutcome outcome = r.run(s, s.experiments.front());
        setter.join();
        QVERIFY2(steady_now_s() - t0 < 30, "the stop waited for the repetition");
        QCOMPARE(outcome, RunOutcome::Stopped);
        const auto& e = s.experiments.front();
        QCOMPARE(e.status, ExperimentStatus::Stopped);
        QCOMPARE(static_cast<int>(e.samples.size()), 2);
        QCOMPARE(failed_count(e), 0);
    }
    void tails_are_truncated_with_a_note()
    {
        const auto t = tail(std::string(10000, 'x'), 100);
        QVERIFY(t.find("9900 earlier bytes cut") != std::string::npos);
        QCOMPARE(t.substr(t.size() - 100), std::string(100, 'x'));
    }
    void attempt_failures_are_errors_not_numbers()
    {
        const auto bad_exit = run_attempt(spec(standin("--format gbench --exit 4")));
        QVERIFY(!bad_exit.ok);
        QCOMPARE(bad_exit.exit_status.value_or(-1), 4);
        QVERIFY(bad_exit.stderr_tail.find("failing on purpose") != std::string::npos);
        QVERIFY(bad_exit.reading.metrics.empty());
        const auto timeout = run_attempt([] {
            auto c = spec(standin("--format gbench --sleep 30"));
            c.timeout_s = 0.3;
            return c;
        }());
        QVERIFY(!timeout.ok);
        QVERIFY(timeout.error.find("timed out") != std::string::npos);
        const auto garbage = run_attempt(spec(standin("--format garbage")));
        QVERIFY(!garbage.ok);
        QVERIFY(garbage.error.find("no adapter recognises") != std::string::npos);
        const auto nan = run_attempt(spec(standin("--format nan"), "gbench"));
        QVERIFY(!nan.ok);
        const auto empty = run_attempt(spec(standin("--format empty --out {out}"), "gbench"));
        QVERIFY(!empty.ok);
        QVERIFY(empty.error.find("missing or empty") != std::string::npos);
        const auto file = run_attempt(spec(standin("--format vllm --mean 80 --out {out}")));
        QVERIFY2(file.ok, file.error.c_str());
        QCOMPARE(file.adapter, std::string("vllm"));
    }
    void ab_through_each_adapter_data()
    {
        QTest::addColumn<QByteArray>("format");
        QTest::addColumn<QByteArray>("adapter");
        QTest::addColumn<QByteArray>("metric");
        QTest::addColumn<QByteArray>("options");
        QTest::addColumn<bool>("to_file");
        QTest::newRow("nvbench") << QByteArray("nvbench") << QByteArray("auto") << QByteArray("time_ms")
                                 << QByteArray("{}") << true;
        QTest::newRow("gbench") << QByteArray("gbench") << QByteArray("auto") << QByteArray("time_ms")
                                << QByteArray("{}") << false;
        QTest::newRow("ncu") << QByteArray("ncu") << QByteArray("auto") << QByteArray("gpu__time_duration.sum")
                             << QByteArray("{}") << false;
        QTest::newRow("vllm") << QByteArray("vllm") << QByteArray("vllm") << QByteArray("mean_ttft_ms")
                              << QByteArray("{}") << true;
        QTest::newRow("sglang") << QByteArray("sglang") << QByteArray("auto") << QByteArray("ttft_ms")
                                << QByteArray("{}") << true;
        QTest::newRow("genai-perf") << QByteArray("genai-perf") << QByteArray("auto") << QByteArray("ttft_ms")
                                    << QByteArray("{}") << true;
        QTest::newRow("genai-perf-csv") << QByteArray("genai-perf-csv") << QByteArray("auto") << QByteArray("ttft_ms")
                                        << QByteArray("{}") << true;
        QTest::newRow("llama-bench") << QByteArray("llama-bench") << QByteArray("auto") << QByteArray("tg_tok_s")
                                     << QByteArray("{}") << false;
        QTest::newRow("llama-bench-jsonl") << QByteArray("llama-bench-jsonl") << QByteArray("llama-bench")
                                           << QByteArray("tg_tok_s") << QByteArray("{}") << false;
        QTest::newRow("llama-bench-csv") << QByteArray("llama-bench-csv") << QByteArray("auto")
                                         << QByteArray("tg_tok_s") << QByteArray("{}") << false;
        QTest::newRow("console") << QByteArray("console") << QByteArray("auto") << QByteArray("ttft_ms")
                                 << QByteArray("{}") << false;
        QTest::newRow("keymap") << QByteArray("keymap") << QByteArray("keymap") << QByteArray("latency_ms")
                                << QByteArray(
                                       R"({"map":{"/results/latency/mean_ms":{"metric":"latency_ms","unit":"ms"}}})")
                                << true;
        QTest::newRow("regex") << QByteArray("regex") << QByteArray("regex") << QByteArray("time_ms")
                               << QByteArray(R"({"patterns":[{"regex":"result: ([0-9.]+) ms","metric":"time_ms"}]})")
                               << false;
    }
    void ab_through_each_adapter()
    {
        QFETCH(QByteArray, format);
        QFETCH(QByteArray, adapter);
        QFETCH(QByteArray, metric);
        QFETCH(QByteArray, options);
        QFETCH(bool, to_file);
        const auto opts = nlohmann::json::parse(options.toStdString());
        const std::string out = to_file ? " --out {out}" : "";
        // The treatment's primary value is 30% away with 1% noise: every verdict must see it. The
        // noise is a fixed evenly spread sequence: random draws trip the bimodality rule by luck.
        QTemporaryDir dir;
        const auto arm = [&](double mean, const char* name) {
            return spec(standin(fmt::format("--format {} --mean {} --noise 0.01 --sequence '{}/{}'{}",
                            format.toStdString(), mean, dir.path().toStdString(), name, out)),
                adapter.toStdString(), opts);
        };
        Study s = command_study(arm(10, "baseline"), arm(13, "treatment"), metric.toStdString());
        QCOMPARE(run(s), RunOutcome::Done);
        const auto& e = s.experiments.front();
        QCOMPARE(failed_count(e), 0);
        QVERIFY2(e.final_verdict.has_value(), e.error.c_str());
        const std::string word = e.verdict ? std::string(kwb::to_string(e.verdict->word)) : std::string();
        // time-like metrics got worse (higher), tok/s got better: the sample verdict says which.
        const bool higher_is_better = format.startsWith("llama");
        std::string why;
        if (e.verdict)
            for (const auto& r : e.verdict->reasons)
                why += r + "; ";
        QVERIFY2(word == (higher_is_better ? "LICENSE" : "KILL"), (word + ": " + why).c_str());
        QVERIFY(!e.samples.front().adapter.empty());
        QVERIFY(!e.samples.front().stderr_tail.empty());
        QCOMPARE(e.samples.front().exit_status.value_or(-1), 0);
        // Unverified: no check command.
        QVERIFY(std::any_of(e.missing_gates.begin(), e.missing_gates.end(),
            [](const std::string& g) { return g.rfind("correctness:", 0) == 0; }));
    }
    void failing_repetitions_are_kept_and_stop_the_run()
    {
        Study s
            = command_study(spec(standin("--format gbench")), spec(standin("--format gbench --exit 2")), "time_ms", 10);
        QCOMPARE(run(s), RunOutcome::Failed);
        const auto& e = s.experiments.front();
        QCOMPARE(e.status, ExperimentStatus::Failed);
        QCOMPARE(failed_count(e), max_failed_repetitions(e.plan) + 1);
        QVERIFY(e.error.find("failed repetitions") != std::string::npos);
        for (const auto& x : e.samples)
            if (x.failed) {
                QVERIFY(x.discarded);
                QVERIFY(x.metrics.empty());
                QCOMPARE(x.exit_status.value_or(-1), 2);
                QVERIFY(x.stderr_tail.find("failing on purpose") != std::string::npos);
            } else {
                QVERIFY(x.metrics.count("time_ms"));
            }
    }
    void missing_metric_is_a_failed_repetition()
    {
        Study s = command_study(spec(standin("--format gbench")), spec(standin("--format gbench")), "ttft_ms", 3);
        QCOMPARE(run(s), RunOutcome::Failed);
        const auto& x = s.experiments.front().samples.front();
        QVERIFY(x.failed);
        QVERIFY(x.note.find("read no 'ttft_ms'") != std::string::npos);
    }
    void check_command_gates_the_arm()
    {
        auto base = spec(standin("--format gbench"));
        base.check = "true";
        auto treat = spec(standin("--format gbench --mean 12"));
        treat.check = "true";
        Study ok = command_study(base, treat, "time_ms", 3);
        QCOMPARE(run(ok), RunOutcome::Done);
        QVERIFY(std::none_of(ok.experiments[0].missing_gates.begin(), ok.experiments[0].missing_gates.end(),
            [](const std::string& g) { return g.rfind("correctness:", 0) == 0; }));
        treat.check = "echo wrong >&2; false";
        Study bad = command_study(base, treat, "time_ms", 3);
        QCOMPARE(run(bad), RunOutcome::Failed);
        QVERIFY(bad.experiments[0].error.find("check command failed") != std::string::npos);
        QVERIFY(bad.experiments[0].samples.empty());
    }
    void fingerprint_mismatch_is_inconclusive()
    {
        Study s = command_study(spec(standin("--format vllm --mean 80 --model a")),
            spec(standin("--format vllm --mean 60 --model b")), "ttft_ms");
        QCOMPARE(run(s), RunOutcome::Done);
        const auto& v = s.experiments.front().final_verdict;
        QCOMPARE(std::string(kwb::to_string(v->word)), std::string("INCONCLUSIVE"));
        QVERIFY(v->reasons.at(0).find("'model_id'") != std::string::npos);
        // It says what each arm ran and the option that declares the difference expected.
        QVERIFY2(v->reasons.at(0).find("differs between arms (baseline 'a', treatment 'b'); if expected, `kwb new "
                                       "--expect-differ model_id`")
                != std::string::npos,
            v->reasons.at(0).c_str());
    }
    // A field declared expected to differ (kwb new --expect-differ) is shown, never a blocker: the
    // verdict is the one the same A/B gets when the field agrees.
    void declared_fingerprint_difference_is_no_blocker()
    {
        // Noiseless arms: the two verdicts are compared word for word, so a chance bimodal draw of
        // the stand-in's noise must not lead either one.
        Study same = command_study(spec(standin("--format vllm --noise 0 --mean 80 --model a")),
            spec(standin("--format vllm --noise 0 --mean 60 --model a")), "ttft_ms");
        QCOMPARE(run(same), RunOutcome::Done);
        const auto& control = same.experiments.front().final_verdict;
        Study s = command_study(spec(standin("--format vllm --noise 0 --mean 80 --model a")),
            spec(standin("--format vllm --noise 0 --mean 60 --model b")), "ttft_ms");
        s.experiments.front().expect_differ = {"model_id", "num_prompts"};
        QCOMPARE(run(s), RunOutcome::Done);
        const auto& v = s.experiments.front().final_verdict;
        QCOMPARE(std::string(kwb::to_string(v->word)), std::string(kwb::to_string(control->word)));
        // Led by the sample verdict's reason, as the control is, never by a matched-control blocker.
        QVERIFY2(v->reasons.at(0).rfind("delta ", 0) == 0 && control->reasons.at(0).rfind("delta ", 0) == 0,
            v->reasons.at(0).c_str());
        const auto has = [&](const std::string& text) {
            return std::any_of(v->reasons.begin(), v->reasons.end(),
                [&](const std::string& r) { return r.find(text) != std::string::npos; });
        };
        QVERIFY(has("fingerprint field 'model_id' differs between arms as declared (--expect-differ; not a blocker): "
                    "baseline 'a', treatment 'b'"));
        // Declared, yet the same on both arms: said too.
        QVERIFY(has("fingerprint field 'num_prompts' was declared to differ (--expect-differ), yet both arms "
                    "reported '100'"));
        QVERIFY(!has("if expected") && !has("differs between arms ("));
        // An undeclared field that differs still blocks, beside a declared one.
        s.experiments.front().expect_differ = {"num_prompts"};
        s.experiments.front().samples.clear();
        s.experiments.front().status = ExperimentStatus::Pending;
        QCOMPARE(run(s), RunOutcome::Done);
        QCOMPARE(std::string(kwb::to_string(s.experiments.front().final_verdict->word)), std::string("INCONCLUSIVE"));
    }
    void failed_requests_rules()
    {
        Study t = command_study(
            spec(standin("--format vllm --mean 80")), spec(standin("--format vllm --mean 60 --failed 3")), "ttft_ms");
        QCOMPARE(run(t), RunOutcome::Done);
        QCOMPARE(std::string(kwb::to_string(t.experiments[0].final_verdict->word)), std::string("KILL"));
        QVERIFY(t.experiments[0].final_verdict->reasons.at(0).find("arm treatment had 18 failed") != std::string::npos);
        Study b = command_study(
            spec(standin("--format vllm --mean 80 --failed 1")), spec(standin("--format vllm --mean 60")), "ttft_ms");
        QCOMPARE(run(b), RunOutcome::Done);
        QCOMPARE(std::string(kwb::to_string(b.experiments[0].final_verdict->word)), std::string("INCONCLUSIVE"));
        QVERIFY(b.experiments[0].final_verdict->reasons.at(0).find("arm baseline") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCommandWorkload)
#include "tst_command_workload.moc"
