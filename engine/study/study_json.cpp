// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_json.h"

#include "study/arm_roles.h"
#include "study/device_identity.h"
#include "study/git_arm.h"
#include "study/path_names.h"
#include "study/plan_limits.h"
#include "verdict/verdict_json.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace kwb {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

template<typename Enum, size_t N>
Enum parse_enum(
    const JsonReader& r, std::string_view key, Enum fallback, const std::pair<std::string_view, Enum> (&names)[N])
{
    const auto text = r.optional_string(key);
    if (!text)
        return fallback;
    for (const auto& [name, value] : names)
        if (*text == name)
            return value;
    std::string allowed;
    for (const auto& [name, value] : names)
        allowed += fmt::format("{}{}", allowed.empty() ? "" : ", ", name);
    r.fail(key, fmt::format("unknown value \"{}\" (expected one of {})", *text, allowed));
}

constexpr std::pair<std::string_view, Direction> kDirections[]
    = {{"lower", Direction::Lower}, {"higher", Direction::Higher}};
constexpr std::pair<std::string_view, RunOrder> kOrders[]
    = {{"abba", RunOrder::Abba}, {"randomised-blocks", RunOrder::RandomisedBlocks}};
constexpr std::pair<std::string_view, StopRule> kStops[]
    = {{"count", StopRule::Count}, {"duration", StopRule::Duration}, {"decision", StopRule::Decision}};
constexpr std::pair<std::string_view, ExperimentStatus> kStatuses[]
    = {{"pending", ExperimentStatus::Pending}, {"running", ExperimentStatus::Running}, {"done", ExperimentStatus::Done},
        {"stopped", ExperimentStatus::Stopped}, {"failed", ExperimentStatus::Failed}};

std::vector<std::string> strings(const JsonReader& r, std::string_view key)
{
    std::vector<std::string> out;
    if (const auto* a = r.optional_array(key)) {
        for (size_t i = 0; i < a->size(); ++i) {
            if (!(*a)[i].is_string())
                throw FormatError(fmt::format("field '{}[{}]': expected a string", r.field_path(key), i));
            out.push_back((*a)[i].get<std::string>());
        }
    }
    return out;
}

std::vector<double> numbers(const JsonReader& r, std::string_view key)
{
    std::vector<double> out;
    if (const auto* a = r.optional_array(key)) {
        out.reserve(a->size());
        for (size_t i = 0; i < a->size(); ++i) {
            if (!(*a)[i].is_number())
                throw FormatError(fmt::format("field '{}[{}]': expected a number", r.field_path(key), i));
            out.push_back((*a)[i].get<double>());
        }
    }
    return out;
}

std::map<std::string, double> number_map(const JsonReader& r, std::string_view key)
{
    std::map<std::string, double> out;
    if (auto o = r.optional_object(key))
        for (const auto& [name, value] : o->json().items())
            out[name] = o->number(name);
    return out;
}

