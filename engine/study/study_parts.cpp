// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_parts.h"

#include "study/path_names.h"
#include "study/study_json.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <system_error>

namespace kwb {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPartSuffix = ".json";

fs::path resolved(const fs::path& study)
{
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(study, ec);
    return ec ? study : target;
}

bool finished(ExperimentStatus s)
{
    return s == ExperimentStatus::Done || s == ExperimentStatus::Failed;
}

} // namespace

fs::path parts_dir(const fs::path& study)
{
    const fs::path target = resolved(study);
    return target.parent_path() / (target.filename().string() + ".parts");
}

fs::path part_path(const fs::path& study, const std::string& id)
{
    // The loader and --cell refuse such ids first; this is the last line, so that no caller can
    // ever put a part outside STUDY.parts/.
    if (const auto problem = path_name_problem(id); !problem.empty())
        throw std::invalid_argument(
            fmt::format("experiment id {} {}: no part file can be named after it", shown_name(id), problem));
    return parts_dir(study) / (id + std::string(kPartSuffix));
}

std::vector<std::string> part_ids(const fs::path& study)
{
    std::vector<std::string> ids;
    std::error_code ec;
    for (fs::directory_iterator it(parts_dir(study), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        // Hidden files are locks and temporaries of saves, not parts.
        if (name.empty() || name[0] == '.' || !name.ends_with(kPartSuffix) || !it->is_regular_file(ec))
            continue;
        // A file no experiment id could have named is not a part (and part_path() refuses it).
        std::string id = name.substr(0, name.size() - kPartSuffix.size());
        if (path_name_problem(id).empty())
            ids.push_back(std::move(id));
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

Study make_part(const Study& study, const std::string& id)
{
    const Experiment* e = study.find_experiment(id);
    if (!e)
        throw std::invalid_argument(fmt::format("the study has no experiment '{}'", id));
    Study part = study;
    part.experiments = {*e};
    std::erase_if(part.ledger, [&](const LedgerEntry& l) { return l.experiment_id != id; });
    return part;
}

std::string part_problem(const Study& part, const std::string& id)
{
    if (part.experiments.size() != 1)
        return fmt::format("a part holds one experiment ({}), this one holds {}", id, part.experiments.size());
    if (part.experiments[0].id != id)
        return fmt::format("holds experiment '{}', not '{}'", part.experiments[0].id, id);
    return {};
}

bool holds_all_samples_of(const Experiment& copy, const Experiment& original)
{
    if (copy.samples.size() < original.samples.size())
        return false;
    for (size_t i = 0; i < original.samples.size(); ++i) {
        const Sample& a = copy.samples[i];
        const Sample& b = original.samples[i];
        if (a.arm != b.arm || a.position != b.position || a.warmup != b.warmup || a.started_at != b.started_at)
            return false;
    }
    return true;
}

nlohmann::json measured_state(const Experiment& e)
{
    Study one;
    one.experiments = {e};
    nlohmann::json j = study_to_json(one).at("experiments").at(0);
    for (const char* judged : {"verdict", "final_verdict", "split_half_check", "aa_verdict"})
        j.erase(judged);
    return j;
}

FoldOutcome fold_part(Study& study, const Study& part)
{
    if (part.experiments.size() != 1)
        return FoldOutcome::NotInStudy;
    const Experiment& from = part.experiments[0];
    Experiment* into = study.find_experiment(from.id);
    if (!into)
        return FoldOutcome::NotInStudy;
    if (measured_state(*into) == measured_state(from))
        return FoldOutcome::Unchanged;
    if (!holds_all_samples_of(from, *into))
        return FoldOutcome::Behind;
    // Same samples but the study's copy has moved on (done, judged) while the part has not: the
    // part is an older picture of the same run.
    if (from.samples.size() == into->samples.size() && from.status != into->status && finished(into->status))
        return FoldOutcome::Behind;
    *into = from;
    return FoldOutcome::Folded;
}

std::string_view to_string(FoldOutcome o)
{
    switch (o) {
    case FoldOutcome::Folded:
        return "folded";
    case FoldOutcome::Unchanged:
        return "unchanged";
    case FoldOutcome::Behind:
        return "behind the study (left alone)";
    case FoldOutcome::NotInStudy:
        return "not an experiment of the study";
    }
    return "";
}

std::string where_it_ran(const Experiment& e)
{
    if (!e.placement)
        return {};
    std::string where;
    if (e.device.kind == "cuda" && e.device.index)
        where = fmt::format("GPU {}", *e.device.index);
    else if (e.placement->device)
        where = fmt::format("device {}", *e.placement->device);
    if (!e.placement->slurm_job.empty() && !e.placement->host.empty())
        where += (where.empty() ? "" : " on ") + e.placement->host;
    return where;
}

} // namespace kwb
