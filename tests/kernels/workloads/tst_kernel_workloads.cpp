// SPDX-License-Identifier: GPL-3.0-or-later
#include "builtin_workloads.h"
#include "cpu/thread_pool.h"

#include <QTest>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

using namespace kwb;

namespace {

const Workload& workload(const std::string& name)
{
    const Workload* w = builtin_workloads().find(name);
    if (!w)
        throw std::runtime_error("no workload " + name);
    return *w;
}

} // namespace

class TestKernelWorkloads : public QObject {
    Q_OBJECT

private slots:
    void registryListsTheFiveWorkloads()
    {
        std::set<std::string> names;
        for (const auto* w : builtin_workloads().all())
            names.insert(w->name());
        QCOMPARE(names,
            (std::set<std::string> {"gemm", "attention_prefill", "rmsnorm", "bandwidth", "tiny_llm", "synthetic",
                "command", "worker", "attention_decode"}));
        // The CPU triad joined bandwidth; studies that name it still find it.
        QVERIFY(builtin_workloads().find("triad") == builtin_workloads().find("bandwidth"));
        // The CPU attention joined attention_prefill as its cpu backend.
        QVERIFY(builtin_workloads().find("attention") == builtin_workloads().find("attention_prefill"));
        // The CPU decoder joined tiny_llm as its cpu backend.
        QVERIFY(builtin_workloads().find("decoder") == builtin_workloads().find("tiny_llm"));
    }