// An integer field held in an int: a value beyond its range is an error, never silently wrapped
// (runs_per_arm 4294967297 must not become 1).
int int_value(const JsonReader& r, std::string_view key, long long value)
{
    const auto* raw = r.json().contains(key) ? &r.json()[std::string(key)] : nullptr;
    const bool huge_unsigned = raw && raw->is_number_unsigned()
        && raw->get<unsigned long long>() > static_cast<unsigned long long>(std::numeric_limits<int>::max());
    if (huge_unsigned || value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
        r.fail(key,
            fmt::format("{} is out of range (at most {})", raw ? raw->dump() : std::to_string(value),
                std::numeric_limits<int>::max()));
    return static_cast<int>(value);
}

int int_field(const JsonReader& r, std::string_view key)
{
    return int_value(r, key, r.integer(key));
}

int int_or(const JsonReader& r, std::string_view key, int fallback)
{
    return int_value(r, key, r.integer_or(key, fallback));
}

// A repetition's measurements: JSON has no NaN or infinity, so a non-finite value a workload
// returned (the sample is then discarded, its note says what it was) is written as null. On load
// null means "no usable value": the metric is left out, an iteration reads back as NaN.
std::map<std::string, double> measured_map(const JsonReader& r, std::string_view key)
{
    std::map<std::string, double> out;
    if (auto o = r.optional_object(key))
        for (const auto& [name, value] : o->json().items())
            if (!value.is_null())
                out[name] = o->number(name);
    return out;
}

std::vector<double> measured_list(const JsonReader& r, std::string_view key)
{
    std::vector<double> out;
    if (const auto* a = r.optional_array(key)) {
        out.reserve(a->size());
        for (size_t i = 0; i < a->size(); ++i) {
            if ((*a)[i].is_null())
                out.push_back(std::numeric_limits<double>::quiet_NaN());
            else if ((*a)[i].is_number())
                out.push_back((*a)[i].get<double>());
            else
                throw FormatError(fmt::format("field '{}[{}]': expected a number", r.field_path(key), i));
        }
    }
    return out;
}

json raw_or(const JsonReader& r, std::string_view key, json fallback)
{
    // null means "not set" everywhere in the format (docs/study-format.md).
    const auto it = r.json().find(key);
    return it == r.json().end() || it->is_null() ? std::move(fallback) : *it;
}

// A name that becomes part of a path (study/path_names.h), refused naming its field.
std::string path_name(const JsonReader& r, std::string_view key)
{
    std::string name = r.string(key);
    if (const auto problem = path_name_problem(name); !problem.empty())
        r.fail(key, fmt::format("{} {}", shown_name(name), problem));
    return name;
}

// --- to JSON -------------------------------------------------------------------------------

json stop_record_json(const StopRecord& s)
{
    return {{"rule", s.rule}, {"code", s.code}, {"runs_per_arm", s.runs_per_arm},
        {"alpha", s.alpha ? json(*s.alpha) : json(nullptr)}, {"looks", s.looks},
        {"interval", s.interval ? json(*s.interval) : json(nullptr)},
        {"interval_level", s.interval_level ? json(*s.interval_level) : json(nullptr)}};
}

json to_json(const Target& t)
{
    return {{"metric", t.metric}, {"direction", to_string(t.direction)}, {"unit", t.unit},
        {"current", optional_number(t.current)}, {"goal", optional_number(t.goal)}, {"kernel", t.kernel},
        {"reference", t.reference}, {"workload", t.workload}};
}

json to_json(const RunPlan& p)
{
    return {{"runs_per_arm", p.runs_per_arm}, {"warmup_runs", p.warmup_runs}, {"order", to_string(p.order)},
        {"seed", p.seed}, {"stop", to_string(p.stop)}, {"duration_s", p.duration_s}, {"max_seconds", p.max_seconds},
        {"max_runs_per_arm", p.max_runs_per_arm}, {"split_halves", p.split_halves}, {"min_rep_ms", p.min_rep_ms}};
}

json to_json(const CorrectnessCheck& c)
{
    return {{"ok", c.ok}, {"max_abs_error", optional_number(c.max_abs_error)},
        {"max_rel_error", optional_number(c.max_rel_error)}, {"tolerance", optional_number(c.tolerance)},
        {"compared", c.compared}, {"checked_at", c.checked_at}};
}

json to_json(const CommandSpec& c)
{
    return {{"cmd", c.cmd}, {"cwd", c.cwd}, {"env", c.env}, {"timeout_s", c.timeout_s}, {"setup", c.setup},
        {"teardown", c.teardown}, {"setup_each", c.setup_each}, {"teardown_each", c.teardown_each}, {"check", c.check},
        {"adapter", c.adapter}, {"adapter_options", c.adapter_options}, {"max_output_mib", c.max_output_mib}};
}

json to_json(const DeviceIdentity& d)
{
    return d.empty() ? json(nullptr) : device_identity_json(d); // the one codec (study/device_identity.h)
}

json placement_json(const Placement& p)
{
    return {{"device", p.device ? json(*p.device) : json(nullptr)}, {"host", p.host}, {"slurm_job", p.slurm_job}};
}

json to_json(const Experiment& e, bool with_samples)
{
    json arms = json::array();
    for (const auto& a : e.arms)
        arms.push_back(
            {{"name", a.name}, {"params", a.params}, {"check", a.check ? to_json(*a.check) : json(nullptr)}});
    for (size_t i = 0; i < e.arms.size(); ++i)
        if (e.arms[i].command)
            arms[i]["command"] = to_json(*e.arms[i].command);
    for (size_t i = 0; i < e.arms.size(); ++i)
        if (e.arms[i].worker)
            arms[i]["worker"] = worker_spec_json(*e.arms[i].worker);
    for (size_t i = 0; i < e.arms.size(); ++i)
        if (!e.arms[i].role.empty())
            arms[i]["role"] = e.arms[i].role;
    for (size_t i = 0; i < e.arms.size(); ++i)
        if (e.arms[i].git)
            arms[i]["git"] = git_arm_json(*e.arms[i].git);
    json samples = json::array();
    if (with_samples) {
        samples.get_ref<json::array_t&>().reserve(e.samples.size());
        for (const auto& s : e.samples)
            samples.push_back(sample_to_json(s));
    }
    json lanes = json::array();
    for (const auto& l : e.lanes)
        lanes.push_back({{"name", l.name}, {"unit", l.unit}, {"t_s", l.t_s}, {"values", l.values},
            {"dropped_out_of_range", l.dropped_out_of_range}});
    json aa = nullptr;
    if (e.split_half)
        aa = {{"splits", e.split_half->splits}, {"false_alarms", e.split_half->false_alarms},
            {"false_alarm_rate", e.split_half->false_alarm_rate()}, {"verdicts", e.split_half->verdicts},
            {"method", e.split_half->method}};
    json out = {{"id", e.id}, {"kind", e.kind}, {"workload", e.workload}, {"backend", e.backend}, {"metric", e.metric},
        {"guards", e.guards}, {"arms", arms}, {"plan", to_json(e.plan)},
        {"controls", {{"checklist", e.controls.checklist}, {"notes", e.controls.notes}}}, {"profile", e.profile},
        {"profile_overrides", e.profile_overrides}, {"acknowledged_multi_variable", e.acknowledged_multi_variable},
        {"status", to_string(e.status)}, {"error", e.error}, {"stop_reason", e.stop_reason},
        {"samples", std::move(samples)}, // moved: a copy of 100,000 samples
        {"lanes", std::move(lanes)}, {"split_half_check", aa}, {"missing_gates", e.missing_gates},
        {"device", to_json(e.device)},
        {"launches_per_rep", e.launches_per_rep ? json(*e.launches_per_rep) : json(nullptr)},
        {"limitations", e.limitations}, {"verdict", e.verdict ? to_json(*e.verdict) : json(nullptr)},
        {"final_verdict", e.final_verdict ? to_json(*e.final_verdict) : json(nullptr)},
        {"stopping", e.stopping ? stop_record_json(*e.stopping) : json(nullptr)}, {"group", e.group}, {"cell", e.cell},
        {"placement", e.placement ? placement_json(*e.placement) : json(nullptr)}};
    // Written only where there is one, so studies without an A/A arm keep their exact form.
    if (e.aa_verdict)
        out["aa_verdict"] = to_json(*e.aa_verdict);
    if (e.timed_elapsed_s)
        out["timed_elapsed_s"] = *e.timed_elapsed_s;
    if (e.shared_buffers)
        out["shared_buffers"] = *e.shared_buffers;
    if (!e.expect_differ.empty())
        out["expect_differ"] = e.expect_differ;
    if (e.bisect)
        out["bisect"] = {{"bad_sha", e.bisect->bad_sha}, {"commits_in_range", e.bisect->commits_in_range},
            {"commits_left", e.bisect->commits_left}};
    return out;
}

json to_json(const GridGroup& g)
{
    json variables = json::array();
    for (const auto& v : g.variables)
        variables.push_back({{"name", v.name}, {"levels", v.levels}});
    return {{"id", g.id}, {"variables", variables},
        {"interaction", g.interaction ? to_json(*g.interaction) : json(nullptr)}};
}

// --- from JSON -----------------------------------------------------------------------------

StopRecord stop_record_from(const JsonReader& r)
{
    StopRecord s;
    s.rule = r.string_or("rule", "");
    s.code = r.string_or("code", "");
    s.runs_per_arm = int_or(r, "runs_per_arm", 0);
    s.alpha = r.optional_number("alpha");
    s.looks = int_or(r, "looks", 0);
    if (const auto* a = r.optional_array("interval")) {
        if (a->size() != 2 || !(*a)[0].is_number() || !(*a)[1].is_number())
            r.fail("interval", "expected [lo, hi] of two numbers");
        s.interval = std::array<double, 2> {(*a)[0].get<double>(), (*a)[1].get<double>()};
    }
    s.interval_level = r.optional_number("interval_level");
    return s;
}

Target target_from(const JsonReader& r)
{
    Target t;
    t.metric = r.string_or("metric", "");
    t.direction = parse_enum(r, "direction", Direction::Lower, kDirections);
    t.unit = r.string_or("unit", "");
    t.current = r.optional_number("current");
    t.goal = r.optional_number("goal");
    t.kernel = r.string_or("kernel", "");
    t.reference = r.string_or("reference", "");
    t.workload = r.string_or("workload", "");
    return t;
}

RunPlan plan_from(const JsonReader& r)
{
    RunPlan p;
    p.runs_per_arm = int_or(r, "runs_per_arm", p.runs_per_arm);
    if (p.runs_per_arm < 1)
        r.fail("runs_per_arm", "must be at least 1");
    p.warmup_runs = int_or(r, "warmup_runs", p.warmup_runs);
    if (p.warmup_runs < 0)
        r.fail("warmup_runs", "must not be negative");
    p.order = parse_enum(r, "order", p.order, kOrders);
    p.seed = static_cast<std::uint64_t>(r.integer_or("seed", static_cast<long long>(p.seed)));
    p.stop = parse_enum(r, "stop", p.stop, kStops);
    p.duration_s = r.number_or("duration_s", p.duration_s);
    p.max_seconds = r.number_or("max_seconds", p.max_seconds);
    if (!(p.max_seconds > 0))
        r.fail("max_seconds", "must be positive");
    if (p.duration_s < 0)
        r.fail("duration_s", "must not be negative");
    p.max_runs_per_arm = int_or(r, "max_runs_per_arm", p.max_runs_per_arm);
    if (p.max_runs_per_arm < 1)
        r.fail("max_runs_per_arm", "must be at least 1");
    p.split_halves = int_or(r, "aa_splits", p.split_halves); // its name before the real A/A arm
    p.split_halves = int_or(r, "split_halves", p.split_halves);
    if (p.split_halves < 0)
        r.fail("split_halves", "must not be negative");
    p.min_rep_ms = r.number_or("min_rep_ms", p.min_rep_ms);
    if (!(p.min_rep_ms >= 0 && p.min_rep_ms <= 60000))
        r.fail("min_rep_ms", "must be between 0 (off) and 60000 ms");
    for (const auto& problem : plan_problems(p)) // the documented ranges (study/plan_limits.h)
        r.fail(problem.field, problem.problem);
    return p;
}

CorrectnessCheck check_from(const JsonReader& r)
{
    CorrectnessCheck c;
    c.ok = r.boolean_or("ok", false);
    c.max_abs_error = r.optional_number("max_abs_error");
    c.max_rel_error = r.optional_number("max_rel_error");
    c.tolerance = r.optional_number("tolerance");
    c.compared = r.string_or("compared", "");
    c.checked_at = r.string_or("checked_at", "");
    return c;
}

CommandSpec command_from(const JsonReader& r)
{
    CommandSpec c;
    c.cmd = r.string("cmd");
    c.cwd = r.string_or("cwd", "");
    if (r.json().contains("env") && !r.json()["env"].is_null()) {
        if (!r.json()["env"].is_object())
            r.fail("env", "expected an object of NAME: VALUE strings");
        for (const auto& [k, v] : r.json()["env"].items()) {
            if (!v.is_string())
                r.fail("env", "expected an object of NAME: VALUE strings");
            c.env[k] = v.get<std::string>();
        }
    }
    c.timeout_s = r.number_or("timeout_s", c.timeout_s);
    if (!(c.timeout_s > 0))
        r.fail("timeout_s", "must be above 0 seconds");
    c.setup = r.string_or("setup", "");
    c.teardown = r.string_or("teardown", "");
    c.setup_each = r.string_or("setup_each", "");
    c.teardown_each = r.string_or("teardown_each", "");
    c.check = r.string_or("check", "");
    c.adapter = r.string_or("adapter", "auto");
    c.adapter_options = r.json().contains("adapter_options") && r.json()["adapter_options"].is_object()
        ? r.json()["adapter_options"]
        : json::object();
    c.max_output_mib = r.number_or("max_output_mib", c.max_output_mib);
    if (!(c.max_output_mib >= kMinOutputMib && c.max_output_mib <= kMaxOutputMib))
        r.fail("max_output_mib",
            fmt::format("{} must be between {} and {} (MiB)", c.max_output_mib, kMinOutputMib, kMaxOutputMib));
    return c;
}

Placement placement_from(const JsonReader& r)
{
    Placement p;
    if (r.json().contains("device") && !r.json()["device"].is_null())
        p.device = int_field(r, "device");
    p.host = r.string_or("host", "");
    p.slurm_job = r.string_or("slurm_job", "");
    return p;
}

DeviceIdentity device_from(const JsonReader& r)
{
    return device_identity_from(r);
}

Experiment experiment_from(const JsonReader& r)
{
    Experiment e;
    e.id = path_name(r, "id");
    e.kind = r.string_or("kind", "ab");
    e.workload = r.string("workload");
    e.backend = r.string_or("backend", "auto");
    e.metric = r.string("metric");
    e.guards = strings(r, "guards");
    const auto& arms = r.array("arms");
    for (size_t i = 0; i < arms.size(); ++i) {
        const auto a = r.element(arms, i, "arms");
        Arm arm {path_name(a, "name"), raw_or(a, "params", json::object()), std::nullopt};
        if (!arm.params.is_object())
            a.fail("params", "expected an object of parameter values");
        if (auto c = a.optional_object("check"))
            arm.check = check_from(*c);
        if (auto c = a.optional_object("command"))
            arm.command = command_from(*c);
        if (auto w = a.optional_object("worker"))
            arm.worker = worker_spec_from(*w);
        if (arm.command && arm.worker)
            a.fail("worker", "an arm is a command or a worker, not both");
        if (auto g = a.optional_object("git")) {
            if (!arm.command && !arm.worker)
                a.fail("git", "a commit arm is a command or a worker arm (docs/git-arms.md)");
            arm.git = git_arm_from(*g);
        }
        arm.role = a.string_or("role", "");
        if (!arm.role.empty() && arm.role != kAaArmRole)
            a.fail("role", fmt::format("unknown role \"{}\" (expected \"{}\" or none)", arm.role, kAaArmRole));
        if (!arm.role.empty() && i < 2)
            a.fail("role", "the first two arms are the A/B's baseline and treatment; an A/A arm comes after them");
        if (!arm.role.empty() && aa_arm(e))
            a.fail("role", "an experiment has at most one A/A arm");
        e.arms.push_back(std::move(arm));
    }
    if (auto p = r.optional_object("plan"))
        e.plan = plan_from(*p);
    if (auto c = r.optional_object("controls")) {
        if (auto list = c->optional_object("checklist"))
            for (const auto& [name, value] : list->json().items())
                e.controls.checklist[name] = list->boolean_or(name, false);
        e.controls.notes = c->string_or("notes", "");
    }
    e.profile = r.string_or("profile", "generic");
    e.profile_overrides = raw_or(r, "profile_overrides", json::object());
    if (!e.profile_overrides.is_object())
        r.fail("profile_overrides", "expected an object");
    e.acknowledged_multi_variable = r.boolean_or("acknowledged_multi_variable", false);
    e.status = parse_enum(r, "status", ExperimentStatus::Pending, kStatuses);
    e.error = r.string_or("error", "");
    e.stop_reason = r.string_or("stop_reason", "");
    if (const auto* samples = r.optional_array("samples"))
        for (size_t i = 0; i < samples->size(); ++i)
            e.samples.push_back(sample_from_json(r.element(*samples, i, "samples")));
    if (const auto* lanes = r.optional_array("lanes")) {
        for (size_t i = 0; i < lanes->size(); ++i) {
            const auto l = r.element(*lanes, i, "lanes");
            SamplerLane lane {l.string("name"), l.string_or("unit", ""), numbers(l, "t_s"), numbers(l, "values")};
            if (lane.t_s.size() != lane.values.size())
                l.fail("values", "must have as many entries as t_s");
            const long long dropped = l.integer_or("dropped_out_of_range", 0);
            if (dropped < 0)
                l.fail("dropped_out_of_range", "must not be negative");
            lane.dropped_out_of_range = static_cast<unsigned long long>(dropped);
            e.lanes.push_back(std::move(lane));
        }
    }
    // Written before the split-half stability check was named so (it was "A/A calibration").
    const char* split_key = r.has("split_half_check") ? "split_half_check" : "aa_calibration";
    if (auto aa = r.optional_object(split_key)) {
        SplitHalfCheck c;
        c.splits = int_field(*aa, "splits");
        c.false_alarms = int_field(*aa, "false_alarms");
        if (c.splits < 0 || c.false_alarms < 0 || c.false_alarms > c.splits)
            aa->fail("false_alarms", "must be between 0 and splits");
        c.verdicts = strings(*aa, "verdicts");
        c.method = aa->string_or("method", "");
        e.split_half = std::move(c);
    }
    e.missing_gates = strings(r, "missing_gates");
    if (auto d = r.optional_object("device"))
        e.device = device_from(*d);
    if (r.json().contains("launches_per_rep") && !r.json()["launches_per_rep"].is_null()) {
        e.launches_per_rep = int_field(r, "launches_per_rep");
        if (*e.launches_per_rep < 1)
            r.fail("launches_per_rep", "must be at least 1");
    }
    e.limitations = strings(r, "limitations");
    if (r.has("verdict"))
        e.verdict = sample_verdict_from_json(r.json().at("verdict"), r.field_path("verdict"));
    if (r.has("final_verdict"))
        e.final_verdict = final_verdict_from_json(r.json().at("final_verdict"), r.field_path("final_verdict"));
    if (auto st = r.optional_object("stopping"))
        e.stopping = stop_record_from(*st);
    if (r.has("aa_verdict"))
        e.aa_verdict = sample_verdict_from_json(r.json().at("aa_verdict"), r.field_path("aa_verdict"));
    if (const auto t = r.optional_number("timed_elapsed_s")) {
        if (!std::isfinite(*t) || *t < 0)
            r.fail("timed_elapsed_s", "must be a number of seconds, 0 or more");
        e.timed_elapsed_s = t;
    }
    if (r.has("shared_buffers")) {
        if (!r.json().at("shared_buffers").is_boolean())
            r.fail("shared_buffers", "must be true or false");
        e.shared_buffers = r.json().at("shared_buffers").get<bool>();
    }
    e.expect_differ = strings(r, "expect_differ");
    for (const auto& field : e.expect_differ)
        if (field.empty())
            r.fail("expect_differ", "a fingerprint field name is not empty");
    if (auto b = r.optional_object("bisect")) {
        BisectStepRecord rec;
        rec.bad_sha = b->string_or("bad_sha", "");
        rec.commits_in_range = int_field(*b, "commits_in_range");
        rec.commits_left = int_field(*b, "commits_left");
        if (rec.bad_sha.empty())
            b->fail("bad_sha", "a bisect step names its search's bad commit");
        if (rec.commits_in_range < 1 || rec.commits_left < 0 || rec.commits_left >= rec.commits_in_range)
            b->fail("commits_left", "must be at least 0 and below commits_in_range (itself at least 1)");
        e.bisect = std::move(rec);
    }
    e.group = r.string_or("group", "");
    if (const auto* cell = r.optional_array("cell"))
        for (size_t i = 0; i < cell->size(); ++i) {
            if (!(*cell)[i].is_number_integer() || (*cell)[i].get<long long>() < 0 || (*cell)[i].get<long long>() > 64)
                throw FormatError(
                    fmt::format("field '{}[{}]': expected a level index (an integer from 0)", r.field_path("cell"), i));
            e.cell.push_back((*cell)[i].get<int>());
        }
    if (auto p = r.optional_object("placement"))
        e.placement = placement_from(*p);
    return e;
}

GridGroup grid_from(const JsonReader& r)
{
    GridGroup g;
    g.id = path_name(r, "id");
    const auto& variables = r.array("variables");
    for (size_t i = 0; i < variables.size(); ++i) {
        const auto v = r.element(variables, i, "variables");
        GridVariable var {v.string("name"), {}};
        const auto& levels = v.array("levels");
        var.levels.assign(levels.begin(), levels.end());
        g.variables.push_back(std::move(var));
    }
    if (const auto interaction = r.optional_object("interaction"))
        g.interaction = grid_interaction_from(*interaction);
    return g;
}

} // namespace

