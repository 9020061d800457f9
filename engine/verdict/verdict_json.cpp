// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/verdict_json.h"

#include "util/json_reader.h"
#include "verdict/profile.h"

#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace kwb {
namespace {

using json = nlohmann::json;

json num(const std::optional<double>& x)
{
    return x && std::isfinite(*x) ? json(*x) : json(nullptr);
}

json interval(const std::optional<DeltaInterval>& ci)
{
    if (!ci || !std::isfinite((*ci)[0]) || !std::isfinite((*ci)[1]))
        return nullptr;
    return json::array({(*ci)[0], (*ci)[1]});
}

json flag(const std::optional<bool>& b)
{
    return b ? json(*b) : json(nullptr);
}

json arm_json(const ArmStats& a)
{
    json modes = nullptr;
    if (a.modes) {
        modes = json::array();
        for (const auto& m : *a.modes)
            modes.push_back({{"share", m.share}, {"mean", num(m.mean)}});
    }
    return {{"n", a.n}, {"mean", num(a.mean)}, {"median", num(a.median)}, {"stddev", num(a.stddev)},
        {"cv_pct", num(a.cv_pct)}, {"min", num(a.min)}, {"max", num(a.max)}, {"p50", num(a.p50)}, {"p90", num(a.p90)},
        {"p99", num(a.p99)}, {"outliers_mild", a.outliers_mild}, {"outliers_extreme", a.outliers_extreme},
        {"modes", modes}};
}

json guard_json(const GuardVerdict& g)
{
    json j
        = {{"metric", g.metric}, {"direction", std::string(to_string(g.direction))}, {"tolerance_pct", g.tolerance_pct},
            {"n_baseline", g.n_baseline}, {"n_treatment", g.n_treatment}, {"assessed", g.assessed},
            {"regressed", g.regressed}, {"verdict", g.word ? json(std::string(to_string(*g.word))) : json(nullptr)},
            {"delta_pct", num(g.delta_pct)}, {"sigma_pct", num(g.sigma_pct)}};
    if (g.judged) {
        j["ci95_delta_pct"] = interval(g.ci95_delta_pct);
        j["reasons"] = g.reasons;
    }
    return j;
}

// --- reading -------------------------------------------------------------------------------

std::vector<std::string> strings_of(const JsonReader& r, std::string_view key)
{
    std::vector<std::string> out;
    if (const auto* a = r.optional_array(key))
        for (std::size_t i = 0; i < a->size(); ++i) {
            if (!(*a)[i].is_string())
                r.fail(key, fmt::format("entry {} is not a string", i));
            out.push_back((*a)[i].get<std::string>());
        }
    return out;
}

std::optional<DeltaInterval> interval_of(const JsonReader& r, std::string_view key)
{
    const auto* a = r.optional_array(key);
    if (!a)
        return std::nullopt;
    if (a->size() != 2 || !(*a)[0].is_number() || !(*a)[1].is_number())
        r.fail(key, "expected [lo, hi] of two numbers");
    return DeltaInterval {(*a)[0].get<double>(), (*a)[1].get<double>()};
}

std::optional<bool> flag_of(const JsonReader& r, std::string_view key)
{
    if (!r.has(key) || r.json().at(std::string(key)).is_null())
        return std::nullopt;
    return r.boolean_or(key, false);
}

std::size_t count_of(const JsonReader& r, std::string_view key)
{
    const long long n = r.integer_or(key, 0);
    if (n < 0)
        r.fail(key, "must not be negative");
    return static_cast<std::size_t>(n);
}

VerdictWord word_of(const JsonReader& r, std::string_view key)
{
    const std::string text = r.string_or(key, "INCONCLUSIVE");
    const auto w = parse_verdict_word(text);
    if (!w)
        r.fail(key, fmt::format("unknown verdict \"{}\" (expected LICENSE, KILL, NOISE or INCONCLUSIVE)", text));
    return *w;
}

Profile profile_of(const JsonReader& r)
{
    auto p = r.optional_object("profile");
    if (!p)
        return Profile {};
    try {
        return profile_from_json(p->json());
    } catch (const std::invalid_argument& e) {
        r.fail("profile", e.what());
    }
}

ArmStats arm_of(const JsonReader& r)
{
    ArmStats a;
    a.n = count_of(r, "n");
    a.mean = r.optional_number("mean");
    a.median = r.optional_number("median");
    a.stddev = r.optional_number("stddev");
    a.cv_pct = r.optional_number("cv_pct");
    a.min = r.optional_number("min");
    a.max = r.optional_number("max");
    a.p50 = r.optional_number("p50");
    a.p90 = r.optional_number("p90");
    a.p99 = r.optional_number("p99");
    a.outliers_mild = static_cast<int>(r.integer_or("outliers_mild", 0));
    a.outliers_extreme = static_cast<int>(r.integer_or("outliers_extreme", 0));
    if (const auto* modes = r.optional_array("modes")) {
        a.modes.emplace();
        for (std::size_t i = 0; i < modes->size(); ++i) {
            const auto m = r.element(*modes, i, "modes");
            a.modes->push_back({m.number("share"), m.optional_number("mean")});
        }
    }
    return a;
}

} // namespace

