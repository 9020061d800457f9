// SPDX-License-Identifier: GPL-3.0-or-later
// A fake worker for the worker workload's tests: speaks docs/worker-protocol.md version 1 with a
// behaviour chosen on the command line. Its "kernel" is a CPU busy loop on steady_clock whose time
// per launch is `work` x --unit-ms, so two arms that differ in `work` reach a verdict; its output
// is y = 3x + 1 over 1000 inputs drawn from verify's seed.
//
//   kwb_fake_worker [--mode M] [--fault-at N] [--unit-ms X] [--error E] [--reference]
//       [--pidfile FILE] [--child] [--print-on-start]
//
// Modes: normal; wrong (every output off by 50%); cache (the second verify returns the first's
// output: a cached result); and faults that hit the N-th `time` request of each process (default
// 1): garbage, partial (half a line, then exit), crash (abort), hang, huge (a 2 MiB line),
// wrong-id, no-total (no total_ms), fail-time (ok: false from then on), bad-hello (protocol 2).
// --error E scales the output by (1 + E) (the tolerance tests). --reference answers verify with its
// own reference. --pidfile appends this process's pid (and its --child's) to FILE. --child starts a
// child that sleeps 300 s (it must not outlive the run). --print-on-start writes a line to stdout
// before any request (a library's print: a protocol fault).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using nlohmann::json;

constexpr int kElements = 1000;

struct Options {
    std::string mode = "normal";
    int fault_at = 1;
    double unit_ms = 0.2;
    double error = 0;
    bool reference = false;
    std::string pidfile;
    bool child = false;
    bool print_on_start = false;
    bool measured = false;
};

void send(const json& j)
{
    const std::string line = j.dump() + "\n";
    (void)!::write(STDOUT_FILENO, line.data(), line.size());
}

// A deterministic input in [0, 1) from the seed and the element's index (splitmix64).
float input(std::uint64_t seed, int i)
{
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 11) / 9007199254740992.0);
}

void busy_ms(double ms)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms);
    volatile double sink = 0;
    while (std::chrono::steady_clock::now() < until)
        sink = sink + 1;
}