json sample_to_json(const Sample& s)
{
    // Member by member rather than from an initializer list: a study holds 100,000 of these, and
    // the list builds (and then converts) a two-element array per member.
    json j(json::value_t::object);
    j["arm"] = s.arm;
    j["rep"] = s.rep;
    j["position"] = s.position;
    j["started_at"] = s.started_at;
    j["duration_s"] = s.duration_s;
    j["metrics"] = s.metrics;
    j["warmup"] = s.warmup;
    j["discarded"] = s.discarded;
    j["throttled"] = s.throttled;
    if (!s.iterations.empty())
        j["iterations"] = s.iterations;
    if (s.clock_mhz)
        j["clock_mhz"] = *s.clock_mhz;
    if (s.temperature_c)
        j["temperature_c"] = *s.temperature_c;
    if (!s.note.empty())
        j["note"] = s.note;
    if (s.mem_clock_mhz)
        j["mem_clock_mhz"] = *s.mem_clock_mhz;
    if (s.power_w)
        j["power_w"] = *s.power_w;
    if (!s.throttle_reasons.empty())
        j["throttle_reasons"] = s.throttle_reasons;
    if (s.launches)
        j["launches"] = *s.launches;
    if (s.failed)
        j["failed"] = true;
    if (s.exit_status)
        j["exit_status"] = *s.exit_status;
    if (!s.stdout_tail.empty())
        j["stdout_tail"] = s.stdout_tail;
    if (!s.stderr_tail.empty())
        j["stderr_tail"] = s.stderr_tail;
    if (!s.adapter.empty())
        j["adapter"] = s.adapter;
    if (!s.fingerprint.empty())
        j["fingerprint"] = s.fingerprint;
    if (s.peak_gpu_mem_mib)
        j["peak_gpu_mem_mib"] = *s.peak_gpu_mem_mib;
    if (s.t_s)
        j["t_s"] = *s.t_s;
    return j;
}