    void descriptionsHaveTheListedShape_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("target");
        QTest::addColumn<bool>("cuda");
        QTest::addRow("gemm") << QStringLiteral("gemm") << QStringLiteral("time_ms") << true;
        QTest::addRow("attention_prefill") << QStringLiteral("attention_prefill") << QStringLiteral("time_ms") << true;
        QTest::addRow("rmsnorm") << QStringLiteral("rmsnorm") << QStringLiteral("time_ms") << true;
        QTest::addRow("bandwidth") << QStringLiteral("bandwidth") << QStringLiteral("time_ms") << true;
        QTest::addRow("tiny_llm") << QStringLiteral("tiny_llm") << QStringLiteral("ttft_ms") << true;
    }

    void descriptionsHaveTheListedShape()
    {
        QFETCH(QString, name);
        QFETCH(QString, target);
        QFETCH(bool, cuda);
        const auto& w = workload(name.toStdString());
        const auto j = describe_workload(w);
        // QVERIFY, not QCOMPARE: QCOMPARE's overloads try to convert a json to Qt's number types.
        QVERIFY(j["backends"] == (cuda ? nlohmann::json::array({"cpu", "cuda"}) : nlohmann::json::array({"cpu"})));
        QCOMPARE(j["metrics"][0]["name"].get<std::string>(), target.toStdString());
        QCOMPARE(j["metrics"][0]["direction"].get<std::string>(), std::string("lower"));
        for (const auto& p : j["params"]) {
            // A number: an integer, or a fraction where the parameter takes one (bandwidth's skip_work_pct).
            QVERIFY(p["default"].is_number_integer() || p["default"].is_string()
                || (p["default"].is_number_float() && p["name"] == "skip_work_pct"));
            QVERIFY(!p["values"].empty());
            // The default is one of the listed values, so a sweep over one parameter includes it.
            QVERIFY2(std::count(p["values"].begin(), p["values"].end(), p["default"]) == 1,
                p["name"].get<std::string>().c_str());
        }
        for (const auto& m : w.metrics())
            QVERIFY(!m.unit.empty() && !m.description.empty());
    }

    // Decode attention declares its FLOPs beside its bytes, so the roofline places it (its count is
    // the plugin's flops_per_launch, checked in tests/gpu/gpu_attention_decode.cpp).
    void decodeAttentionDeclaresBytesAndFlops()
    {
        std::map<std::string, std::string> units;
        for (const auto& m : workload("attention_decode").metrics())
            units[m.name] = m.unit;
        QCOMPARE(units["gbs"], std::string("GB/s"));
        QCOMPARE(units["tflops"], std::string("TFLOP/s"));
    }

    void everyListedValuePrepares_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("param");
        QTest::addColumn<QString>("value");
        // Every listed value of a CPU parameter (cuda-only ones are the GPU tests'), except the
        // external command, which has no built-in command to prepare.
        for (const auto* w : builtin_workloads().all())
            for (const auto& p : w->params())
                if (w->name() != "command" && w->name() != "worker" && has_backend(*w, Backend::Cpu)
                    && (p.only_on.empty()
                        || std::find(p.only_on.begin(), p.only_on.end(), Backend::Cpu) != p.only_on.end()))
                    for (const auto& v : p.values)
                        QTest::addRow("%s %s=%s", w->name().c_str(), p.name.c_str(), v.dump().c_str())
                            << QString::fromStdString(w->name()) << QString::fromStdString(p.name)
                            << QString::fromStdString(v.dump());
    }

    // Only prepare: running every listed value would take minutes. Sizes are checked, buffers
    // allocated and inputs seeded, which is where a bad combination with the defaults shows.
    void everyListedValuePrepares()
    {
        QFETCH(QString, name);
        QFETCH(QString, param);
        QFETCH(QString, value);
        const auto& w = workload(name.toStdString());
        const auto given = nlohmann::json::parse(value.toStdString());
        const auto params = resolve_params(w, {{param.toStdString(), given}}, Backend::Cpu);
        QVERIFY(params[param.toStdString()] == given);
        QVERIFY(w.prepare(params, Backend::Cpu) != nullptr);
    }

    void defaultsRunAndVerify_data()
    {
        QTest::addColumn<QString>("name");
        for (const auto* w : builtin_workloads().all())
            if (w->name() != "command" && w->name() != "worker"
                && has_backend(*w, Backend::Cpu)) // no built-in command or worker; cuda-only ones
                QTest::addRow("%s", w->name().c_str()) << QString::fromStdString(w->name());
    }

    void defaultsRunAndVerify()
    {
        QFETCH(QString, name);
        const auto& w = workload(name.toStdString());
        auto prepared = w.prepare(resolve_params(w, nlohmann::json::object(), Backend::Cpu), Backend::Cpu);
        const auto r = prepared->run_once();
        QCOMPARE(r.metrics.size(), w.metrics().size());
        for (const auto& m : w.metrics()) {
            QVERIFY2(r.metrics.count(m.name) == 1, m.name.c_str());
            QVERIFY2(std::isfinite(r.metrics.at(m.name)) && r.metrics.at(m.name) > 0, m.name.c_str());
        }
        QVERIFY(!r.iterations.empty());
        const auto v = prepared->verify();
        QVERIFY2(v.ok, v.detail.c_str());
        QVERIFY(v.max_abs_error <= v.tolerance);
    }

    void badParametersAreRejected_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("params"); // JSON object text
        QTest::addColumn<QString>("names"); // what the message must mention
        QTest::addRow("gemm block 0") << "gemm"
                                      << R"({"block": 0})"
                                      << "'block'";
        QTest::addRow("gemm size -1") << "gemm"
                                      << R"({"size": -1})"
                                      << "'size'";
        QTest::addRow("gemm threads 0") << "gemm"
                                        << R"({"threads": 0})"
                                        << "'threads'";
        QTest::addRow("gemm iterations 0") << "gemm"
                                           << R"({"iterations": 0})"
                                           << "'iterations'";
        QTest::addRow("attention_prefill tile_q 0") << "attention_prefill"
                                                    << R"({"tile_q": 0})"
                                                    << "'tile_q'";
        QTest::addRow("attention_prefill tile_k -3") << "attention_prefill"
                                                     << R"({"tile_k": -3})"
                                                     << "'tile_k'";
        QTest::addRow("attention_prefill seq_len 0") << "attention_prefill"
                                                     << R"({"seq_len": 0})"
                                                     << "'seq_len'";
        QTest::addRow("attention_prefill head_dim 0") << "attention_prefill"
                                                      << R"({"head_dim": 0})"
                                                      << "'head_dim'";
        QTest::addRow("attention_prefill too big") << "attention_prefill"
                                                   << R"({"seq_len": 65536, "heads": 256})"
                                                   << "GiB";
        QTest::addRow("rmsnorm width 3") << "rmsnorm"
                                         << R"({"vector_width": 3})"
                                         << "'vector_width'";
        QTest::addRow("rmsnorm rows 0") << "rmsnorm"
                                        << R"({"rows": 0})"
                                        << "'rows'";
        QTest::addRow("bandwidth size_mb 0") << "bandwidth"
                                             << R"({"size_mb": 0})"
                                             << "'size_mb'";
        QTest::addRow("bandwidth size_mb 2048") << "bandwidth"
                                                << R"({"size_mb": 2048})"
                                                << "'size_mb'";
        QTest::addRow("tiny_llm heads not dividing hidden") << "tiny_llm"
                                                            << R"({"heads": 3})"
                                                            << "'heads'";
        QTest::addRow("tiny_llm kv_heads not dividing heads") << "tiny_llm"
                                                              << R"({"kv_heads": 3})"
                                                              << "'kv_heads'";
        QTest::addRow("tiny_llm odd head_dim") << "tiny_llm"
                                               << R"({"hidden": 200})"
                                               << "'heads'";
        QTest::addRow("tiny_llm gen_tokens 1") << "tiny_llm"
                                               << R"({"gen_tokens": 1})"
                                               << "'gen_tokens'";
        QTest::addRow("tiny_llm layers 0") << "tiny_llm"
                                           << R"({"layers": 0})"
                                           << "'layers'";
        QTest::addRow("tiny_llm vocab 0") << "tiny_llm"
                                          << R"({"vocab": 0})"
                                          << "'vocab'";
        QTest::addRow("tiny_llm kv_dtype int4") << "tiny_llm"
                                                << R"({"kv_dtype": "int4"})"
                                                << "'kv_dtype'";
    }

    void badParametersAreRejected()
    {
        QFETCH(QString, name);
        QFETCH(QString, params);
        QFETCH(QString, names);
        const auto& w = workload(name.toStdString());
        const auto resolved = resolve_params(w, nlohmann::json::parse(params.toStdString()));
        try {
            w.prepare(resolved, Backend::Cpu);
            QFAIL("prepare accepted bad parameters");
        } catch (const WorkloadError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(names.toStdString()) != std::string::npos, e.what());
            QVERIFY2(what.rfind(name.toStdString() + ":", 0) == 0, e.what()); // names the workload first
            QVERIFY2(what.find('\n') == std::string::npos, e.what());
        }
    }

    void resolveParamsFillsDefaultsAndChecksKinds()
    {
        const auto& w = workload("gemm");
        const auto p = resolve_params(w, {{"block", 128.0}}); // integral float from a CLI or a file
        QCOMPARE(p["block"].get<long long>(), 128LL);
        QVERIFY(p["size"] == w.params().front().default_value);
        QVERIFY_THROWS_EXCEPTION(WorkloadError, resolve_params(w, {{"blocks", 32}}));
        QVERIFY_THROWS_EXCEPTION(WorkloadError, resolve_params(w, {{"block", "32"}}));
        QVERIFY_THROWS_EXCEPTION(WorkloadError, resolve_params(w, {{"block", 32.5}}));
    }

    void cudaBackendIsNotBuiltYet_data()
    {
        QTest::addColumn<QString>("name");
        for (const auto* w : builtin_workloads().all())
            if (w->name() != "command" && w->name() != "worker") // no built-in command or worker to run
                QTest::addRow("%s", w->name().c_str()) << QString::fromStdString(w->name());
    }

    void cudaBackendIsNotBuiltYet()
    {
        QFETCH(QString, name);
        const auto& w = workload(name.toStdString());
        try {
            w.prepare(resolve_params(w, nlohmann::json::object()), Backend::Cuda);
            QFAIL("prepared on cuda");
        } catch (const WorkloadError& e) {
            // "cuda" or "CUDA": the plugin's own refusal, or the build's "no CUDA support".
            std::string what = e.what();
            std::transform(what.begin(), what.end(), what.begin(), [](unsigned char c) { return std::tolower(c); });
            QVERIFY2(what.find("cuda") != std::string::npos, e.what());
        }
    }

    void threadPoolRunsEveryTaskOnce_data()
    {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("tasks");
        for (int threads : {1, 2, 4})
            for (int tasks : {0, 1, 3, 1000})
                QTest::addRow("%d threads, %d tasks", threads, tasks) << threads << tasks;
    }

    void threadPoolRunsEveryTaskOnce()
    {
        QFETCH(int, threads);
        QFETCH(int, tasks);
        cpu::ThreadPool pool(threads);
        QCOMPARE(pool.size(), threads);
        for (int round = 0; round < 50; ++round) { // reuse: no lost wake-ups between loops
            std::vector<std::atomic<int>> hits(static_cast<std::size_t>(tasks));
            std::atomic<bool> worker_in_range {true};
            pool.for_each(hits.size(), [&](std::size_t t, int worker) {
                hits[t].fetch_add(1);
                if (worker < 0 || worker >= threads)
                    worker_in_range = false;
            });
            for (const auto& h : hits)
                QCOMPARE(h.load(), 1);
            QVERIFY(worker_in_range);
        }
    }

    void threadPoolRethrowsAfterAllTasks()
    {
        cpu::ThreadPool pool(3);
        std::atomic<int> done {0};
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.for_each(64, [&](std::size_t t, int) {
            done.fetch_add(1);
            if (t == 5)
                throw std::runtime_error("task 5");
        }));
        QCOMPARE(done.load(), 64);
        pool.for_each(4, [&](std::size_t, int) { done.fetch_add(1); }); // still usable
        QCOMPARE(done.load(), 68);
    }
};

QTEST_GUILESS_MAIN(TestKernelWorkloads)
#include "tst_kernel_workloads.moc"
