// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm's serving rules: Poisson arrival times against an independent recomputation
// (numpy/scipy fixture), the continuous-batching loop's step boundaries and TTFT on a virtual
// clock, the decoder engine's slots, and the cpu backend serving Poisson arrivals.
#include "builtin_workloads.h"
#include "cpu/continuous_batching.h"
#include "cpu/decode_traffic.h"
#include "cpu/decoder.h"
#include "cpu/workload_util.h"

#include <QTest>
#include <cfloat>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

using namespace kwb;
using namespace kwb::cpu;

namespace {

// A backend whose prefill costs 10 ms and whose step costs 1 ms of a virtual clock, logging calls.
struct VirtualServing {
    double now = 0;
    std::string log;
    double now_ms() const { return now; }
    void wait_until_ms(double t) { now = std::max(now, t); }
    void prefill(int request, int first_row)
    {
        log += "P" + std::to_string(request) + "@" + std::to_string(first_row) + " ";
        now += 10;
    }
    void step(int rows)
    {
        log += "S" + std::to_string(rows) + " ";
        now += 1;
    }
    void retire(const std::vector<int>& kept)
    {
        log += "R";
        for (int k : kept)
            log += std::to_string(k);
        log += " ";
    }
};

std::vector<llm::Request> requests(std::initializer_list<double> arrivals, int gen_tokens)
{
    std::vector<llm::Request> out;
    for (double a : arrivals) {
        llm::Request r;
        r.arrival_ms = a;
        r.gen_tokens = gen_tokens;
        out.push_back(r);
    }
    return out;
}

} // namespace

