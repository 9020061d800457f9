// SPDX-License-Identifier: GPL-3.0-or-later
// Every adapter against a fixture written from its documented keys: the values it reads, the
// canonical names, auto-detection, and the outputs that must give an error and never a number.
#include "workloads/command/adapter.h"

#include <QTest>
#include <fstream>
#include <sstream>

using namespace kwb::command;

namespace {

std::string fixture(const char* name)
{
    std::ifstream in(std::string(KWB_ADAPTER_DATA) + "/" + name, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

Reading read(const char* adapter, const char* file, const nlohmann::json& options = {})
{
    return make_adapter(adapter, options)->read(fixture(file));
}

std::string detected(const char* file)
{
    const auto a = detect_adapter(fixture(file));
    return a ? a->name() : std::string("none");
}

} // namespace

class TestAdapters : public QObject {
    Q_OBJECT
private slots:
    void nvbench()
    {
        const auto r = read("nvbench", "nvbench.json");
        QCOMPARE(r.metrics.at("time_ms"), 0.125);
        QCOMPARE(r.metrics.at("cpu_time_ms"), 0.130);
        QCOMPARE(r.metrics.at("gpu_noise_pct"), 0.4);
        QCOMPARE(r.fingerprint.at("state"), std::string("Device=0 T=F32 Elements=16777216"));
        const auto f64 = read("nvbench", "nvbench.json", {{"select", "F64"}});
        QCOMPARE(f64.metrics.at("time_ms"), 0.25);
        QVERIFY_THROWS_EXCEPTION(AdapterError, read("nvbench", "nvbench.json", {{"select", "F16"}}));
    }
    void gbench_aggregates_and_repetitions()
    {
        const auto r = read("gbench", "gbench_repetitions.json");
        QCOMPARE(r.metrics.at("time_ms"), 3.0); // the mean aggregate, us -> ms
        QCOMPARE(r.metrics.at("cpu_time_ms"), 2.9);
        QCOMPARE(r.metrics.at("median_time_ms"), 3.0);
        QCOMPARE(r.metrics.at("time_cv_pct"), 27.0);
        QCOMPARE(r.fingerprint.at("benchmark"), std::string("BM_Sum/1024"));
        const auto other = read("gbench", "gbench_repetitions.json", {{"select", "BM_Other"}});
        QCOMPARE(other.metrics.at("time_ms"), 5.0);
        QCOMPARE(other.metrics.at("items_per_second"), 1000.0);
        // Without the aggregates: the mean of the repetition rows.
        auto j = nlohmann::json::parse(fixture("gbench_repetitions.json"));
        auto& b = j["benchmarks"];
        b.erase(
            std::remove_if(b.begin(), b.end(), [](const auto& x) { return x["run_type"] == "aggregate"; }), b.end());
        QCOMPARE(make_adapter("gbench")->read(j.dump()).metrics.at("time_ms"), 3.0);
    }
    void ncu_per_kernel()
    {
        const auto r = read("ncu", "ncu_details.csv");
        QCOMPARE(r.metrics.at("time_ms"), 0.011); // mean of the two saxpy launches, us -> ms
        QCOMPARE(r.metrics.at("dram__bytes_read.sum"), 8.39);
        QCOMPARE(r.metrics.at("gpu__time_duration.sum[reduce_sum]"), 1500.0);
        QCOMPARE(r.fingerprint.at("kernel"), std::string("saxpy"));
        QCOMPARE(r.fingerprint.at("Grid Size"), std::string("(4096, 1, 1)"));
        QCOMPARE(read("ncu", "ncu_details.csv", {{"select", "reduce"}}).metrics.at("time_ms"), 0.0015);
    }
    void vllm()
    {
        const auto r = read("vllm", "vllm_result.json");
        QCOMPARE(r.metrics.at("ttft_ms"), 85.1);
        QCOMPARE(r.metrics.at("mean_ttft_ms"), 85.1);
        QCOMPARE(r.metrics.at("p99_ttft_ms"), 130.5);
        QCOMPARE(r.metrics.at("tpot_ms"), 24.9);
        QCOMPARE(r.metrics.at("itl_ms"), 24.6);
        QCOMPARE(r.metrics.at("output_tok_s"), 621.4);
        QCOMPARE(r.metrics.at("total_tok_s"), 5592.6);
        QCOMPARE(r.metrics.at("request_per_s"), 4.85);
        QCOMPARE(r.metrics.at("failed_requests"), 0.0);
        QVERIFY(!r.metrics.count("e2el_ms")); // not selected in --percentile-metrics: absent, not zero
        QVERIFY(!r.metrics.count("request_goodput")); // null
        QCOMPARE(r.fingerprint.at("model_id"), std::string("example/model-7b"));
        QCOMPARE(r.fingerprint.at("max_concurrency"), std::string("16"));
        QCOMPARE(r.fingerprint.at("request_rate"), std::string("inf"));
        const auto legacy = read("vllm", "vllm_legacy.json");
        QCOMPARE(legacy.metrics.at("request_goodput"), 4.5);
        QVERIFY(!legacy.metrics.count("failed_requests"));
    }
    void sglang_both_generations()
    {
        const auto old = read("sglang", "sglang_old.jsonl"); // the last line; NaN and Infinity tolerated
        QCOMPARE(old.metrics.at("ttft_ms"), 80.0);
        QCOMPARE(old.metrics.at("e2el_ms"), 3200.0); // mean is NaN: the median stands in
        QCOMPARE(old.fingerprint.at("total_input"), std::string("204800"));
        QCOMPARE(old.fingerprint.at("request_rate"), std::string("null"));
        const auto neu = read("sglang", "sglang_new.jsonl");
        QCOMPARE(neu.metrics.at("ttft_ms"), 79.9); // median: the newer file has no mean
        QCOMPARE(neu.metrics.at("total_tok_s"), 5745.6);
        QCOMPARE(neu.metrics.at("max_itl_ms"), 95.1);
        QCOMPARE(neu.fingerprint.at("total_input"), std::string("204800"));
    }
    void genai_perf_itl_is_tpot()
    {
        for (const char* f : {"genai_perf.json", "genai_perf.csv"}) {
            const auto r = read(f == std::string("genai_perf.json") ? "genai-perf" : "genai-perf-csv", f);
            QCOMPARE(r.metrics.at("ttft_ms"), 85.0);
            QCOMPARE(r.metrics.at("tpot_ms"), 24.8); // per-request mean gap: TPOT, not ITL
            QVERIFY(!r.metrics.count("itl_ms"));
            QCOMPARE(r.metrics.at("e2el_ms"), 3250.0); // "3,250.00" in the CSV
            QCOMPARE(r.metrics.at("request_per_s"), 4.9);
            QCOMPARE(r.metrics.at("time_to_first_token.p99"), 130.0);
        }
        QCOMPARE(read("genai-perf", "genai_perf.json").fingerprint.at("concurrency"), std::string("16"));
    }
    void llama_bench_formats()
    {
        for (const char* f : {"llama_bench.json", "llama_bench.jsonl", "llama_bench.csv"}) {
            const auto r = read("llama-bench", f);
            QCOMPARE(r.metrics.at("tg_tok_s"), 119.47);
            QCOMPARE(r.metrics.at("pp_tok_s"), 3413.3);
            QCOMPARE(r.metrics.at("avg_ts[tg128]"), 119.47);
            QCOMPARE(r.metrics.at("avg_ms[pp512]"), 150.0);
            QCOMPARE(r.fingerprint.at("tests"), std::string("pp512,tg128"));
        }
    }
    void console_keymap_regex()
    {
        const auto c = read("console", "console.txt");
        QCOMPARE(c.metrics.at("ttft_ms"), 85.1);
        QCOMPARE(c.metrics.at("p99_itl_ms"), 41.0);
        QCOMPARE(c.metrics.at("output_tok_s"), 621.4);
        QCOMPARE(c.metrics.at("failed_requests"), 0.0);
        const auto k = read("keymap", "keymap.json",
            {{"map",
                {{"/run/results/latency/mean_us", {{"metric", "latency_us"}, {"unit", "us"}}},
                    {"/run/results/throughput_gbs", {{"metric", "gbs"}, {"direction", "higher"}}}}}});
        QCOMPARE(k.metrics.at("latency_us"), 12.5);
        QCOMPARE(k.metrics.at("gbs"), 1800.0);
        QVERIFY_THROWS_EXCEPTION(
            AdapterError, read("keymap", "keymap.json", {{"map", {{"/run/missing", {{"metric", "x"}}}}}}));
        QVERIFY_THROWS_EXCEPTION(
            AdapterError, read("keymap", "keymap.json", {{"map", {{"/run/config/kernel", {{"metric", "x"}}}}}}));
        const auto re
            = read("regex", "regex.txt", {{"patterns", {{{"regex", "took ([0-9.]+) ms"}, {"metric", "time_ms"}}}}});
        QCOMPARE(re.metrics.at("time_ms"), 12.0); // the last match
        QVERIFY_THROWS_EXCEPTION(
            AdapterError, read("regex", "regex.txt", {{"patterns", {{{"regex", "nope ([0-9]+)"}, {"metric", "x"}}}}}));
        QVERIFY_THROWS_EXCEPTION(
            AdapterError, make_adapter("regex", {{"patterns", {{{"regex", "(unclosed"}, {"metric", "x"}}}}}));
    }
    void auto_detection()
    {
        QCOMPARE(detected("nvbench.json"), std::string("nvbench"));
        QCOMPARE(detected("gbench_repetitions.json"), std::string("gbench"));
        QCOMPARE(detected("ncu_details.csv"), std::string("ncu"));
        QCOMPARE(detected("vllm_result.json"), std::string("vllm"));
        QCOMPARE(detected("vllm_legacy.json"), std::string("vllm"));
        QCOMPARE(detected("sglang_old.jsonl"), std::string("sglang"));
        QCOMPARE(detected("sglang_new.jsonl"), std::string("sglang"));
        QCOMPARE(detected("genai_perf.json"), std::string("genai-perf"));
        QCOMPARE(detected("genai_perf.csv"), std::string("genai-perf-csv"));
        QCOMPARE(detected("llama_bench.json"), std::string("llama-bench"));
        QCOMPARE(detected("llama_bench.jsonl"), std::string("llama-bench"));
        QCOMPARE(detected("llama_bench.csv"), std::string("llama-bench"));
        QCOMPARE(detected("console.txt"), std::string("console"));
        QCOMPARE(detected("garbage.txt"), std::string("none"));
        QCOMPARE(detected("empty.json"), std::string("none"));
    }
    void garbage_empty_nan_give_errors()
    {
        for (const char* a :
            {"nvbench", "gbench", "ncu", "vllm", "sglang", "genai-perf", "genai-perf-csv", "llama-bench", "console"}) {
            QVERIFY_THROWS_EXCEPTION(AdapterError, read(a, "garbage.txt"));
            QVERIFY_THROWS_EXCEPTION(AdapterError, read(a, "empty.json"));
        }
        const std::string nan
            = R"({"context":{},"benchmarks":[{"name":"B","run_name":"B","run_type":"iteration","real_time":NaN,"time_unit":"ns"}]})";
        QVERIFY_THROWS_EXCEPTION(AdapterError, make_adapter("gbench")->read(nan));
        QVERIFY_THROWS_EXCEPTION(AdapterError, make_adapter("no-such-adapter"));
    }
    void metric_specs_and_listing()
    {
        QCOMPARE(metric_spec("output_tok_s").direction, kwb::Direction::Higher);
        QCOMPARE(metric_spec("tpot_ms").unit, std::string("ms"));
        QCOMPARE(metric_spec("p90_ttft_ms").direction, kwb::Direction::Lower);
        QCOMPARE(metric_spec("tg_tok_s").direction, kwb::Direction::Higher);
        const auto list = describe_adapters();
        QCOMPARE(list.size(), adapter_names().size());
        for (const auto& a : list)
            QVERIFY2(!a["keys"].empty(), a["name"].get<std::string>().c_str());
    }
};

QTEST_GUILESS_MAIN(TestAdapters)
#include "tst_adapters.moc"
