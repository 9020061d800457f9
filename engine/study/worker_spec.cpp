// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/worker_spec.h"

#include "study/study.h"
#include "util/json_reader.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

using nlohmann::json;

bool param_value(const json& v)
{
    return v.is_number() || v.is_string();
}

WorkerParam param_from(const JsonReader& r)
{
    WorkerParam p;
    p.name = r.string("name");
    if (p.name.empty())
        r.fail("name", "must not be empty");
    if (!r.has("default") || !param_value(r.json()["default"]))
        r.fail("default", "expected a number or a string");
    p.default_value = r.json()["default"];
    if (const auto* values = r.optional_array("values"))
        for (const auto& v : *values) {
            if (!param_value(v) || v.is_string() != p.default_value.is_string())
                r.fail("values", "expected values of the default's kind (numbers or strings)");
            p.values.push_back(v);
        }
    p.description = r.string_or("description", "");
    return p;
}

WorkerMetric metric_from(const JsonReader& r)
{
    WorkerMetric m;
    m.name = r.string("name");
    m.unit = r.string_or("unit", "");
    const auto dir = parse_direction(r.string_or("direction", "lower"));
    if (!dir)
        r.fail("direction", "expected \"lower\" or \"higher\"");
    m.direction = *dir;
    return m;
}

} // namespace

const WorkerParam* WorkerDescription::find(const std::string& name) const
{
    for (const auto& p : params)
        if (p.name == name)
            return &p;
    return nullptr;
}

json WorkerDescription::defaults() const
{
    json out = json::object();
    for (const auto& p : params)
        out[p.name] = p.default_value;
    return out;
}

json worker_description_json(const WorkerDescription& d)
{
    json params = json::array(), metrics = json::array();
    for (const auto& p : d.params) {
        json entry = {{"name", p.name}, {"default", p.default_value}};
        if (!p.values.empty())
            entry["values"] = p.values;
        if (!p.description.empty())
            entry["description"] = p.description;
        params.push_back(std::move(entry));
    }
    for (const auto& m : d.metrics)
        metrics.push_back({{"name", m.name}, {"unit", m.unit}, {"direction", to_string(m.direction)}});
    json device = {{"kind", d.device.kind}, {"uuid", d.device.uuid}, {"name", d.device.name},
        {"index", d.device.index ? json(*d.device.index) : json(nullptr)}};
    return {{"worker", d.worker}, {"version", d.version}, {"params", params}, {"metrics", metrics}, {"device", device},
        {"timer", d.timer}, {"has_reference", d.has_reference}};
}

WorkerDescription worker_description_from(const JsonReader& r)
{
    WorkerDescription d;
    d.worker = r.string_or("worker", "");
    d.version = r.string_or("version", "");
    if (const auto* params = r.optional_array("params"))
        for (size_t i = 0; i < params->size(); ++i) {
            WorkerParam p = param_from(r.element(*params, i, "params"));
            if (d.find(p.name))
                r.fail("params", fmt::format("parameter '{}' is described twice", p.name));
            d.params.push_back(std::move(p));
        }
    if (const auto* metrics = r.optional_array("metrics"))
        for (size_t i = 0; i < metrics->size(); ++i)
            d.metrics.push_back(metric_from(r.element(*metrics, i, "metrics")));
    if (const auto device = r.optional_object("device")) {
        d.device.kind = device->string_or("kind", "cpu");
        if (d.device.kind != "cpu" && d.device.kind != "cuda")
            device->fail("kind", fmt::format("\"{}\" is not \"cuda\" or \"cpu\"", d.device.kind));
        d.device.uuid = device->string_or("uuid", "");
        d.device.name = device->string_or("name", "");
        if (device->has("index") && !device->json()["index"].is_null())
            d.device.index = static_cast<int>(device->integer("index"));
    }
    d.timer = r.string_or("timer", "steady_clock");
    if (d.timer != "cuda_events" && d.timer != "steady_clock")
        r.fail("timer", fmt::format("\"{}\" is not \"cuda_events\" or \"steady_clock\"", d.timer));
    d.has_reference = r.boolean_or("has_reference", false);
    return d;
}

json worker_spec_json(const WorkerSpec& w)
{
    return {{"cmd", w.cmd}, {"cwd", w.cwd}, {"env", w.env}, {"timeout_s", w.timeout_s},
        {"max_output_mib", w.max_output_mib}, {"atol", w.atol}, {"rtol", w.rtol},
        {"description", worker_description_json(w.description)}};
}

WorkerSpec worker_spec_from(const JsonReader& r)
{
    WorkerSpec w;
    w.cmd = r.string("cmd");
    if (w.cmd.empty())
        r.fail("cmd", "must not be empty");
    w.cwd = r.string_or("cwd", "");
    if (const auto env = r.optional_object("env"))
        for (const auto& [k, v] : env->json().items()) {
            if (!v.is_string())
                r.fail("env", "expected an object of NAME: VALUE strings");
            w.env[k] = v.get<std::string>();
        }
    w.timeout_s = r.number_or("timeout_s", w.timeout_s);
    if (!(w.timeout_s > 0))
        r.fail("timeout_s", "must be above 0 seconds");
    w.max_output_mib = r.number_or("max_output_mib", w.max_output_mib);
    if (!(w.max_output_mib >= kMinOutputMib && w.max_output_mib <= kMaxOutputMib))
        r.fail("max_output_mib",
            fmt::format("{} must be between {} and {} (MiB)", w.max_output_mib, kMinOutputMib, kMaxOutputMib));
    w.atol = r.number_or("atol", w.atol);
    w.rtol = r.number_or("rtol", w.rtol);
    for (const auto& [key, value] : {std::pair {"atol", w.atol}, {"rtol", w.rtol}})
        if (!(value >= 0) || !std::isfinite(value))
            r.fail(key, "must be a finite number, 0 or more");
    if (const auto d = r.optional_object("description"))
        w.description = worker_description_from(*d);
    return w;
}

} // namespace kwb
