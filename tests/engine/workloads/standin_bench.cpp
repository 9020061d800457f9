// SPDX-License-Identifier: GPL-3.0-or-later
// A stand-in benchmark for the command workload's tests: prints (or writes to --out) one result in
// the format of a real benchmark, with its primary value = --mean * (1 + --noise * N(0,1)).
//
//   kwb_standin_bench --format F [--mean X] [--noise FRACTION] [--seed N] [--out FILE]
//       [--exit N] [--sleep S] [--failed N] [--model M] [--fork-child S] [--sequence FILE]
//
// --sequence FILE replaces the random draw with a fixed, evenly spread one: the k-th call (k kept
// in FILE) gives N(0,1) the value ((7k mod 11) - 5) / 5, so a test's verdict cannot depend on luck
// (six Gaussian draws look bimodal to the spec's rule about once in twenty arms).
//
// Formats: nvbench gbench ncu vllm sglang genai-perf genai-perf-csv llama-bench llama-bench-jsonl
// llama-bench-csv console keymap regex garbage nan empty. The primary value is milliseconds for
// kernel formats (time_ms), TTFT ms for serving formats, generation tokens/s for llama-bench.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

std::string fmt_num(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string render(const std::string& f, double v, int failed, const std::string& model)
{
    std::ostringstream o;
    const std::string x = fmt_num(v);
    if (f == "nvbench")
        o << R"({"benchmarks":[{"name":"standin","states":[{"name":"Device=0 N=1024","summaries":[)"
          << R"({"tag":"nv/cold/time/gpu/mean","data":[{"name":"value","type":"float64","value":")" << fmt_num(v / 1e3)
          << R"("}]}]}]}]})"
          << "\n";
    else if (f == "gbench")
        o << R"({"context":{"num_cpus":2},"benchmarks":[{"name":"BM_Standin","run_name":"BM_Standin","run_type":"iteration",)"
          << R"("iterations":100,"real_time":)" << fmt_num(v * 1e3) << R"(,"cpu_time":)" << fmt_num(v * 1e3)
          << R"(,"time_unit":"us"}]})"
          << "\n";
    else if (f == "ncu")
        o << "==PROF== Disconnected\n"
          << R"x("ID","Kernel Name","Block Size","Grid Size","Metric Name","Metric Unit","Metric Value")x"
          << "\n"
          << R"x("0","standin_kernel","(256, 1, 1)","(64, 1, 1)","gpu__time_duration.sum","usecond",")x"
          << fmt_num(v * 1e3) << "\"\n";
    else if (f == "vllm")
        o << R"({"model_id":")" << model
          << R"(","num_prompts":100,"max_concurrency":8,"request_rate":"inf","completed":)" << 100 - failed
          << R"(,"failed":)" << failed << R"(,"duration":10.0,"request_throughput":9.5,"output_throughput":1200.0,)"
          << R"("mean_ttft_ms":)" << x << R"(,"median_ttft_ms":)" << x << R"(,"mean_tpot_ms":20.0,"mean_itl_ms":19.5})"
          << "\n";
    else if (f == "sglang")
        o << R"({"backend":"sglang","dataset_name":"random","request_rate":Infinity,"max_concurrency":8,"completed":100,)"
          << R"("total_input":1000,"request_throughput":9.5,"output_throughput":1200.0,"mean_e2e_latency_ms":NaN,)"
          << R"("mean_ttft_ms":)" << x << R"(,"median_ttft_ms":)" << x << "}\n";
    else if (f == "genai-perf")
        o << R"({"time_to_first_token":{"unit":"ms","avg":)" << x << R"(,"p50":)" << x
          << R"(},"inter_token_latency":{"unit":"ms","avg":20.0},"request_throughput":{"unit":"requests/sec","avg":9.5},)"
          << R"("input_config":{"model":[")" << model << R"("],"concurrency":8}})"
          << "\n";
    else if (f == "genai-perf-csv")
        o << "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\nTime To First Token (ms)," << x << "," << x << "," << x << ","
          << x << "," << x << "," << x << "," << x << "," << x << "," << x
          << "\n\nMetric,Value\nRequest Throughput (per sec),9.50\n";
    else if (f == "llama-bench")
        o << R"([{"model_type":")" << model << R"(","n_prompt":0,"n_gen":128,"avg_ns":1000000000,"avg_ts":)" << x
          << R"(,"stddev_ts":0.5}])"
          << "\n";
    else if (f == "llama-bench-jsonl")
        o << R"({"model_type":")" << model << R"(","n_prompt":0,"n_gen":128,"avg_ns":1000000000,"avg_ts":)" << x
          << "}\n";
    else if (f == "llama-bench-csv")
        o << "\"model_type\",\"n_prompt\",\"n_gen\",\"avg_ns\",\"avg_ts\"\n\"" << model
          << "\",\"0\",\"128\",\"1000000000\",\"" << x << "\"\n";
    else if (f == "console")
        o << "Failed requests: " << failed << "\nMean TTFT (ms):   " << x << "\nRequest throughput (req/s):  9.50\n";
    else if (f == "keymap")
        o << R"({"results":{"latency":{"mean_ms":)" << x << "}}}\n";
    else if (f == "regex")
        o << "warming up\nresult: " << x << " ms\n";
    else if (f == "garbage")
        o << "<<< not a result >>>\n";
    else if (f == "nan")
        o << R"({"context":{},"benchmarks":[{"name":"BM_Standin","run_name":"BM_Standin","run_type":"iteration",)"
          << R"("real_time":NaN,"cpu_time":NaN,"time_unit":"us"}]})"
          << "\n";
    else if (f == "empty")
        ;
    else {
        std::cerr << "standin: unknown format " << f << "\n";
        std::exit(2);
    }
    return o.str();
}

} // namespace