json to_json(const SampleVerdict& v)
{
    json j;
    j["verdict"] = std::string(to_string(v.word));
    j["reasons"] = v.reasons;
    j["delta_pct"] = num(v.delta_pct);
    j["sigma_pct"] = num(v.sigma_pct);
    j["speedup"] = num(v.speedup);
    j["n_baseline"] = v.baseline.n;
    j["n_treatment"] = v.treatment.n;
    j["mean_baseline"] = num(v.baseline.mean);
    j["mean_treatment"] = num(v.treatment.mean);
    j["cv_baseline_pct"] = num(v.baseline.cv_pct);
    j["cv_treatment_pct"] = num(v.treatment.cv_pct);
    j["ci95_delta_pct"] = interval(v.ci95_delta_pct);
    j["p_welch"] = num(v.p_welch);
    j["p_mannwhitney"] = num(v.p_mannwhitney);
    j["mannwhitney_method"] = v.mannwhitney_method;
    j["bimodal_baseline"] = flag(v.bimodal_baseline);
    j["bimodal_treatment"] = flag(v.bimodal_treatment);
    if (v.paired)
        j["paired"] = {{"n_pairs", v.paired->n_pairs}, {"mean_delta_pct", num(v.paired->mean_delta_pct)},
            {"ci95_delta_pct", interval(v.paired->ci95_delta_pct)}};
    else
        j["paired"] = nullptr;
    j["arms"] = {{"baseline", arm_json(v.baseline)}, {"treatment", arm_json(v.treatment)}};
    j["profile"] = profile_to_json(v.profile);
    // Extra keys (spec: more keys are welcome).
    j["rule"] = v.rule;
    j["u_mannwhitney"] = num(v.u_mannwhitney);
    j["runs_needed_per_arm"] = v.runs_needed_per_arm ? json(*v.runs_needed_per_arm) : json(nullptr);
    j["runs_needed_threshold_pct"] = num(v.runs_needed_threshold_pct);
    return j;
}

json to_json(const std::optional<GpuSharingSummary>& g)
{
    if (!g)
        return nullptr;
    return {{"source", g->source}, {"repetitions", g->repetitions}, {"shared", g->shared}, {"positions", g->positions}};
}

json to_json(const std::optional<CyclesComparison>& c)
{
    if (!c)
        return nullptr;
    return {{"clock_source", c->clock_source}, {"caveat", c->caveat.empty() ? json(nullptr) : json(c->caveat)},
        {"verdict", std::string(to_string(c->word))}, {"delta_pct", num(c->delta_pct)},
        {"sigma_pct", num(c->sigma_pct)}, {"ci95_delta_pct", interval(c->ci95_delta_pct)},
        {"clock_baseline_mhz", num(c->clock_baseline_mhz)}, {"clock_treatment_mhz", num(c->clock_treatment_mhz)},
        {"n_baseline", c->n_baseline}, {"n_treatment", c->n_treatment}, {"disagrees", c->disagrees}};
}

