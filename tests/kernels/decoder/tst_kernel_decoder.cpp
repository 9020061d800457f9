// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"
#include "cpu/decoder.h"
#include "cpu/request_schedule.h"
#include "cpu/workload_util.h"

#include <QTest>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>

using namespace kwb;
using namespace kwb::cpu;

namespace {

std::vector<std::vector<int>> prompts(int batch, int len, int vocab)
{
    std::vector<std::vector<int>> p(static_cast<std::size_t>(batch));
    for (int b = 0; b < batch; ++b)
        for (int t = 0; t < len; ++t)
            p[static_cast<std::size_t>(b)].push_back((b * 31 + t * 17 + 5) % vocab);
    return p;
}

} // namespace

class TestKernelDecoder : public QObject {
    Q_OBJECT

private slots:
    void engineMatchesReferenceForward_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("kv_heads");
        QTest::addColumn<int>("ffn");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("prompt_len");
        QTest::addColumn<int>("threads");
        // Multi-head and grouped-query attention, widths off the 8-float step and the 16-row
        // linear chunks, one-token prompts, several sequences and threads.
        QTest::addRow("1 layer, MHA, 1 seq") << 1 << 32 << 4 << 4 << 48 << 1 << 5 << 1;
        QTest::addRow("2 layers, GQA 4:2, 2 seqs, 2 threads") << 2 << 64 << 4 << 2 << 100 << 2 << 9 << 2;
        QTest::addRow("MQA 6:1, odd widths") << 2 << 36 << 6 << 1 << 70 << 3 << 4 << 2;
        QTest::addRow("one-token prompts") << 1 << 16 << 2 << 1 << 24 << 2 << 1 << 1;
        QTest::addRow("3 layers, head_dim 2, 3 threads") << 3 << 8 << 4 << 2 << 16 << 2 << 6 << 3;
    }

    void engineMatchesReferenceForward()
    {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, kv_heads);
        QFETCH(int, ffn);
        QFETCH(int, batch);
        QFETCH(int, prompt_len);
        QFETCH(int, threads);
        DecoderConfig c;
        c.layers = layers;
        c.hidden = hidden;
        c.heads = heads;
        c.kv_heads = kv_heads;
        c.ffn = ffn;
        c.vocab = 97;
        c.seed = 5;
        const auto weights = make_decoder_weights(c);
        constexpr int kSteps = 3; // decode steps after the prefill
        ThreadPool pool(threads);
        DecoderEngine engine(weights, batch, prompt_len + kSteps, pool);
        auto seqs = prompts(batch, prompt_len, c.vocab);
        const auto vocab = static_cast<std::size_t>(c.vocab);

        // Engine: prefill, then greedy steps; keep every step's logits.
        std::vector<std::vector<float>> steps;
        auto logits = engine.prefill(seqs);
        steps.emplace_back(logits.begin(), logits.end());
        for (int s = 0; s < kSteps; ++s) {
            std::vector<int> next;
            for (int b = 0; b < batch; ++b)
                next.push_back(engine.argmax(b));
            for (int b = 0; b < batch; ++b)
                seqs[static_cast<std::size_t>(b)].push_back(next[static_cast<std::size_t>(b)]);
            logits = engine.decode(next);
            steps.emplace_back(logits.begin(), logits.end());
        }
        QCOMPARE(engine.length(), prompt_len + kSteps);

        // Reference: each full sequence once, logits of its last kSteps + 1 positions.
        for (int b = 0; b < batch; ++b) {
            const auto ref = decoder_reference(weights, seqs[static_cast<std::size_t>(b)], kSteps + 1);
            QCOMPARE(ref.size(), (kSteps + 1) * vocab);
            const double tol = (layers + 1) * (hidden + ffn) * FLT_EPSILON * std::max(1.0, max_abs(ref));
            for (int s = 0; s <= kSteps; ++s) {
                const std::span<const float> got(steps[static_cast<std::size_t>(s)].data() + b * vocab, vocab);
                const std::span<const float> want(ref.data() + s * vocab, vocab);
                const double err = max_abs_diff(got, want);
                QVERIFY2(err <= tol,
                    qPrintable(QStringLiteral("seq %1 step %2: error %3 > %4").arg(b).arg(s).arg(err).arg(tol)));
            }
        }
    }

    void weightsFollowTheSeed()
    {
        DecoderConfig c;
        c.hidden = 32;
        c.heads = 4;
        c.ffn = 40;
        c.vocab = 50;
        const auto a = make_decoder_weights(c);
        const auto b = make_decoder_weights(c);
        QCOMPARE(a.lm_head, b.lm_head);
        QCOMPARE(a.layers[1].w_down, b.layers[1].w_down);
        c.seed = 43;
        QVERIFY(make_decoder_weights(c).lm_head != a.lm_head);
        QVERIFY(a.layers[0].wq != a.layers[1].wq); // every tensor its own stream
    }

    void workloadReportsPlausibleMetrics_data()
    {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("gen_tokens");
        QTest::addColumn<int>("threads");
        QTest::addRow("batch 1, 2 tokens") << 1 << 2 << 1;
        QTest::addRow("batch 3, 9 tokens, 2 threads") << 3 << 9 << 2;
    }

    void workloadReportsPlausibleMetrics()
    {
        QFETCH(int, batch);
        QFETCH(int, gen_tokens);
        QFETCH(int, threads);
        const Workload* w = builtin_workloads().find("decoder");
        QVERIFY(w);
        const auto params = resolve_params(*w,
            {{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"kv_heads", 2}, {"ffn", 96}, {"vocab", 500},
                {"prompt_len", 12}, {"gen_tokens", gen_tokens}, {"batch", batch}, {"threads", threads}});
        auto prepared = w->prepare(params, Backend::Cpu);
        for (int rep = 0; rep < 2; ++rep) { // the second repetition reuses the cache
            const auto r = prepared->run_once();
            for (const auto& m : w->metrics())
                QVERIFY2(r.metrics.count(m.name) == 1, m.name.c_str());
            QVERIFY(r.metrics.at("ttft_ms") > 0);
            QVERIFY(r.metrics.at("itl_p50_ms") > 0);
            QVERIFY(r.metrics.at("itl_p50_ms") <= r.metrics.at("itl_p99_ms"));
            QVERIFY(r.metrics.at("tok_s") > 0);
            QVERIFY(std::isfinite(r.metrics.at("tok_s")));
        }
        const auto v = prepared->verify();
        QVERIFY2(v.ok, v.detail.c_str());
    }

    void servingMetricsMatchTheFixture()
    {
        // Two requests: TTFT 1 and 3 ms, gaps {1, 2} and {4} ms; 6 tokens in 10 ms. Expected values
        // from Python's statistics.quantiles(method="inclusive") (numpy's linear percentile).
        std::map<std::string, double> m;
        llm::serving_metrics({{1.0, {1.0, 2.0}}, {3.0, {4.0}}}, 10.0, 6.0, m);
        QCOMPARE(m.at("ttft_ms"), 2.0);
        QCOMPARE(m.at("ttft_p50_ms"), 2.0);
        QVERIFY(std::abs(m.at("ttft_p99_ms") - 2.98) < 1e-12);
        QCOMPARE(m.at("itl_p50_ms"), 2.0);
        QVERIFY(std::abs(m.at("itl_p99_ms") - 3.96) < 1e-12);
        QCOMPARE(m.at("tpot_ms"), 2.75);
        QCOMPARE(m.at("tok_s"), 600.0);
    }

    void scheduleIsSeededAndBounded()
    {
        llm::ScheduleSpec s;
        s.requests = 50;
        s.batch = 2;
        s.prompt_len = 40;
        s.gen_tokens = 10;
        s.spread_pct = 50;
        s.vocab = 100;
        const auto a = llm::make_schedule(s);
        QCOMPARE(a.size(), std::size_t {50});
        std::set<int> prompt_lens;
        for (const auto& r : a) {
            QVERIFY(r.prompt_len >= 20 && r.prompt_len <= 40);
            QVERIFY(r.gen_tokens >= 5 && r.gen_tokens <= 10);
            QCOMPARE(r.prompts.size(), std::size_t {2});
            for (const auto& p : r.prompts) {
                QCOMPARE(static_cast<int>(p.size()), r.prompt_len);
                for (int t : p)
                    QVERIFY(t >= 0 && t < 100);
            }
            prompt_lens.insert(r.prompt_len);
        }
        QVERIFY(prompt_lens.size() > 5); // lengths vary by request
        const auto b = llm::make_schedule(s);
        QVERIFY(a.front().prompts == b.front().prompts && a.back().prompts == b.back().prompts);
        // One request without spread: the decoder's prompts before it joined tiny_llm.
        s.requests = 1;
        s.spread_pct = 0;
        const auto one = llm::make_schedule(s);
        std::mt19937_64 rng(s.seed ^ 0x9e3779b97f4a7c15ull);
        QCOMPARE(one.front().prompt_len, 40);
        QCOMPARE(one.front().gen_tokens, 10);
        for (const auto& p : one.front().prompts)
            for (int t : p)
                QCOMPARE(t, static_cast<int>(rng() % 100u));
    }

    void scheduleOfRequestsReportsEach()
    {
        const Workload* w = builtin_workloads().find("tiny_llm");
        QVERIFY(w);
        QVERIFY(w == builtin_workloads().find("decoder"));
        const auto params = resolve_params(*w,
            {{"layers", 1}, {"hidden", 64}, {"heads", 4}, {"kv_heads", 2}, {"ffn", 96}, {"vocab", 500},
                {"prompt_len", 12}, {"gen_tokens", 6}, {"batch", 2}, {"requests", 3}, {"length_spread", 50}},
            Backend::Cpu);
        auto prepared = w->prepare(params, Backend::Cpu);
        const auto r = prepared->run_once();
        QCOMPARE(r.iterations.size(), std::size_t {3}); // one TTFT per request
        // Each request's TTFT and each of its gaps as readings for the live view, in time order.
        std::size_t ttft = 0, itl = 0;
        for (std::size_t i = 0; i < r.readings.size(); ++i) {
            (r.readings[i].name == "ttft" ? ttft : itl) += 1;
            QCOMPARE(r.readings[i].unit, std::string("ms"));
            if (i > 0)
                QVERIFY(r.readings[i].t_s >= r.readings[i - 1].t_s);
        }
        QCOMPARE(ttft, std::size_t {3});
        QCOMPARE(itl, r.readings.size() - 3);
        QVERIFY(itl >= 3 * 2); // at least 3 of 6 tokens per request: gen_tokens spreads over [3, 6]
        QVERIFY(r.metrics.at("ttft_p50_ms") <= r.metrics.at("ttft_p99_ms"));
        QVERIFY(r.metrics.at("tpot_ms") > 0);
        QVERIFY(r.metrics.at("peak_mem_mib") > 0);
        const auto v = prepared->verify();
        QVERIFY2(v.ok, v.detail.c_str());
    }

    void cudaOnlyParametersAreRefusedOnCpu()
    {
        const Workload* w = builtin_workloads().find("tiny_llm");
        QVERIFY_THROWS_EXCEPTION(WorkloadError, resolve_params(*w, {{"cuda_graph", "on"}}, Backend::Cpu));
        const auto cuda = resolve_params(*w, nlohmann::json::object(), Backend::Cuda);
        QVERIFY(cuda.at("cuda_graph") == "off");
        QVERIFY(cuda.at("hidden") == 2048);
        QVERIFY(!cuda.contains("threads"));
    }

    // The prefill's GEMM (cuBLASLt or the plugin's own) is a cuda-only variant; its values are the
    // plugin's to check (gpu_tiny_llm refuses a bad one), the cpu backend refuses the parameter.
    void prefillGemmIsACudaOnlyVariant()
    {
        const Workload* w = builtin_workloads().find("tiny_llm");
        const auto params = w->params();
        const auto spec
            = std::find_if(params.begin(), params.end(), [](const ParamSpec& p) { return p.name == "prefill_gemm"; });
        QVERIFY(spec != params.end());
        QVERIFY(spec->only_on == std::vector<Backend> {Backend::Cuda});
        QVERIFY(spec->default_value == "cublaslt");
        QVERIFY(spec->values == (std::vector<nlohmann::json> {"cublaslt", "wgmma", "tiled"}));
        QVERIFY(spec->description.find("peak_mem_mib") != std::string::npos);
        QVERIFY(resolve_params(*w, nlohmann::json::object(), Backend::Cuda).at("prefill_gemm") == "cublaslt");
        QVERIFY(resolve_params(*w, {{"prefill_gemm", "wgmma"}}, Backend::Cuda).at("prefill_gemm") == "wgmma");
        QVERIFY(!resolve_params(*w, nlohmann::json::object(), Backend::Cpu).contains("prefill_gemm"));
        for (const nlohmann::json& given :
            {nlohmann::json {{"prefill_gemm", "wgmma"}}, nlohmann::json {{"prefill_gemm", 1}}})
            try {
                resolve_params(*w, given, Backend::Cpu);
                QFAIL("the cpu backend took prefill_gemm");
            } catch (const WorkloadError& e) {
                const std::string what = e.what();
                QVERIFY2(
                    what.find("tiny_llm: parameter 'prefill_gemm' exists on the cuda backend only") == 0, e.what());
                QVERIFY2(what.find('\n') == std::string::npos, e.what());
            }
        // Of the wrong kind on cuda: refused by the engine before the plugin sees it.
        QVERIFY_THROWS_EXCEPTION(WorkloadError, resolve_params(*w, {{"prefill_gemm", 1}}, Backend::Cuda));
    }

    void percentileInterpolates()
    {
        // tiny_llm's request percentiles are the engine's (stats/percentile.h), 0 with no request.
        QCOMPARE(llm::percentile_of({}, 50), 0.0);
        QCOMPARE(llm::percentile_of({3.0}, 99), 3.0);
        QCOMPARE(llm::percentile_of({1.0, 2.0}, 50), 1.5);
        QCOMPARE(llm::percentile_of({4.0, 1.0, 3.0, 2.0, 5.0}, 50), 3.0);
        QCOMPARE(llm::percentile_of({1.0, 2.0, 3.0, 4.0, 5.0}, 100), 5.0);
        // numpy.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99) = 9.91 (linear method).
        QCOMPARE(llm::percentile_of({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 99), 9.91);
    }
};

QTEST_GUILESS_MAIN(TestKernelDecoder)
#include "tst_kernel_decoder.moc"
