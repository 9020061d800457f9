// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/worker/worker_client.h"

#include "util/json_reader.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb::worker {
namespace {

using nlohmann::json;

std::optional<double> finite_number(const json& object, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// The first bytes of a line for a message, without its control characters.
std::string excerpt(const std::string& line)
{
    std::string out;
    for (char c : line.substr(0, 80))
        out += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
    return line.size() > 80 ? out + "..." : out;
}

} // namespace

WorkerClient::WorkerClient(const WorkerSpec& spec, const std::string& arm, int device, const std::atomic<bool>* stop)
    : spec_(spec)
    , arm_(arm)
    , stop_(stop)
{
    LaunchSpec launch;
    launch.command = spec.cmd;
    launch.cwd = spec.cwd;
    launch.env = spec.env;
    launch.env["KWB_WORKER_PROTOCOL"] = std::to_string(kProtocolVersion);
    launch.env["KWB_DEVICE"] = std::to_string(device);
    launch.env["KWB_ARM"] = arm;
    launch.stderr_cap_bytes = static_cast<std::size_t>(spec.max_output_mib * 1024 * 1024);
    try {
        process_ = std::make_unique<WorkerProcess>(launch);
    } catch (const std::exception& e) {
        throw WorkerFault(fmt::format("worker `{}`: {}", spec.cmd, e.what()), "");
    }
    const json hello = request("hello", {{"protocol", kProtocolVersion}}, kHelloTimeoutS);
    if (!hello.contains("protocol") || hello["protocol"] != kProtocolVersion)
        fault(fmt::format("hello: the worker speaks protocol {}, kwb speaks {}",
            hello.contains("protocol") ? hello["protocol"].dump() : "(none)", kProtocolVersion));
    name_ = hello.value("worker", std::string());
}

WorkerClient::~WorkerClient()
{
    if (process_)
        process_->end();
}

std::string WorkerClient::stderr_tail() const
{
    return process_ ? process_->stderr_tail() : std::string();
}

pid_t WorkerClient::pid() const
{
    return process_ ? process_->pid() : -1;
}

void WorkerClient::fault(const std::string& what)
{
    std::string tail;
    std::string how;
    if (process_) {
        how = process_->exit_text();
        process_->end();
        tail = process_->stderr_tail();
    }
    throw WorkerFault(how.empty() ? what : fmt::format("{} (the worker: {})", what, how), tail);
}

json WorkerClient::request(const std::string& op, json fields, double timeout_s)
{
    if (!process_)
        fault(fmt::format("{}: the worker is not running", op));
    if (process_->has_unrequested_output())
        fault(
            fmt::format("{}: the worker wrote to stdout unasked (protocol messages only; point prints at stderr)", op));
    const long long id = next_id_++;
    fields["op"] = op;
    fields["id"] = id;
    const LineResult got = process_->exchange(fields.dump(), timeout_s, stop_);
    using S = LineResult::Status;
    switch (got.status) {
    case S::Line:
        break;
    case S::Stopped:
        process_->end();
        throw WorkerStopped();
    case S::Timeout:
        fault(fmt::format("{}: no answer within {:g} s (the timeout of {})", op, timeout_s, op));
    case S::TooLong:
        fault(fmt::format(
            "{}: an answer longer than {} bytes (1 MiB), the cap on a protocol message", op, kMaxMessageBytes));
    case S::WriteFailed:
        fault(fmt::format("{}: the worker does not read its stdin (it exited?)", op));
    case S::Closed:
        fault(got.line.empty()
                ? fmt::format("{}: the worker closed stdout without answering", op)
                : fmt::format("{}: a partial line and then the end of stdout: '{}'", op, excerpt(got.line)));
    }
    json answer = json::parse(got.line, nullptr, false);
    if (answer.is_discarded())
        fault(fmt::format("{}: the answer is not JSON: '{}'", op, excerpt(got.line)));
    if (!answer.is_object())
        fault(fmt::format("{}: the answer is not a JSON object: '{}'", op, excerpt(got.line)));
    if (!answer.contains("id") || answer["id"] != id)
        fault(fmt::format("{}: the answer has id {}, the request had {}", op,
            answer.contains("id") ? answer["id"].dump() : "(none)", id));
    if (!answer.contains("ok") || !answer["ok"].is_boolean())
        fault(fmt::format("{}: the answer has no boolean 'ok'", op));
    if (!answer["ok"].get<bool>()) {
        std::string error = answer.value("error", std::string("(no error given)"));
        throw WorkerRequestFailed(fmt::format("{}: the worker says: {}", op, excerpt(error)));
    }
    return answer;
}

WorkerDescription WorkerClient::describe()
{
    const json answer = request("describe", json::object(), kDescribeTimeoutS);
    try {
        WorkerDescription d = worker_description_from(JsonReader(answer, "describe"));
        d.worker = name_;
        return d;
    } catch (const FormatError& e) {
        fault(fmt::format("describe: {}", e.what()));
    }
}

PrepareAnswer WorkerClient::prepare(const json& params, std::uint64_t seed)
{
    const json answer = request("prepare", {{"params", params}, {"seed", seed}}, kPrepareTimeoutS);
    return {finite_number(answer, "flop_per_launch"), finite_number(answer, "bytes_per_launch")};
}

VerifyAnswer WorkerClient::verify(std::uint64_t seed, const std::string& output_path)
{
    const json answer = request("verify", {{"seed", seed}, {"output", output_path}}, kVerifyTimeoutS);
    VerifyAnswer v;
    if (!answer.contains("elements") || !answer["elements"].is_number_integer() || answer["elements"] < 0)
        fault("verify: the answer has no integer 'elements'");
    v.elements = answer["elements"].get<long long>();
    if (answer.value("dtype", std::string("float32")) != "float32")
        fault(fmt::format("verify: dtype {} (protocol 1 exchanges float32)", answer["dtype"].dump()));
    if (const auto it = answer.find("reference"); it != answer.end() && !it->is_null()) {
        if (!it->is_object() || !it->contains("passed") || !(*it)["passed"].is_boolean())
            fault("verify: 'reference' has no boolean 'passed'");
        ReferenceAnswer ref;
        ref.passed = (*it)["passed"].get<bool>();
        ref.max_abs_error = finite_number(*it, "max_abs_error");
        ref.max_rel_error = finite_number(*it, "max_rel_error");
        ref.tolerance = finite_number(*it, "tolerance");
        ref.detail = excerpt(it->value("detail", std::string()));
        v.reference = ref;
    }
    return v;
}

TimeAnswer WorkerClient::time(int launches, bool cold)
{
    const json answer = request("time", {{"launches", launches}, {"cold", cold}}, spec_.timeout_s);
    TimeAnswer t;
    const auto total = finite_number(answer, "total_ms");
    if (!total || *total < 0)
        fault("time: the answer has no finite, non-negative number 'total_ms'");
    t.total_ms = *total;
    if (const auto it = answer.find("per_launch_ms"); cold && it != answer.end() && it->is_array())
        for (const auto& x : *it)
            if (x.is_number())
                t.per_launch_ms.push_back(x.get<double>());
    if (const auto it = answer.find("metrics"); it != answer.end() && it->is_object())
        for (const auto& [k, v] : it->items())
            if (v.is_number() && std::isfinite(v.get<double>()))
                t.metrics[k] = v.get<double>();
    return t;
}

std::string WorkerClient::release()
{
    if (!process_)
        return {};
    std::string problem;
    try {
        request("release", json::object(), kReleaseTimeoutS);
        if (!process_->close_and_wait(kExitWaitS))
            problem = fmt::format("the worker did not exit with status 0 within {:g} s of release", kExitWaitS);
    } catch (const std::exception& e) {
        problem = e.what();
    }
    if (process_)
        process_->end();
    return problem;
}

} // namespace kwb::worker
