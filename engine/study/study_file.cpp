// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_file.h"

#include "formula/prediction.h"
#include "study/study_fast_read.h"
#include "study/study_json.h"
#include "study/study_text.h"
#include "util/atomic_file.h"

#include <chrono>
#include <fmt/chrono.h>
#include <fmt/format.h>

namespace kwb {
namespace {

// Version 1 held a name, a description and a bare target; version 2 is the full document.
void migrate_1_to_2(nlohmann::json& doc)
{
    for (const char* key : {"experiments", "tradeoffs", "ledger"})
        if (!doc.contains(key))
            doc[key] = nlohmann::json::array();
    if (doc.contains("notes") && doc["notes"].is_string()) {
        doc["description"] = doc.value("description", std::string()) + doc["notes"].get<std::string>();
        doc.erase("notes");
    }
    doc["schema_version"] = 2;
}

// Version 3 adds per-arm correctness checks, a device identity per experiment, NVML fields per
// sample and calibrated repetitions. A version-2 experiment was planned without calibration: it
// keeps the workload's own iteration count (min_rep_ms 0), so a resumed run stays comparable.
void migrate_2_to_3(nlohmann::json& doc)
{
    if (auto it = doc.find("experiments"); it != doc.end() && it->is_array())
        for (auto& e : *it)
            if (e.is_object()) {
                auto plan = e.find("plan");
                if (plan == e.end() || plan->is_null())
                    e["plan"] = {{"min_rep_ms", 0}};
                else if (plan->is_object() && !plan->contains("min_rep_ms"))
                    (*plan)["min_rep_ms"] = 0;
            }
    doc["schema_version"] = 3;
}

// Version 4 caps what a command arm's output may be (command.max_output_mib). An arm written
// before had no cap; it gets the default, stated in the file, so the next save shows what holds.
void migrate_3_to_4(nlohmann::json& doc)
{
    const auto array_at = [](nlohmann::json& object, const char* key) -> nlohmann::json* {
        if (!object.is_object())
            return nullptr;
        const auto it = object.find(key);
        return it != object.end() && it->is_array() ? &*it : nullptr;
    };
    if (auto* experiments = array_at(doc, "experiments"))
        for (auto& e : *experiments)
            if (auto* arms = array_at(e, "arms"))
                for (auto& a : *arms)
                    if (a.is_object() && a.contains("command") && a["command"].is_object()
                        && !a["command"].contains("max_output_mib"))
                        a["command"]["max_output_mib"] = CommandSpec {}.max_output_mib;
    doc["schema_version"] = 4;
}

// Version 5 adds worker arms (Arm::worker, docs/worker-protocol.md): a new optional field, so an
// older document needs nothing but its number; the step is kept so each change has its migration.
void migrate_4_to_5(nlohmann::json& doc)
{
    doc["schema_version"] = 5;
}

// Version 6 spells an experiment's device identity as the hardware sheet does: its model is
// `device.name` (kwb devices --json, spec/cli.md), no longer `device.model`.
void migrate_5_to_6(nlohmann::json& doc)
{
    if (const auto experiments = doc.find("experiments"); experiments != doc.end() && experiments->is_array())
        for (auto& e : *experiments) {
            if (!e.is_object())
                continue;
            const auto device = e.find("device");
            if (device == e.end() || !device->is_object() || !device->contains("model"))
                continue;
            if (!device->contains("name"))
                (*device)["name"] = (*device)["model"];
            device->erase("model");
        }
    doc["schema_version"] = 6;
}

// Version 7 lets an experiment declare fingerprint fields expected to differ between its arms
// (`expect_differ`, kwb new --expect-differ): a new optional field, absent meaning none, so an
// older document needs nothing but its number.
void migrate_6_to_7(nlohmann::json& doc)
{
    doc["schema_version"] = 7;
}

// Version 8 records a commit arm's commit as the arm's own field (`git`, docs/git-arms.md): version
// 7 kept it in the command's or worker's environment as KWB_GIT_*. They move out of the
// environment into `git`; kwb sets them in the program's environment when it launches it.
void migrate_7_to_8(nlohmann::json& doc)
{
    static const std::pair<const char*, const char*> kFields[] = {{"KWB_GIT_REPO", "repo"}, {"KWB_GIT_REF", "ref"},
        {"KWB_GIT_SHA", "sha"}, {"KWB_GIT_DIFF_SHA256", "diff_sha256"}, {"KWB_GIT_BUILD", "build"}};
    static const std::pair<const char*, const char*> kToolchain[]
        = {{"KWB_GIT_CXX", "compiler"}, {"KWB_GIT_CUDA", "cuda"}, {"KWB_GIT_DRIVER", "driver"}};
    const auto env_of = [](nlohmann::json& arm) -> nlohmann::json* {
        for (const char* kind : {"command", "worker"})
            if (const auto spec = arm.find(kind); spec != arm.end() && spec->is_object())
                if (const auto env = spec->find("env"); env != spec->end() && env->is_object())
                    return &*env;
        return nullptr;
    };
    const auto take = [](nlohmann::json& env, const char* key) {
        const auto it = env.find(key);
        if (it == env.end())
            return nlohmann::json(std::string());
        nlohmann::json value = *it;
        env.erase(it);
        return value;
    };
    if (const auto experiments = doc.find("experiments"); experiments != doc.end() && experiments->is_array())
        for (auto& e : *experiments) {
            if (!e.is_object() || !e.contains("arms") || !e["arms"].is_array())
                continue;
            for (auto& arm : e["arms"]) {
                nlohmann::json* env = arm.is_object() ? env_of(arm) : nullptr;
                if (!env || !env->contains("KWB_GIT_SHA"))
                    continue;
                nlohmann::json git = nlohmann::json::object();
                for (const auto& [from, to] : kFields)
                    git[to] = take(*env, from);
                for (const auto& [from, to] : kToolchain)
                    git["toolchain"][to] = take(*env, from);
                arm["git"] = std::move(git);
            }
        }
    doc["schema_version"] = 8;
}

// Version 9 records a kwb bisect step's search (`bisect`: its bad commit and the commits left): a
// new optional field, absent on every other experiment, so an older document needs only its number.
void migrate_8_to_9(nlohmann::json& doc)
{
    doc["schema_version"] = 9;
}

} // namespace

void migrate_study_json(nlohmann::json& doc)
{
    if (!doc.is_object())
        throw FormatError(
            fmt::format("not a Kernel Workbench study (the document is {}, not an object)", doc.type_name()));
    const auto it = doc.find("schema_version");
    if (it == doc.end())
        throw FormatError("not a Kernel Workbench study (field 'schema_version' missing)");
    if (!it->is_number_integer())
        throw FormatError("field 'schema_version': expected an integer");
    // Compared as a 64-bit value: 4294967298 must not read as 2.
    const long long version = it->is_number_unsigned() && it->get<unsigned long long>() > kStudySchemaVersion
        ? static_cast<long long>(kStudySchemaVersion) + 1
        : it->get<long long>();
    if (version < 1)
        throw FormatError(fmt::format("field 'schema_version': {} is not a valid version", version));
    if (version > kStudySchemaVersion)
        throw FormatError(
            fmt::format("field 'schema_version': {} was written by a newer Kernel Workbench (this one reads up to {})",
                it->dump(), kStudySchemaVersion));
    if (version == 1)
        migrate_1_to_2(doc);
    if (version <= 2)
        migrate_2_to_3(doc);
    if (version <= 3)
        migrate_3_to_4(doc);
    if (version <= 4)
        migrate_4_to_5(doc);
    if (version <= 5)
        migrate_5_to_6(doc);
    if (version <= 6)
        migrate_6_to_7(doc);
    if (version <= 7)
        migrate_7_to_8(doc);
    if (version <= 8)
        migrate_8_to_9(doc);
}

Study parse_study(std::string_view text, const std::string& origin)
{
    // The fast path: the samples straight into their structs, the rest through nlohmann. Anything
    // it is not sure of, and every error, goes the ordinary way below, which words the error as it
    // always did.
    if (auto fast = read_study_fast(text)) {
        try {
            migrate_study_json(fast->document);
            Study study = study_from_json(fast->document);
            for (size_t i = 0; i < fast->samples.size() && i < study.experiments.size(); ++i)
                if (fast->samples[i])
                    study.experiments[i].samples = std::move(*fast->samples[i]);
            refresh_prediction(study);
            return study;
        } catch (const FormatError&) {
        }
    }
    nlohmann::json doc;
    // The last key the parser passed: a number beyond double range (1e400) is only found by the
    // lexer, and the error should still name the field it was written for.
    std::string last_key;
    const nlohmann::json::parser_callback_t note_key
        = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& value) {
              if (event == nlohmann::json::parse_event_t::key && value.is_string())
                  last_key = value.get_ref<const std::string&>();
              return true;
          };
    try {
        // No callback here: nlohmann's callback parser scans the enclosing array at the end of
        // every object, which is quadratic in the samples (11 s for 100,000 on the development
        // machine, bench/results/2026-11-30-distributions). The callback only names a field.
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::out_of_range& e) {
        try {
            const auto ignored = nlohmann::json::parse(text, note_key); // again, to learn the field it failed in
            static_cast<void>(ignored);
        } catch (const nlohmann::json::exception&) {
        }
        std::string what = e.what();
        if (const auto pos = what.find("] "); pos != std::string::npos)
            what = what.substr(pos + 2);
        throw StudyLoadError(fmt::format(
            "{}: field '{}': {} (beyond the range of a number)", origin, last_key.empty() ? "?" : last_key, what));
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann's message carries the byte offset; keep it, drop its "[json.exception...]" prefix.
        std::string what = e.what();
        if (const auto pos = what.find("] "); pos != std::string::npos)
            what = what.substr(pos + 2);
        throw StudyLoadError(fmt::format("{}: not valid JSON: {}", origin, what));
    }
    try {
        migrate_study_json(doc);
        Study study = study_from_json(doc);
        refresh_prediction(study); // the stored value is the formula's, never a typed one
        return study;
    } catch (const FormatError& e) {
        throw StudyLoadError(fmt::format("{}: {}", origin, e.what()));
    }
}

Study load_study(const std::filesystem::path& path)
{
    std::string text;
    try {
        text = read_file(path);
    } catch (const std::exception& e) {
        throw StudyLoadError(e.what());
    }
    return parse_study(text, path.string());
}

void save_study(Study& study, const std::filesystem::path& path)
{
    study.modified_at = utc_now_iso8601();
    if (study.created_at.empty())
        study.created_at = study.modified_at;
    study.schema_version = kStudySchemaVersion;
    refresh_prediction(study);
    write_file_atomically(path, study_text(study));
}

std::string utc_now_iso8601()
{
    const auto now = std::chrono::system_clock::now();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(now)), ms);
}

} // namespace kwb
