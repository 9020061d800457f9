// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "channel.h"

namespace kwb::worker {

// Answers kwb's requests for `kernel` until `release` or the end of input; returns the exit
// status (0). argc / argv are reserved for the helper's own options (there are none yet).
template<class State> class Server {
public:
    explicit Server(const Kernel<State>& kernel)
        : k_(kernel)
    {
        try {
            check_kernel();
            clock_ = std::make_unique<detail::Clock>();
        } catch (const std::exception& e) {
            broken_ = detail::one_line(e.what());
            std::fprintf(stderr, "kwb worker: %s\n", broken_.c_str());
        }
    }

    // One request line in, one answer out.
    Json answer(const std::string& line, bool oversized)
    {
        Json id;
        try {
            if (oversized)
                throw detail::RequestError("request line over " + std::to_string(kMaxMessageBytes) + " bytes");
            if (!detail::valid_utf8(line))
                throw detail::RequestError("the request is not UTF-8");
            Json request;
            try {
                request = Json::parse(line);
            } catch (const JsonError& e) {
                throw detail::RequestError(e.what());
            }
            if (!request.is_object())
                throw detail::RequestError("the request is not a JSON object");
            std::int64_t n = 0;
            const Json* rid = request.find("id");
            if (!rid || !rid->to_int64(n))
                throw detail::RequestError("the request has no integer 'id'");
            id = *rid;
            const Json* op = request.find("op");
            if (!op || !op->is_string())
                throw detail::RequestError("the request has no string 'op'");
            Json reply = Json::object().set("id", id).set("ok", true);
            const std::string& name = op->text();
            const bool known = name == "hello" || name == "describe" || name == "prepare" || name == "verify"
                || name == "time" || name == "release";
            if (!known)
                throw detail::RequestError(
                    "unknown op '" + name + "' (protocol 1: hello, describe, prepare, verify, time, release)");
            if (!broken_.empty() && name != "release")
                throw detail::RequestError(broken_);
            if (name == "hello")
                hello(request, reply);
            else if (name == "describe")
                describe(reply);
            else if (name == "prepare")
                prepare(request, reply);
            else if (name == "verify")
                verify(request, reply);
            else if (name == "time")
                time(request, reply);
            else
                release();
            flush_prints();
            return reply;
        } catch (const std::exception& e) {
            flush_prints();
            return Json::object().set("id", id).set("ok", false).set("error", detail::one_line(e.what()));
        } catch (...) {
            flush_prints();
            return Json::object().set("id", id).set("ok", false).set("error", "unknown exception");
        }
    }

    bool released() const { return released_; }

private:
    void check_kernel() const
    {
        if (k_.name.empty())
            throw std::invalid_argument("the kernel has no name");
        if (!k_.setup || !k_.run || !k_.output)
            throw std::invalid_argument("the kernel needs setup, run and output");
        for (std::size_t i = 0; i < k_.params.size(); ++i) {
            const Param& p = k_.params[i];
            for (std::size_t j = 0; j < i; ++j)
                if (k_.params[j].name == p.name)
                    throw std::invalid_argument("parameter " + p.name + " is declared twice");
            if (!p.values.empty() && std::find(p.values.begin(), p.values.end(), p.default_value) == p.values.end())
                throw std::invalid_argument("parameter " + p.name + ": the default is not one of its values");
        }
        for (const Metric& m : k_.metrics)
            if (m.direction != "lower" && m.direction != "higher")
                throw std::invalid_argument("metric " + m.name + ": direction must be lower or higher");
    }

    static void flush_prints()
    {
        std::cout.flush();
        std::fflush(stdout);
        std::fflush(stderr);
    }

    void hello(const Json& request, Json& reply) const
    {
        const auto protocol = detail::integer_field(request, "protocol");
        if (protocol != kProtocol)
            throw detail::RequestError(
                "protocol " + std::to_string(protocol) + " is not spoken here (this worker speaks 1)");
        reply.set("protocol", kProtocol)
            .set("worker", k_.name)
            .set("version", k_.version.empty() ? "1.0.0" : k_.version);
    }

    void describe(Json& reply) const
    {
        Json params = Json::array();
        for (const Param& p : k_.params) {
            Json d = Json::object().set("name", p.name).set("default", p.default_value.to_json());
            if (!p.values.empty()) {
                Json values = Json::array();
                for (const Value& v : p.values)
                    values.push(v.to_json());
                d.set("values", values);
            }
            if (!p.description.empty())
                d.set("description", p.description);
            params.push(d);
        }
        reply.set("params", params);
        if (!k_.metrics.empty()) {
            Json metrics = Json::array();
            for (const Metric& m : k_.metrics)
                metrics.push(Json::object().set("name", m.name).set("unit", m.unit).set("direction", m.direction));
            reply.set("metrics", metrics);
        }
        reply.set("device", clock_->describe())
            .set("timer", detail::Clock::kTimer)
            .set("has_reference", bool(k_.reference));
    }

    Params resolve(const Json& given) const
    {
        for (const auto& key : given.keys()) {
            const bool declared
                = std::any_of(k_.params.begin(), k_.params.end(), [&](const Param& p) { return p.name == key; });
            if (!declared) {
                std::string have;
                for (const Param& p : k_.params)
                    have += (have.empty() ? "" : ", ") + p.name;
                throw detail::RequestError(
                    "unknown parameter " + key + " (this worker has: " + (have.empty() ? "none" : have) + ")");
            }
        }
        Params params;
        for (const Param& p : k_.params) {
            const Json* v = given.find(p.name);
            Value value = v ? detail::coerce(p, *v) : p.default_value;
            if (!p.values.empty() && std::find(p.values.begin(), p.values.end(), value) == p.values.end()) {
                std::string allowed;
                for (const Value& a : p.values)
                    allowed += (allowed.empty() ? "" : ", ") + a.describe();
                throw detail::RequestError(
                    "parameter " + p.name + ": " + value.describe() + " is not one of [" + allowed + "]");
            }
            params.set(p.name, value);
        }
        return params;
    }

    static Json per_launch(const std::function<double(const Params&)>& f, const Params& params, const char* what)
    {
        if (!f)
            return Json();
        const double v = f(params);
        if (!std::isfinite(v) || v < 0)
            throw std::invalid_argument(std::string(what) + " must be a finite number >= 0");
        return Json(v);
    }

    void prepare(const Json& request, Json& reply)
    {
        const Json* given = request.find("params");
        const Json empty = Json::object();
        if (given && !given->is_object())
            throw detail::RequestError("'params' must be an object");
        const std::uint64_t seed = seed_field(request);
        Params params = resolve(given ? *given : empty);
        state_.reset(); // the previous arm's buffers go before the new ones are allocated
        auto state = std::make_unique<State>();
        k_.setup(*state, params, seed);
        // One launch here, synchronised: lazy initialisation (module load, first-touch) happens in
        // prepare, not inside a timed call that calibration would read as one slow launch.
        k_.run(*state);
        clock_->synchronize();
        reply.set("flop_per_launch", per_launch(k_.flop_per_launch, params, "flop_per_launch"))
            .set("bytes_per_launch", per_launch(k_.bytes_per_launch, params, "bytes_per_launch"));
        params_ = std::move(params);
        state_ = std::move(state);
    }

    static std::uint64_t seed_field(const Json& request)
    {
        const Json* v = request.find("seed");
        std::uint64_t seed = 0;
        if (!v || !v->to_uint64(seed))
            throw detail::RequestError("'seed' must be an integer >= 0");
        return seed;
    }

    void require_prepared(const char* op) const
    {
        if (!state_)
            throw detail::RequestError(std::string("'") + op + "' before a successful 'prepare'");
    }

    void verify(const Json& request, Json& reply)
    {
        require_prepared("verify");
        const std::uint64_t seed = seed_field(request);
        const Json* path = request.find("output");
        if (!path || !path->is_string() || path->text().empty())
            throw detail::RequestError("'output' must be a file path");
        auto state = std::make_unique<State>();
        k_.setup(*state, params_, seed); // fresh inputs from kwb's seed, not prepare's
        detail::poison(k_.output(*state));
        for (const float v : detail::read_output(k_.output(*state)))
            if (!std::isnan(v))
                throw detail::RequestError(
                    "output(state) must return the buffer run writes: the NaN written into it did not show");
        k_.run(*state);
        clock_->synchronize();
        const std::vector<float> values = detail::read_output(k_.output(*state));
        detail::write_float32(path->text(), values);
        reply.set("elements", static_cast<unsigned long long>(values.size())).set("dtype", "float32");
        if (k_.reference) {
            const std::vector<float> expected = k_.reference(*state);
            reply.set("reference", detail::compare(values, expected, k_.tolerance));
        }
    }

    void time(const Json& request, Json& reply)
    {
        require_prepared("time");
        const auto launches = detail::integer_field(request, "launches");
        if (launches < 1 || launches > std::numeric_limits<int>::max() / 2)
            throw detail::RequestError("'launches' must be at least 1, got " + std::to_string(launches));
        bool cold = false;
        if (const Json* c = request.find("cold")) {
            if (!c->is_bool())
                throw detail::RequestError("'cold' must be true or false");
            cold = c->boolean();
        }
        State& state = *state_;
        auto launch = [&] { k_.run(state); };
        double total = 0;
        if (cold) {
            const auto times = clock_->time_cold(launch, static_cast<int>(launches));
            Json per = Json::array();
            for (const double t : times) {
                total += t;
                per.push(Json(t));
            }
            reply.set("total_ms", total).set("per_launch_ms", per);
        } else {
            total = clock_->time_hot(launch, static_cast<int>(launches));
            reply.set("total_ms", total);
        }
        if (k_.metric_values) {
            Json metrics = Json::object();
            for (const auto& [name, value] : k_.metric_values(state, total / static_cast<double>(launches)))
                metrics.set(name, Json(value));
            reply.set("metrics", metrics);
        }
    }

    void release()
    {
        state_.reset();
        released_ = true;
    }

    const Kernel<State>& k_;
    std::string broken_;
    std::unique_ptr<detail::Clock> clock_;
    std::unique_ptr<State> state_;
    Params params_;
    bool released_ = false;
};

template<class State> int serve(const Kernel<State>& kernel, int argc = 0, char** argv = nullptr)
{
    (void)argc;
    (void)argv;
    detail::Channel channel; // first: nothing the kernel prints from here on reaches the protocol
    Server<State> server(kernel);
    std::string line;
    bool oversized = false;
    while (channel.read(line, oversized)) {
        if (!channel.write(server.answer(line, oversized)))
            return 0; // kwb has gone: nobody is left to answer
        if (server.released())
            return 0;
    }
    return 0;
}

} // namespace kwb::worker