int main(int argc, char** argv)
{
    std::string format = "gbench", out, model = "standin-model", sequence;
    double mean = 10, noise = 0.01, sleep_s = 0, fork_child_s = 0;
    int exit_code = 0, failed = 0;
    unsigned seed = static_cast<unsigned>(getpid())
        ^ static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count());
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--format")
            format = v;
        else if (k == "--mean")
            mean = std::atof(v.c_str());
        else if (k == "--noise")
            noise = std::atof(v.c_str());
        else if (k == "--seed")
            seed = static_cast<unsigned>(std::atoi(v.c_str()));
        else if (k == "--out")
            out = v;
        else if (k == "--exit")
            exit_code = std::atoi(v.c_str());
        else if (k == "--sleep")
            sleep_s = std::atof(v.c_str());
        else if (k == "--failed")
            failed = std::atoi(v.c_str());
        else if (k == "--model")
            model = v;
        else if (k == "--sequence")
            sequence = v;
        else if (k == "--fork-child")
            fork_child_s = std::atof(v.c_str());
        else {
            std::cerr << "standin: unknown option " << k << "\n";
            return 2;
        }
    }
    if (fork_child_s > 0 && fork() == 0) {
        // A child left behind, holding stdout open: the runner must end it with the group.
        std::this_thread::sleep_for(std::chrono::duration<double>(fork_child_s));
        return 0;
    }
    if (sleep_s > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s));
    double z = 0;
    if (sequence.empty()) {
        std::mt19937 rng(seed);
        z = std::normal_distribution<double>(0, 1)(rng);
    } else {
        long k = 0;
        std::ifstream(sequence) >> k;
        std::ofstream(sequence) << k + 1;
        z = ((7 * k) % 11 - 5) / 5.0;
    }
    const double v = mean * (1 + noise * z);
    const std::string text = render(format, v, failed, model);
    if (exit_code != 0) {
        std::cerr << "standin: failing on purpose with exit " << exit_code << "\n";
        std::cout << text;
        return exit_code;
    }
    if (out.empty()) {
        std::cout << text;
    } else {
        std::ofstream f(out);
        f << text;
    }
    std::cerr << "standin: done\n";
    return 0;
}