Sample sample_from_json(const JsonReader& r)
{
    Sample s;
    s.arm = r.string("arm");
    s.rep = int_field(r, "rep");
    s.position = int_field(r, "position");
    s.started_at = r.string_or("started_at", "");
    s.duration_s = r.number_or("duration_s", 0);
    s.metrics = measured_map(r, "metrics");
    s.iterations = measured_list(r, "iterations");
    s.clock_mhz = r.optional_number("clock_mhz");
    s.temperature_c = r.optional_number("temperature_c");
    s.warmup = r.boolean_or("warmup", false);
    s.discarded = r.boolean_or("discarded", false);
    s.throttled = r.boolean_or("throttled", false);
    s.note = r.string_or("note", "");
    s.mem_clock_mhz = r.optional_number("mem_clock_mhz");
    s.power_w = r.optional_number("power_w");
    s.throttle_reasons = strings(r, "throttle_reasons");
    if (r.json().contains("launches") && !r.json()["launches"].is_null())
        s.launches = int_field(r, "launches");
    s.failed = r.boolean_or("failed", false);
    if (r.json().contains("exit_status") && !r.json()["exit_status"].is_null())
        s.exit_status = int_field(r, "exit_status");
    s.stdout_tail = r.string_or("stdout_tail", "");
    s.stderr_tail = r.string_or("stderr_tail", "");
    s.adapter = r.string_or("adapter", "");
    if (r.json().contains("fingerprint") && r.json()["fingerprint"].is_object())
        for (const auto& [k, v] : r.json()["fingerprint"].items())
            s.fingerprint[k] = v.is_string() ? v.get<std::string>() : v.dump();
    s.peak_gpu_mem_mib = r.optional_number("peak_gpu_mem_mib");
    s.t_s = r.optional_number("t_s");
    return s;
}