json to_json(const FinalVerdict& f)
{
    json j;
    j["predicted_delta_pct"] = num(f.predicted_delta_pct);
    j["measured_delta_pct"] = num(f.measured_delta_pct);
    if (f.split_half)
        j["split_half"] = {{"splits", f.split_half->splits}, {"false_alarms", f.split_half->false_alarms},
            {"false_alarm_rate", f.split_half->false_alarm_rate}};
    else
        j["split_half"] = nullptr;
    j["verdict"] = std::string(to_string(f.word));
    j["reasons"] = f.reasons;
    j["flags"] = f.flags;
    j["sample_verdict"] = std::string(to_string(f.sample_word));
    j["sample_reasons"] = f.sample_reasons;
    j["profile"] = profile_to_json(f.profile);
    json guards = json::array();
    for (const auto& g : f.guards)
        guards.push_back(guard_json(g));
    j["guards"] = guards;
    j["tradeoff_named"] = f.tradeoff_named;
    // Written only when recorded, so a study judged before these entries existed reads and writes
    // back byte for byte.
    if (f.gpu_sharing)
        j["gpu_sharing"] = to_json(f.gpu_sharing);
    if (f.cycles)
        j["cycles"] = to_json(f.cycles);
    return j;
}

SampleVerdict sample_verdict_from_json(const json& j, const std::string& path)
{
    if (!j.is_object())
        throw FormatError(fmt::format("field '{}': expected an object", path));
    const JsonReader r(j, path);
    SampleVerdict v;
    v.word = word_of(r, "verdict");
    v.reasons = strings_of(r, "reasons");
    v.rule = static_cast<int>(r.integer_or("rule", 0));
    v.delta_pct = r.optional_number("delta_pct");
    v.sigma_pct = r.optional_number("sigma_pct");
    v.speedup = r.optional_number("speedup");
    v.ci95_delta_pct = interval_of(r, "ci95_delta_pct");
    v.p_welch = r.optional_number("p_welch");
    v.p_mannwhitney = r.optional_number("p_mannwhitney");
    v.u_mannwhitney = r.optional_number("u_mannwhitney");
    v.mannwhitney_method = r.string_or("mannwhitney_method", "");
    v.bimodal_baseline = flag_of(r, "bimodal_baseline");
    v.bimodal_treatment = flag_of(r, "bimodal_treatment");
    if (auto p = r.optional_object("paired"))
        v.paired = PairedStats {
            count_of(*p, "n_pairs"), p->optional_number("mean_delta_pct"), interval_of(*p, "ci95_delta_pct")};
    if (auto arms = r.optional_object("arms")) {
        if (auto b = arms->optional_object("baseline"))
            v.baseline = arm_of(*b);
        if (auto t = arms->optional_object("treatment"))
            v.treatment = arm_of(*t);
    }
    // The flat keys win where the arms object is absent (a minimal hand-written verdict).
    if (!r.has("arms")) {
        v.baseline.n = count_of(r, "n_baseline");
        v.treatment.n = count_of(r, "n_treatment");
        v.baseline.mean = r.optional_number("mean_baseline");
        v.treatment.mean = r.optional_number("mean_treatment");
        v.baseline.cv_pct = r.optional_number("cv_baseline_pct");
        v.treatment.cv_pct = r.optional_number("cv_treatment_pct");
    }
    v.profile = profile_of(r);
    if (r.has("runs_needed_per_arm") && !j.at("runs_needed_per_arm").is_null())
        v.runs_needed_per_arm = static_cast<int>(r.integer("runs_needed_per_arm"));
    v.runs_needed_threshold_pct = r.optional_number("runs_needed_threshold_pct");
    return v;
}

