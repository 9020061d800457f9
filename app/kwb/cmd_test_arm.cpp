// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb test-arm`: one repetition of an arm, nothing recorded: what the window's "Test once" shows,
// run where every other command runs (the window runs nothing itself, docs/architecture.md). A
// command arm runs once through its adapter; a worker arm is started, described, prepared, checked
// (verify, against its own reference) and timed once. The arm is an experiment's arm of a study
// file, or a `command` object as the study format writes it (a file, or - for stdin: the window's
// unsaved edit).
#include "commands.h"
#include "stop_signal.h"
#include "study/study_file.h"
#include "study/study_json.h"
#include "util/atomic_file.h"
#include "util/json_reader.h"
#include "workloads/command/command_workload.h"
#include "workloads/cuda_workload.h"
#include "workloads/worker/worker_workload.h"

#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <random>

namespace kwb::cli {
namespace {

struct TestArmOptions {
    std::string study;
    std::string experiment;
    std::string arm;
    std::string command_json; // a file, or "-"
    std::string worker_json; // a file, or "-": {"worker": {...}, "params": {...}}
    std::string metric; // the metric judged; the study's when an arm of it is tested
    bool json = false;
};

struct ArmUnderTest {
    std::string name;
    CommandSpec spec;
    std::string metric;
    std::optional<Arm> worker_arm {}; // set for a worker arm (its params and Arm::worker)
};

// A command object is a few hundred bytes; a MiB is room for any, and bounds what stdin can make
// kwb hold.
constexpr std::size_t kMaxCommandJson = std::size_t {1} << 20;

std::string read_text(const std::string& path, const char* option)
{
    if (path != "-") {
        try {
            return read_file(path, kMaxCommandJson);
        } catch (const std::runtime_error& e) {
            throw BadInput(fmt::format("{}: {}", option, e.what()));
        }
    }
    std::string text(kMaxCommandJson + 1, '\0');
    std::cin.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > kMaxCommandJson)
        throw BadInput(fmt::format("{}: stdin holds more than 1 MiB, not an arm's object", option));
    return text;
}

ArmUnderTest arm_from_command_json(const TestArmOptions& o)
{
    const std::string where = o.command_json == "-" ? "stdin" : o.command_json;
    const auto doc = nlohmann::json::parse(read_text(o.command_json, "--command-json"), nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw BadInput(fmt::format("--command-json: {} is not a JSON object", where));
    try {
        return {o.arm.empty() ? "arm" : o.arm, command_spec_from(JsonReader(doc, where)), o.metric};
    } catch (const FormatError& e) {
        throw BadInput(e.what());
    }
}

// A worker arm as the window holds it, unsaved: its `worker` object (the study format's) and the
// arm's `params`.
ArmUnderTest arm_from_worker_json(const TestArmOptions& o)
{
    const std::string where = o.worker_json == "-" ? "stdin" : o.worker_json;
    const auto doc = nlohmann::json::parse(read_text(o.worker_json, "--worker-json"), nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw BadInput(fmt::format("--worker-json: {} is not a JSON object", where));
    try {
        const JsonReader r(doc, where);
        Arm arm;
        arm.name = o.arm.empty() ? "arm" : o.arm;
        arm.worker = worker_spec_from(r.object("worker"));
        arm.params = doc.value("params", nlohmann::json::object());
        if (!arm.params.is_object())
            r.fail("params", "expected an object of parameter values");
        worker::validate(*arm.worker, arm.name);
        return {arm.name, {}, o.metric.empty() ? std::string("time_ms") : o.metric, arm};
    } catch (const FormatError& e) {
        throw BadInput(e.what());
    } catch (const WorkloadError& e) {
        throw BadInput(e.what());
    }
}

ArmUnderTest arm_from_study(const TestArmOptions& o)
{
    Study study;
    try {
        study = load_study(o.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    if (study.experiments.empty())
        throw BadInput(fmt::format("{}: the study has no experiment", o.study));
    const Experiment* e = o.experiment.empty() ? &study.experiments.front() : study.find_experiment(o.experiment);
    if (!e)
        throw BadInput(fmt::format("--experiment: {} has no experiment '{}'", o.study, o.experiment));
    const std::string arm = o.arm.empty() ? "baseline" : o.arm;
    for (const auto& a : e->arms)
        if (a.name == arm) {
            const std::string metric = o.metric.empty() ? e->metric : o.metric;
            if (a.worker)
                return {a.name, {}, metric, a};
            if (!a.command)
                throw BadInput(
                    fmt::format("--arm: arm {} of {} is neither an external command nor a worker (workload {})", arm,
                        e->id, e->workload));
            return {a.name, *a.command, metric};
        }
    throw BadInput(fmt::format("--arm: experiment {} has no arm '{}'", e->id, arm));
}

nlohmann::json attempt_json(const command::Attempt& a, const std::string& metric)
{
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& [k, v] : a.reading.metrics)
        metrics[k] = v;
    const auto judged = a.reading.metrics.find(metric);
    return {{"ok", a.ok}, {"error", a.error}, {"interrupted", a.interrupted}, {"adapter", a.adapter},
        {"metric", metric},
        {"value", a.ok && judged != a.reading.metrics.end() ? nlohmann::json(judged->second) : nlohmann::json()},
        {"metrics", metrics}, {"notes", a.reading.notes}, {"seconds", a.seconds},
        {"exit_status", a.exit_status ? nlohmann::json(*a.exit_status) : nlohmann::json()},
        {"stdout_tail", a.stdout_tail}, {"stderr_tail", a.stderr_tail}};
}

void print_text(const command::Attempt& a, const ArmUnderTest& arm)
{
    if (!a.ok) {
        fmt::print("Read nothing: {}\n", a.error);
        return;
    }
    const auto judged = a.reading.metrics.find(arm.metric);
    if (arm.metric.empty())
        fmt::print("The {} adapter read {} metrics in {:.3g} s.\n", a.adapter, a.reading.metrics.size(), a.seconds);
    else if (judged == a.reading.metrics.end())
        fmt::print("The {} adapter read no {} (the metric judged) in {:.3g} s.\n", a.adapter, arm.metric, a.seconds);
    else
        fmt::print("The {} adapter read {} = {:.6g} in {:.3g} s.\n", a.adapter, arm.metric, judged->second, a.seconds);
    std::string read;
    for (const auto& [k, v] : a.reading.metrics)
        read += fmt::format("{}{} = {:.6g}", read.empty() ? "" : ", ", k, v);
    fmt::print("Read: {}\n", read);
    for (const auto& note : a.reading.notes)
        fmt::print("Note: {}\n", note);
}

// A worker arm: the run's own code (worker_workload.h) prepares it (start, hello, describe, prepare),
// checks it once with a fresh seed against its reference, and times one launch.
int test_worker(const TestArmOptions& o, const ArmUnderTest& arm)
{
    const std::atomic<bool>& stop = install_stop_signals();
    nlohmann::json out = {{"arm", arm.name}, {"metric", arm.metric}};
    int code = kOk;
    try {
        const auto workload = worker::make_worker_workload();
        const Backend backend
            = arm.worker_arm->worker->description.device.kind == "cuda" ? Backend::Cuda : Backend::Cpu;
        auto prepared = workload->prepare_arm(*arm.worker_arm, backend);
        prepared->set_cancel(&stop);
        prepared->set_verify_seed(std::random_device {}());
        const VerifyResult v = prepared->verify();
        out["check"]
            = {{"ok", v.ok}, {"detail", v.detail}, {"max_abs_error", v.max_abs_error}, {"tolerance", v.tolerance}};
        prepared->set_launches(1);
        const RepetitionResult r = prepared->run_once();
        out["ok"] = !r.failed && !r.interrupted && v.ok;
        out["error"] = r.failed ? r.error : (v.ok ? "" : "the check failed: " + v.detail);
        out["interrupted"] = r.interrupted;
        out["metrics"] = r.metrics;
        const auto judged = r.metrics.find(arm.metric);
        out["value"] = judged == r.metrics.end() ? nlohmann::json() : nlohmann::json(judged->second);
        out["stderr_tail"] = r.stderr_tail;
        code = r.interrupted ? kStopped : (out["ok"].get<bool>() && judged != r.metrics.end() ? kOk : kRunFailed);
    } catch (const WorkloadError& e) { // it did not start, describe or prepare
        out["ok"] = false;
        out["error"] = e.what();
        code = kRunFailed;
    }
    if (o.json) {
        fmt::print("{}\n", out.dump());
    } else if (!out["ok"].get<bool>()) {
        fmt::print("Not usable: {}\n", out["error"].get<std::string>());
    } else {
        fmt::print("The worker passed its check ({}) and timed one launch: {} = {}\n",
            out["check"]["detail"].get<std::string>(), arm.metric,
            out["value"].is_null() ? std::string("(not measured)") : fmt::format("{:.6g}", out["value"].get<double>()));
    }
    return code;
}

int run(const TestArmOptions& o)
{
    const int sources = !o.study.empty() + !o.command_json.empty() + !o.worker_json.empty();
    if (sources != 1)
        throw BadInput(
            "test-arm: give a study (with --experiment and --arm), --command-json or --worker-json, one of the three");
    const ArmUnderTest arm = !o.study.empty() ? arm_from_study(o)
        : !o.command_json.empty()             ? arm_from_command_json(o)
                                              : arm_from_worker_json(o);
    if (arm.worker_arm)
        return test_worker(o, arm);
    try {
        command::validate(arm.spec, arm.name);
    } catch (const WorkloadError& e) {
        throw BadInput(e.what());
    }
    const std::atomic<bool>& stop = install_stop_signals();
    command::Attempt a;
    try {
        a = command::run_attempt(arm.spec, &stop);
    } catch (const command::AdapterError& e) {
        throw BadInput(fmt::format("arm {}: command.adapter: {}", arm.name, e.what()));
    }
    if (o.json)
        fmt::print("{}\n", attempt_json(a, arm.metric).dump());
    else
        print_text(a, arm);
    if (a.interrupted)
        return kStopped;
    const bool read = a.ok && (arm.metric.empty() || a.reading.metrics.count(arm.metric) > 0);
    return read ? kOk : kRunFailed;
}

} // namespace

void add_test_arm_command(CLI::App& app, Action& action)
{
    auto o = std::make_shared<TestArmOptions>();
    auto* cmd = app.add_subcommand("test-arm",
        "Run a command arm once (what its adapter reads) or check and time a worker arm once; nothing is recorded");
    cmd->add_option("study", o->study, "The study file whose arm to run");
    cmd->add_option("--experiment", o->experiment, "The experiment id (default: the study's first)");
    cmd->add_option("--arm", o->arm, "The arm's name (default: baseline)");
    cmd->add_option("--command-json", o->command_json,
        "An arm's command object as the study format writes it, from a file or - (stdin), instead of a study");
    cmd->add_option("--worker-json", o->worker_json,
        "A worker arm as {\"worker\": {...}, \"params\": {...}} (the study format's objects), from a file or - "
        "(stdin)");
    cmd->add_option("--metric", o->metric, "The metric judged (default: the experiment's)");
    cmd->add_flag("--json", o->json, "One JSON object: ok, error, adapter, metric, value, metrics, notes, tails");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