json study_to_json(const Study& study)
{
    return study_to_json(study, true);
}

json study_to_json(const Study& study, bool with_samples)
{
    json experiments = json::array();
    for (const auto& e : study.experiments)
        experiments.push_back(to_json(e, with_samples));
    json tradeoffs = json::array();
    for (const auto& t : study.tradeoffs)
        tradeoffs.push_back({{"axis", t.axis}, {"sacrificed", t.sacrificed}, {"note", t.note}});
    json ledger = json::array();
    for (const auto& l : study.ledger)
        ledger.push_back({{"experiment", l.experiment_id}, {"at", l.at}, {"verdict", l.verdict}, {"summary", l.summary},
            {"hypotheses", l.hypotheses}});
    json grids = json::array();
    for (const auto& g : study.grids)
        grids.push_back(to_json(g));
    const auto& hw = study.hardware;
    const auto& p = study.prediction;
    return {{"schema_version", kStudySchemaVersion}, {"name", study.name}, {"description", study.description},
        {"created_at", study.created_at}, {"modified_at", study.modified_at}, {"target", to_json(study.target)},
        {"hardware",
            {{"captured_at", hw.captured_at}, {"devices", hw.devices}, {"device_in_use", hw.device_in_use},
                {"warnings", hw.warnings}}},
        {"binding",
            {{"constraint", study.binding.constraint}, {"notes", study.binding.notes},
                {"metrics", study.binding.metrics}, {"axis", study.binding.axis}, {"evidence", study.binding.evidence},
                {"warnings", study.binding.warnings}, {"limitations", study.binding.limitations},
                {"thresholds", study.binding.thresholds}, {"kernels", study.binding.kernels},
                {"experiment", study.binding.experiment}, {"arm", study.binding.arm}, {"source", study.binding.source},
                {"measured_at", study.binding.measured_at}}},
        {"prediction",
            {{"formula", p.formula}, {"variables", p.variables},
                {"predicted_delta_pct", optional_number(p.predicted_delta_pct)}, {"rationale", p.rationale},
                {"gpu", p.gpu}}},
        {"experiments", std::move(experiments)}, {"tradeoffs", tradeoffs}, {"ledger", ledger}, {"grids", grids}};
}