void note_pid(const std::string& pidfile, long pid)
{
    if (!pidfile.empty())
        std::ofstream(pidfile, std::ios::app) << pid << "\n";
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        const auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (k == "--mode")
            o.mode = value();
        else if (k == "--fault-at")
            o.fault_at = std::atoi(value().c_str());
        else if (k == "--unit-ms")
            o.unit_ms = std::atof(value().c_str());
        else if (k == "--error")
            o.error = std::atof(value().c_str());
        else if (k == "--reference")
            o.reference = true;
        else if (k == "--pidfile")
            o.pidfile = value();
        else if (k == "--child")
            o.child = true;
        else if (k == "--print-on-start")
            o.print_on_start = true;
        else if (k == "--measured")
            o.measured = true;
        else {
            std::cerr << "fake worker: unknown option " << k << "\n";
            return 2;
        }
    }
    note_pid(o.pidfile, ::getpid());
    if (o.child) {
        const pid_t c = ::fork();
        if (c == 0) {
            ::sleep(300);
            ::_exit(0);
        }
        note_pid(o.pidfile, c);
    }
    std::cerr << "fake worker " << o.mode << " started (arm " << (getenv("KWB_ARM") ? getenv("KWB_ARM") : "?")
              << ", protocol " << (getenv("KWB_WORKER_PROTOCOL") ? getenv("KWB_WORKER_PROTOCOL") : "?") << ")\n";
    if (o.print_on_start)
        std::printf("Triton autotuning... done\n"), std::fflush(stdout);

    double work = 1;
    int times = 0, verifies = 0;
    std::vector<float> cached;
    std::string line;
    while (std::getline(std::cin, line)) {
        const json req = json::parse(line, nullptr, false);
        const std::string op = req.value("op", "");
        const json id = req.value("id", json());
        if (op == "hello") {
            send({{"id", id}, {"ok", true}, {"protocol", o.mode == "bad-hello" ? 2 : 1}, {"worker", "fake-" + o.mode},
                {"version", "1.0"}});
        } else if (op == "describe") {
            send({{"id", id}, {"ok", true},
                {"params",
                    {{{"name", "work"}, {"default", 1}, {"description", "busy-loop units per launch"}},
                        {{"name", "variant"}, {"default", "a"}, {"values", {"a", "b"}}}}},
                {"metrics", {{{"name", "launches_seen"}, {"unit", "launches"}, {"direction", "higher"}}}},
                {"device", {{"kind", "cpu"}, {"name", "fake CPU"}}}, {"timer", "steady_clock"},
                {"has_reference", o.reference}});
        } else if (op == "prepare") {
            work = req["params"].value("work", 1.0);
            send({{"id", id}, {"ok", true}, {"flop_per_launch", 2.0e6 * work}, {"bytes_per_launch", nullptr}});
        } else if (op == "verify") {
            ++verifies;
            const std::uint64_t seed = req.value("seed", std::uint64_t {0});
            std::vector<float> out(kElements, std::numeric_limits<float>::quiet_NaN()); // poisoned
            for (int i = 0; i < kElements; ++i)
                out[static_cast<size_t>(i)] = static_cast<float>(
                    (3.0 * input(seed, i) + 1.0) * (1.0 + o.error) * (o.mode == "wrong" ? 1.5 : 1.0));
            if (o.mode == "cache") {
                if (cached.empty())
                    cached = out;
                out = cached;
            }
            std::ofstream(req.value("output", ""), std::ios::binary)
                .write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size() * 4));
            json answer = {{"id", id}, {"ok", true}, {"elements", kElements}, {"dtype", "float32"}};
            if (o.reference) {
                double worst = 0;
                for (int i = 0; i < kElements; ++i)
                    worst = std::max(worst, std::fabs(out[static_cast<size_t>(i)] - (3.0 * input(seed, i) + 1.0)));
                answer["reference"] = {{"passed", worst <= 1e-5}, {"max_abs_error", worst}, {"tolerance", 1e-5}};
            }
            send(answer);
        } else if (op == "time") {
            ++times;
            const int launches = req.value("launches", 1);
            const bool cold = req.value("cold", false);
            if (times >= o.fault_at && o.mode != "normal" && o.mode != "wrong" && o.mode != "cache") {
                if (o.mode == "garbage") {
                    send("this is not an object");
                    const char text[] = "<<< not json >>>\n";
                    (void)!::write(STDOUT_FILENO, text, sizeof text - 1);
                    continue;
                }
                if (o.mode == "partial") {
                    const std::string half = "{\"id\": " + id.dump() + ", \"ok\": tr";
                    (void)!::write(STDOUT_FILENO, half.data(), half.size());
                    std::cerr << "fake worker: exiting mid-line\n";
                    return 0;
                }
                if (o.mode == "crash") {
                    std::cerr << "fake worker: crashing on purpose\n";
                    std::abort();
                }
                if (o.mode == "hang") {
                    std::cerr << "fake worker: hanging on purpose\n";
                    ::sleep(3000);
                }
                if (o.mode == "huge") {
                    send({{"id", id}, {"ok", true}, {"total_ms", 1.0}, {"pad", std::string(2u << 20, 'x')}});
                    continue;
                }
                if (o.mode == "wrong-id") {
                    send({{"id", id.get<long long>() + 7}, {"ok", true}, {"total_ms", 1.0}});
                    continue;
                }
                if (o.mode == "no-total") {
                    send({{"id", id}, {"ok", true}, {"per_launch_ms", {1.0}}});
                    continue;
                }
                if (o.mode == "fail-time") {
                    std::cerr << "fake worker: out of memory on purpose\n";
                    send({{"id", id}, {"ok", false}, {"error", "CUDA error: out of memory"}});
                    continue;
                }
            }
            std::vector<double> each;
            const auto start = std::chrono::steady_clock::now();
            for (int l = 0; l < launches; ++l) {
                const auto t0 = std::chrono::steady_clock::now();
                busy_ms(work * o.unit_ms);
                each.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            }
            double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            if (!o.measured) {
                const double spread = 1.0 + ((7 * times) % 11 - 5) / 500.0;
                total = launches * work * o.unit_ms * spread;
                for (double& x : each)
                    x = work * o.unit_ms * spread;
            }
            json answer = {{"id", id}, {"ok", true}, {"metrics", {{"launches_seen", launches}}}};
            if (cold) {
                total = 0;
                for (double x : each)
                    total += x;
                answer["per_launch_ms"] = each;
            }
            answer["total_ms"] = total;
            send(answer);
        } else if (op == "release") {
            send({{"id", id}, {"ok", true}});
        } else {
            send({{"id", id}, {"ok", false}, {"error", "unknown op " + op}});
        }
    }
    return 0;
}