FinalVerdict final_verdict_from_json(const json& j, const std::string& path)
{
    if (!j.is_object())
        throw FormatError(fmt::format("field '{}': expected an object", path));
    const JsonReader r(j, path);
    FinalVerdict f;
    f.word = word_of(r, "verdict");
    f.reasons = strings_of(r, "reasons");
    f.flags = strings_of(r, "flags");
    f.sample_word = r.has("sample_verdict") ? word_of(r, "sample_verdict") : f.word;
    f.sample_reasons = strings_of(r, "sample_reasons");
    f.profile = profile_of(r);
    if (const auto* guards = r.optional_array("guards"))
        for (std::size_t i = 0; i < guards->size(); ++i) {
            const auto g = r.element(*guards, i, "guards");
            GuardVerdict out;
            out.metric = g.string_or("metric", "");
            const auto dir = parse_direction(g.string_or("direction", "lower"));
            if (!dir)
                g.fail("direction", "expected lower or higher");
            out.direction = *dir;
            out.tolerance_pct = g.number_or("tolerance_pct", 0);
            out.n_baseline = count_of(g, "n_baseline");
            out.n_treatment = count_of(g, "n_treatment");
            out.assessed = g.boolean_or("assessed", false);
            out.regressed = g.boolean_or("regressed", false);
            if (g.has("verdict") && !g.json().at("verdict").is_null())
                out.word = word_of(g, "verdict");
            out.delta_pct = g.optional_number("delta_pct");
            out.sigma_pct = g.optional_number("sigma_pct");
            out.judged = g.json().contains("reasons");
            out.ci95_delta_pct = interval_of(g, "ci95_delta_pct");
            out.reasons = strings_of(g, "reasons");
            f.guards.push_back(std::move(out));
        }
    f.tradeoff_named = r.boolean_or("tradeoff_named", false);
    f.predicted_delta_pct = r.optional_number("predicted_delta_pct");
    f.measured_delta_pct = r.optional_number("measured_delta_pct");
    // Files written before the split-half check was named so call it "aa".
    if (auto aa = r.optional_object(r.has("split_half") ? "split_half" : "aa"))
        f.split_half = SplitHalfSummary {static_cast<int>(aa->integer_or("splits", 0)),
            static_cast<int>(aa->integer_or("false_alarms", 0)), aa->number_or("false_alarm_rate", 0)};
    if (auto g = r.optional_object("gpu_sharing")) {
        GpuSharingSummary s;
        s.source = g->string_or("source", "");
        s.repetitions = static_cast<int>(g->integer_or("repetitions", 0));
        s.shared = static_cast<int>(g->integer_or("shared", 0));
        if (const auto* positions = g->optional_array("positions"))
            for (std::size_t i = 0; i < positions->size(); ++i) {
                if (!(*positions)[i].is_number_integer())
                    g->fail("positions", "expected an array of integers");
                s.positions.push_back((*positions)[i].get<int>());
            }
        f.gpu_sharing = std::move(s);
    }
    if (auto c = r.optional_object("cycles")) {
        CyclesComparison out;
        out.clock_source = c->string_or("clock_source", "");
        out.caveat = c->optional_string("caveat").value_or("");
        out.word = word_of(*c, "verdict");
        out.delta_pct = c->optional_number("delta_pct");
        out.sigma_pct = c->optional_number("sigma_pct");
        out.ci95_delta_pct = interval_of(*c, "ci95_delta_pct");
        out.clock_baseline_mhz = c->optional_number("clock_baseline_mhz");
        out.clock_treatment_mhz = c->optional_number("clock_treatment_mhz");
        out.n_baseline = count_of(*c, "n_baseline");
        out.n_treatment = count_of(*c, "n_treatment");
        out.disagrees = c->boolean_or("disagrees", false);
        f.cycles = std::move(out);
    }
    return f;
}

} // namespace kwb