Study study_from_json(const nlohmann::json& document)
{
    const JsonReader r(document, "");
    Study s;
    s.schema_version = int_field(r, "schema_version");
    s.name = r.string("name");
    s.description = r.string_or("description", "");
    s.created_at = r.string_or("created_at", "");
    s.modified_at = r.string_or("modified_at", "");
    if (auto t = r.optional_object("target"))
        s.target = target_from(*t);
    if (auto hw = r.optional_object("hardware")) {
        s.hardware.captured_at = hw->string_or("captured_at", "");
        s.hardware.devices = raw_or(*hw, "devices", json::array());
        s.hardware.device_in_use = hw->string_or("device_in_use", "");
        s.hardware.warnings = strings(*hw, "warnings");
    }
    if (auto b = r.optional_object("binding")) {
        s.binding.constraint = b->string_or("constraint", "");
        s.binding.notes = b->string_or("notes", "");
        s.binding.metrics = raw_or(*b, "metrics", json::object());
        s.binding.axis = b->string_or("axis", "");
        s.binding.evidence = strings(*b, "evidence");
        s.binding.warnings = strings(*b, "warnings");
        s.binding.limitations = strings(*b, "limitations");
        s.binding.thresholds = raw_or(*b, "thresholds", json::object());
        s.binding.kernels = raw_or(*b, "kernels", json::array());
        s.binding.experiment = b->string_or("experiment", "");
        s.binding.arm = b->string_or("arm", "");
        s.binding.source = b->string_or("source", "");
        s.binding.measured_at = b->string_or("measured_at", "");
    }
    if (auto p = r.optional_object("prediction")) {
        s.prediction.formula = p->string_or("formula", "");
        s.prediction.variables = number_map(*p, "variables");
        s.prediction.predicted_delta_pct = p->optional_number("predicted_delta_pct");
        s.prediction.rationale = p->string_or("rationale", "");
        s.prediction.gpu = p->string_or("gpu", "");
    }
    if (const auto* experiments = r.optional_array("experiments"))
        for (size_t i = 0; i < experiments->size(); ++i)
            s.experiments.push_back(experiment_from(r.element(*experiments, i, "experiments")));
    if (const auto* tradeoffs = r.optional_array("tradeoffs"))
        for (size_t i = 0; i < tradeoffs->size(); ++i) {
            const auto t = r.element(*tradeoffs, i, "tradeoffs");
            s.tradeoffs.push_back({t.string("axis"), t.boolean_or("sacrificed", false), t.string_or("note", "")});
        }
    if (const auto* ledger = r.optional_array("ledger"))
        for (size_t i = 0; i < ledger->size(); ++i) {
            const auto l = r.element(*ledger, i, "ledger");
            s.ledger.push_back({l.string("experiment"), l.string_or("at", ""), l.string("verdict"),
                l.string_or("summary", ""), strings(l, "hypotheses")});
        }
    if (const auto* grids = r.optional_array("grids"))
        for (size_t i = 0; i < grids->size(); ++i)
            s.grids.push_back(grid_from(r.element(*grids, i, "grids")));
    if (const auto problem = duplicate_id_problem(s); !problem.empty())
        throw FormatError(problem);
    return s;
}

nlohmann::json command_spec_json(const CommandSpec& spec)
{
    return to_json(spec);
}

CommandSpec command_spec_from(const JsonReader& r)
{
    return command_from(r);
}

} // namespace kwb
