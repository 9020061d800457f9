// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb verdict`: the sample verdict of two sample files (spec/verdict.md, "CLI form"). All the
// parsing and judging lives in the engine; this file only maps options to it and prints.
#include "commands.h"
#include "stats/sample_file.h"
#include "verdict/profile.h"
#include "verdict/verdict.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>
#include <unistd.h>

namespace kwb::cli {
namespace {

struct VerdictOptions {
    std::string baseline;
    std::string treatment;
    std::string direction = "lower";
    bool direction_given = false;
    std::string profile = "generic";
    std::optional<std::string> column;
    bool paired = false;
    bool json = false;
    std::map<std::string, std::optional<double>> overrides; // profile key -> value given
};

std::string num_or_dash(const std::optional<double>& v)
{
    return v ? wording::num(*v) : std::string("-");
}

std::string interval_or_dash(const std::optional<DeltaInterval>& ci)
{
    return ci ? fmt::format("{}% .. {}%", wording::num((*ci)[0]), wording::num((*ci)[1])) : std::string("-");
}

std::string p_or_dash(const std::optional<double>& p)
{
    return p ? wording::p_value(*p) : std::string("-");
}

void print_summary(const SampleVerdict& v)
{
    for (const auto& [arm, a] :
        {std::pair<const char*, const ArmStats&> {"baseline", v.baseline}, {"treatment", v.treatment}})
        fmt::print("{:<10} n={:<4} mean {}  median {}  stddev {}  cv {}%  p90 {}  outliers {}/{}\n", arm, a.n,
            num_or_dash(a.mean), num_or_dash(a.median), num_or_dash(a.stddev), num_or_dash(a.cv_pct),
            num_or_dash(a.p90), a.outliers_mild, a.outliers_extreme);
    fmt::print("delta {}% (95% CI {}), speedup {}x, sigma {}%\n", num_or_dash(v.delta_pct),
        interval_or_dash(v.ci95_delta_pct), num_or_dash(v.speedup), num_or_dash(v.sigma_pct));
    fmt::print(
        "Welch p {}, Mann-Whitney p {} ({})\n", p_or_dash(v.p_welch), p_or_dash(v.p_mannwhitney), v.mannwhitney_method);
    if (v.paired)
        fmt::print("paired: {} pairs, mean delta {}% (95% CI {})\n", v.paired->n_pairs,
            num_or_dash(v.paired->mean_delta_pct), interval_or_dash(v.paired->ci95_delta_pct));
    if (v.runs_needed_per_arm)
        fmt::print("runs per arm for the CI to clear {}%: about {}\n", num_or_dash(v.runs_needed_threshold_pct),
            *v.runs_needed_per_arm);
    fmt::print("profile {}{} ({} is better)\n", v.profile.name,
        v.profile.name == "custom" ? " based on " + v.profile.base : std::string(), to_string(v.profile.direction));
    for (const auto& r : v.reasons)
        fmt::print("- {}\n", r);
    fmt::print("{}\n", to_string(v.word));
}

int run(const VerdictOptions& o)
{
    const auto direction = parse_direction(o.direction);
    if (!direction)
        throw BadInput(fmt::format("--direction: unknown direction \"{}\" (expected lower or higher)", o.direction));
    Profile profile;
    try {
        profile = make_profile(o.profile, *direction);
    } catch (const std::invalid_argument& e) {
        throw BadInput(fmt::format("--profile: {}", e.what()));
    }
    for (const auto& [key, value] : o.overrides) {
        if (!value)
            continue;
        try {
            profile = apply_overrides(profile, nlohmann::json {{key, *value}});
        } catch (const std::invalid_argument& e) {
            std::string flag = "--" + key;
            std::replace(flag.begin(), flag.end(), '_', '-');
            throw BadInput(fmt::format("{}: {}", flag, e.what()));
        }
    }

    // Large inputs (a million values per arm takes seconds) say what they are doing on a
    // terminal, one line redrawn in place and cleared at the end; pipes and logs stay clean.
    std::error_code size_error;
    const auto bytes = [&](const std::string& f) {
        const auto n = std::filesystem::file_size(f, size_error);
        return size_error ? std::uintmax_t(0) : n;
    };
    const bool show_stages = isatty(fileno(stderr)) && bytes(o.baseline) + bytes(o.treatment) >= (1u << 20);
    const auto stage = [&](const std::string& what) {
        if (show_stages)
            fmt::print(stderr, "\rkwb verdict: {}\x1b[K", what);
    };
    stats::SampleSet base, treat;
    try {
        stage(fmt::format("reading {}", o.baseline));
        base = stats::read_sample_file(o.baseline, o.column);
        stage(fmt::format("reading {}", o.treatment));
        treat = stats::read_sample_file(o.treatment, o.column);
        if (o.paired)
            stats::check_paired_counts(base, treat);
    } catch (const stats::SampleFileError& e) {
        if (show_stages)
            fmt::print(stderr, "\r\x1b[K");
        throw BadInput(e.what());
    }

    // spec/verdict.md, CLI form: a column whose name says higher-is-better, judged as lower.
    if (o.column && !o.direction_given) {
        std::string name = *o.column;
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        for (const char* hint : {"gflops", "tflops", "gbs", "tok_s", "per_s", "throughput"})
            if (name.find(hint) != std::string::npos) {
                fmt::print(stderr,
                    "kwb verdict: warning: column '{}' looks higher-is-better (its name contains '{}') "
                    "but is judged lower-is-better; pass --direction higher if it is\n",
                    *o.column, hint);
                break;
            }
    }
    stage(fmt::format(
        "judging {} + {} values (percentiles, ranks, bootstrap interval)", base.values.size(), treat.values.size()));
    const SampleVerdict v = judge_samples(base.values, treat.values, profile, o.paired);
    if (show_stages)
        fmt::print(stderr, "\r\x1b[K");
    if (o.json)
        fmt::print("{}\n", to_json(v).dump(2));
    else
        print_summary(v);
    return kOk;
}

} // namespace

void add_verdict_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("verdict",
        "The sample verdict (LICENSE, KILL, NOISE, INCONCLUSIVE) of two sample "
        "files, by the rules of spec/verdict.md");
    auto o = std::make_shared<VerdictOptions>();
    cmd->add_option("--baseline", o->baseline, "Baseline samples: one number per line, or a CSV file")->required();
    cmd->add_option("--treatment", o->treatment, "Treatment samples, same format")->required();
    cmd->add_option("--direction", o->direction, "lower (default) or higher is better")->each([o](const std::string&) {
        o->direction_given = true;
    });
    cmd->add_option("--profile", o->profile, "Threshold profile: generic (default), strict or speedup");
    const std::pair<const char*, const char*> numbers[] = {
        {"--min-n", "min_n"},
        {"--license-pct", "license_pct"},
        {"--kill-pct", "kill_pct"},
        {"--max-sigma-pct", "max_sigma_pct"},
        {"--unstable-sigma-pct", "unstable_sigma_pct"},
        {"--noise-k", "noise_k"},
        {"--license-speedup", "license_speedup"},
        {"--kill-speedup", "kill_speedup"},
    };
    for (const auto& [flag, key] : numbers)
        cmd->add_option(
            flag, o->overrides[key], fmt::format("Override the profile's {} (the profile becomes custom)", key));
    cmd->add_flag("--paired", o->paired, "Pair the i-th values of the two files (interleaved runs; equal counts)");
    cmd->add_option("--column", o->column, "The CSV column to read (both files)");
    cmd->add_flag("--json", o->json, "Print the verdict as one JSON object");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