class TestKernelServing : public QObject {
    Q_OBJECT

private slots:
    void poissonArrivalsMatchTheFixture()
    {
        std::ifstream in(KWB_TEST_DATA_DIR "/serving/poisson_arrivals.json");
        QVERIFY(in.good());
        const auto fixture = nlohmann::json::parse(in);
        QCOMPARE(fixture.at("cases").size(), std::size_t {4});
        for (const auto& c : fixture.at("cases")) {
            const auto want = c.at("arrival_ms").get<std::vector<double>>();
            const auto got = llm::poisson_arrivals_ms(
                c.at("count").get<int>(), c.at("rate_per_s").get<double>(), c.at("seed").get<std::uint64_t>());
            QCOMPARE(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                QVERIFY2(std::abs(got[i] - want[i]) <= 1e-12 * std::max(1.0, want[i]),
                    qPrintable(QStringLiteral("arrival %1: %2 vs %3").arg(i).arg(got[i]).arg(want[i])));
        }
    }

    void scheduleCarriesTheArrivals()
    {
        llm::ScheduleSpec s;
        s.requests = 12;
        s.arrivals = llm::Arrivals::Poisson;
        s.rate = 50;
        s.seed = 42;
        const auto r = llm::make_schedule(s);
        const auto at = llm::poisson_arrivals_ms(12, 50, 42);
        for (std::size_t i = 0; i < r.size(); ++i)
            QCOMPARE(r[i].arrival_ms, at[i]);
        QCOMPARE(r.front().arrival_ms, 0.0);
        // The arrivals draw from their own stream: lengths and tokens are those of sequential.
        s.arrivals = llm::Arrivals::Sequential;
        const auto seq = llm::make_schedule(s);
        QVERIFY(seq.back().prompts == r.back().prompts);
        QCOMPARE(seq.back().arrival_ms, 0.0);
    }

    void continuousBatchingStepsAndQueueing()
    {
        // batch 1, two rows; three tokens each. Request 1 arrives at 0.5 ms while request 0's
        // prefill runs: it joins at the boundary at 11 ms, after one step of request 0, so its
        // TTFT is 10.5 ms of queueing plus its 10 ms prefill. Request 2 also arrived at 0.5 ms
        // but finds both rows taken until request 0 leaves at 22 ms.
        VirtualServing v;
        const auto reqs = requests({0, 0.5, 0.5, 30}, 3);
        const auto t = llm::serve_continuous(reqs, 1, 2, v, v);
        QCOMPARE(v.log, std::string("P0@0 S1 P1@1 S2 R1 P2@1 S2 R1 P3@1 S2 R1 S1 R "));
        QCOMPARE(t.served[0].ttft_ms, 10.0);
        QCOMPARE(t.served[1].ttft_ms, 20.5);
        QCOMPARE(t.served[2].ttft_ms, 31.5);
        QCOMPARE(t.served[3].ttft_ms, 13.0); // arrived at 30 during a prefill: joins at 33
        // Gaps of a running request include the prefill of one that joins before the step.
        QCOMPARE(t.served[0].itl_ms, (std::vector<double> {1.0, 11.0}));
        QCOMPARE(t.served[1].itl_ms, (std::vector<double> {1.0, 11.0}));
        QCOMPARE(t.served[3].itl_ms, (std::vector<double> {1.0, 1.0}));
        QCOMPARE(t.traffic.steps, 5);
        QCOMPARE(t.peak_rows, 2);
        QCOMPARE(t.wall_ms, 45.0);
        QCOMPARE(t.readings.size(), std::size_t {4 + 8});
        QVERIFY(t.readings.front().ttft && t.readings.front().t_ms == 10.0);
    }

    void continuousBatchingWaitsForArrivals()
    {
        // Batch 2 per request, four rows: requests 0 and 1 share steps; request 2 arrives
        // after everything finished, so the loop sleeps until it and its TTFT has no queueing.
        VirtualServing v;
        const auto reqs = requests({0, 0, 100}, 2);
        const auto t = llm::serve_continuous(reqs, 2, 4, v, v);
        QCOMPARE(v.log, std::string("P0@0 P1@2 S4 R P2@0 S2 R "));
        QCOMPARE(t.served[0].ttft_ms, 10.0);
        QCOMPARE(t.served[1].ttft_ms, 20.0);
        QCOMPARE(t.served[2].ttft_ms, 10.0);
        QCOMPARE(t.served[0].itl_ms, (std::vector<double> {11.0}));
        QCOMPARE(t.wall_ms, 111.0);
    }

    void sequentialTrafficCountsEachRequestAlone()
    {
        // Batch 2. Request A: prompt 5, 3 tokens: steps attend 5 + 1 and 5 + 2 positions per
        // sequence; B: prompt 2, 4 tokens: 3, 4, 5. So 2 prefills, 5 steps, 2 x (6 + 7) + 2 x (3 + 4
        // + 5) = 50 positions. Sizes: 1000 weights of 2 bytes, 3 layers x kv_dim 8 of 1 byte:
        // 2000 bytes a step or prefill, 2 x 3 x 8 = 48 bytes a position.
        std::vector<llm::Request> reqs(2);
        reqs[0].prompt_len = 5;
        reqs[0].gen_tokens = 3;
        reqs[1].prompt_len = 2;
        reqs[1].gen_tokens = 4;
        const auto t = llm::sequential_traffic(reqs, 2);
        QCOMPARE(t.prefills, 2);
        QCOMPARE(t.steps, 5);
        QCOMPARE(t.kv_positions, 50.0);
        const auto bytes = llm::DecodeBytes::of(1000, 2, 3, 8, 1);
        QCOMPARE(bytes.weights, 2000.0);
        QCOMPARE(bytes.kv_per_position, 48.0);
        QCOMPARE(bytes.total(t), 2000.0 * 7 + 48.0 * 50);
        QCOMPARE(bytes.per_step(t), 2000.0 + 48.0 * 10);
        std::map<std::string, double> m {{"itl_p50_ms", 0.002}};
        llm::traffic_metrics(bytes, t, m);
        QCOMPARE(m.at("step_mb"), 2480.0 / 1e6);
        QCOMPARE(m.at("step_gbs"), 2480.0 / (0.002 * 1e6)); // bytes / ms / 1e6 = GB/s
        QCOMPARE(bytes.per_step(llm::DecodeTraffic {}), 2000.0); // no steps: the weights alone
    }

    void continuousTrafficFollowsTheSteps()
    {
        // The schedule of continuousBatchingStepsAndQueueing with prompts of 4, 1, 2 and 3 tokens
        // (batch 1, 3 tokens each). Its steps and the positions each active sequence attends
        // (prompt + tokens so far):
        //   S1: r0 4+1                 =  5
        //   S2: r0 4+2, r1 1+1         =  8   (r0 leaves)
        //   S2: r1 1+2, r2 2+1         =  6   (r1 leaves)
        //   S2: r2 2+2, r3 3+1         =  8   (r2 leaves)
        //   S1: r3 3+2                 =  5
        // 5 steps, 32 positions, 4 prefills. One after another the same requests take 8 steps
        // over the same 32 positions: the continuous batch reads the weights 3 times fewer.
        VirtualServing v;
        auto reqs = requests({0, 0.5, 0.5, 30}, 3);
        const int prompt[] = {4, 1, 2, 3};
        for (std::size_t i = 0; i < reqs.size(); ++i)
            reqs[i].prompt_len = prompt[i];
        const auto t = llm::serve_continuous(reqs, 1, 2, v, v);
        QCOMPARE(v.log, std::string("P0@0 S1 P1@1 S2 R1 P2@1 S2 R1 P3@1 S2 R1 S1 R "));
        QCOMPARE(t.traffic.prefills, 4);
        QCOMPARE(t.traffic.steps, 5);
        QCOMPARE(t.traffic.kv_positions, 32.0);
        const auto bytes
            = llm::DecodeBytes::of(500000, 2, 1, 25, 2); // 1 MB of weights; 2 x 1 x 25 x 2 bytes a position
        QCOMPARE(bytes.total(t.traffic), 1e6 * 9 + 100.0 * 32);
        QCOMPARE(bytes.per_step(t.traffic), 1e6 + 100.0 * 32 / 5);
        const auto alone = llm::sequential_traffic(reqs, 1);
        QCOMPARE(alone.steps, 8);
        QCOMPARE(alone.kv_positions, 32.0);
        QCOMPARE(bytes.total(alone), 1e6 * 12 + 100.0 * 32);

        // Batch 2 on four rows: requests 0 and 1 (1-token prompts, 2 tokens) share one step of 4
        // sequences attending 2 positions each; request 2 has a step of its own: 12 positions.
        VirtualServing w;
        const auto t2 = llm::serve_continuous(requests({0, 0, 100}, 2), 2, 4, w, w);
        QCOMPARE(w.log, std::string("P0@0 P1@2 S4 R P2@0 S2 R "));
        QCOMPARE(t2.traffic.steps, 2);
        QCOMPARE(t2.traffic.kv_positions, 12.0);
    }

    void engineSlotsServeSequencesIndependently()
    {
        // Sequence A in slot 2 decodes next to B (slot 0, a different length): A's logits equal
        // those of A alone in slot 0, so slots share nothing but the step.
        DecoderConfig c;
        c.layers = 2;
        c.hidden = 32;
        c.heads = 4;
        c.kv_heads = 2;
        c.ffn = 40;
        c.vocab = 61;
        const auto weights = make_decoder_weights(c);
        ThreadPool pool(2);
        const std::vector<std::vector<int>> a {{3, 14, 15, 9, 2}}, b {{6, 5}};
        DecoderEngine alone(weights, 1, 16, pool);
        alone.prefill(a);
        const int a_next = alone.argmax(0);
        const auto want_logits = alone.decode(std::vector<int> {a_next});
        const std::vector<float> want(want_logits.begin(), want_logits.end());

        DecoderEngine shared(weights, 3, 16, pool);
        shared.prefill(b, std::vector<int> {0});
        const int b_next = shared.argmax(0);
        shared.prefill(a, std::vector<int> {2});
        QCOMPARE(shared.argmax(0), a_next);
        const auto got = shared.decode(std::vector<int> {b_next, a_next}, std::vector<int> {0, 2});
        const auto vocab = static_cast<std::size_t>(c.vocab);
        QVERIFY(max_abs_diff(got.subspan(vocab, vocab), want) <= 64 * FLT_EPSILON * std::max(1.0, max_abs(want)));
        // A released slot starts again at position 0.
        shared.release(2);
        shared.prefill(a, std::vector<int> {2});
        QCOMPARE(shared.argmax(0), a_next);
    }

    void cpuBackendServesPoissonArrivals()
    {
        const Workload* w = builtin_workloads().find("tiny_llm");
        QVERIFY(w);
        const auto params = resolve_params(*w,
            {{"layers", 1}, {"hidden", 32}, {"heads", 4}, {"kv_heads", 2}, {"ffn", 48}, {"vocab", 97},
                {"prompt_len", 6}, {"gen_tokens", 5}, {"batch", 2}, {"requests", 6}, {"length_spread", 50},
                {"arrivals", "poisson"}, {"rate", 1000}, {"max_batch", 4}, {"threads", 1}});
        auto prepared = w->prepare(params, Backend::Cpu);
        for (int rep = 0; rep < 2; ++rep) { // the second repetition reuses the freed slots
            const auto r = prepared->run_once();
            for (const auto& m : w->metrics())
                QVERIFY2(r.metrics.count(m.name) == 1, m.name.c_str());
            QCOMPARE(r.iterations.size(), std::size_t {6});
            QVERIFY(r.metrics.at("ttft_p50_ms") > 0);
            QVERIFY(r.metrics.at("itl_p50_ms") > 0 && r.metrics.at("itl_p50_ms") <= r.metrics.at("itl_p99_ms"));
            QVERIFY(r.metrics.at("tok_s") > 0);
            // The bytes-moved model of the steps it ran: the fp32 weights once, plus the K and V of
            // between one and max_batch sequences of at most prompt_len + gen_tokens positions.
            const double weights = 4.0 * (97 * 32 + (2 * 32 * 32 + 2 * 16 * 32 + 3 * 48 * 32));
            const double position = 2.0 * 1 * 16 * 4;
            QVERIFY(r.metrics.at("step_mb") * 1e6 > weights + position * 2);
            QVERIFY(r.metrics.at("step_mb") * 1e6 <= weights + position * 4 * (6 + 5));
            QVERIFY(r.metrics.at("step_gbs") > 0);
            int ttfts = 0;
            for (const auto& reading : r.readings)
                ttfts += reading.name == "ttft";
            QCOMPARE(ttfts, 6);
        }
        QVERIFY(prepared->verify().ok);
    }

    void poissonParametersAreChecked()
    {
        const Workload* w = builtin_workloads().find("tiny_llm");
        QVERIFY(w);
        const auto refused = [w](const nlohmann::json& p) {
            try {
                w->validate(resolve_params(*w, p), Backend::Cpu);
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        QVERIFY(
            refused({{"arrivals", "poisson"}, {"batch", 4}, {"max_batch", 2}}).find("max_batch") != std::string::npos);
        QVERIFY(refused({{"arrivals", "burst"}}).find("arrivals") != std::string::npos);
        QVERIFY(refused({{"arrivals", "poisson"}, {"rate", 0}}).find("rate") != std::string::npos);
        QVERIFY(refused({{"arrivals", "poisson"}, {"batch", 2}, {"max_batch", 2}}).empty());
    }
};

QTEST_GUILESS_MAIN(TestKernelServing)
#include "tst_kernel_serving.moc"
