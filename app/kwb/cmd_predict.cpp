// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb predict STUDY [--json]`: evaluates the study's prediction formula with its variables and
// prints the predicted delta% and speedup (spec/cli.md). A formula that does not parse or evaluate
// is bad input: exit 2, one line naming the position. Nothing is written: loading and saving a
// study already keep its stored prediction equal to the formula's value (formula/prediction.h).
#include "commands.h"
#include "formula/prediction.h"
#include "study/study_file.h"

#include <algorithm>
#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

struct PredictOptions {
    std::string study;
    bool json = false;
};

nlohmann::json optional_number(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const Study& study, const PredictionResult& r)
{
    nlohmann::json variables = nlohmann::json::array();
    for (const auto& v : r.variables)
        variables.push_back({{"name", v.name}, {"value", v.value}, {"source", v.source}, {"note", v.note}});
    nlohmann::json error = nullptr;
    if (r.evaluation.error) {
        const auto& e = *r.evaluation.error;
        error = {{"message", e.message},
            {"position", e.offset < 0 ? nlohmann::json(nullptr) : nlohmann::json(e.position())}, {"token", e.token}};
    }
    return {{"formula", study.prediction.formula}, {"predicted_delta_pct", optional_number(r.delta_pct)},
        {"speedup", optional_number(r.speedup)}, {"direction", to_string(r.direction)}, {"metric", study.target.metric},
        {"used", r.evaluation.used}, {"variables", variables}, {"error", error}};
}

int run(const PredictOptions& o)
{
    Study study;
    try {
        study = load_study(o.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    const PredictionResult r = evaluate_prediction(study);
    if (r.evaluation.error) {
        // The JSON still goes to stdout so a tool can place the cursor; the line on stderr says it.
        if (o.json)
            fmt::print("{}\n", to_json(study, r).dump(2));
        throw BadInput(fmt::format("{}: prediction.formula: {}", o.study, r.evaluation.error->text()));
    }
    if (o.json) {
        fmt::print("{}\n", to_json(study, r).dump(2));
        return kOk;
    }
    const std::string metric = study.target.metric.empty() ? std::string("the target metric") : study.target.metric;
    fmt::print("formula: {}\n", study.prediction.formula);
    for (const auto& v : r.variables)
        if (std::find(r.evaluation.used.begin(), r.evaluation.used.end(), v.name) != r.evaluation.used.end())
            fmt::print("  {} = {:g}  ({}{}{})\n", v.name, v.value, v.source, v.note.empty() ? "" : ": ", v.note);
    fmt::print("predicted delta: {:+.2f}% ({}, {} is better; positive = better)\n", *r.delta_pct, metric,
        to_string(r.direction));
    if (r.speedup)
        fmt::print("predicted speedup: {:.3f}x\n", *r.speedup);
    else
        fmt::print("predicted speedup: none (a delta of {:.2f}% leaves no positive ratio)\n", *r.delta_pct);
    return kOk;
}

} // namespace

void add_predict_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("predict", "Evaluate the study's prediction formula: predicted delta% and speedup");
    auto o = std::make_shared<PredictOptions>();
    cmd->add_option("STUDY", o->study, "The study file")->required();
    cmd->add_flag("--json", o->json, "Print one JSON object on stdout");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
