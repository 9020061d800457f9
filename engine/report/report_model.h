// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The verdict report of a study: the wins / errors entry of the playbook, as one model from which
// every format (Markdown, HTML, PDF, JSON) is rendered, so the formats never disagree. The model
// holds what the study recorded plus the numbers the engine's statistics compute from its samples;
// it judges nothing (verdict words and reasons are those stored by the verdict engine, read through
// verdict_access.h). docs/report.md describes the model and the formats.

#include "report/kernels_report.h"
#include "report/verdict_access.h"
#include "run/aa_history.h"
#include "stats/bimodality.h"
#include "stats/descriptive.h"
#include "study/arm_diff.h"
#include "study/study.h"
#include "verdict/delta_lines.h"
#include "verdict/evidence.h"
#include "verdict/metric_diff.h"
#include "verdict/roofline.h"
#include "verdict/verdict_story.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace kwb::report {

// Where the study came from: what makes every number traceable.
struct Provenance {
    std::string workbench_version; // kwb version that rendered the report
    std::string generated_at; // ISO 8601 UTC
    std::string study_path;
    std::string study_sha256; // of the file's bytes as read
    std::string command_line; // the command that rendered the report (empty from the window)
};

struct ArmReport {
    std::string name;
    nlohmann::json params;
    std::string command; // an external-command arm's command line; empty for built-in workloads
    std::vector<double> values; // judged repetitions of the target metric, in run order
    std::optional<stats::ArmSummary> summary; // null when the arm has no judged repetition
    stats::Bimodality bimodality;
    int warmups = 0;
    int discarded = 0;
    int throttled = 0; // judged repetitions flagged throttled
    std::optional<CorrectnessCheck> check;
};

// One control of the matched-controls checklist: ticked by the user, and whether the run's own
// records confirm it (a measured fact), contradict it, or say nothing about it.
struct ControlRow {
    std::string name;
    bool checked = false;
    std::string measured; // "", or the recorded fact, e.g. "all samples on NVIDIA H200"
};

// Ranges of what the device did during the judged repetitions (absent where not recorded).
struct Range {
    double min = 0;
    double max = 0;
};

// The real A/A of an experiment (study/arm_roles.h): the baseline's configuration run again as its
// own arm, judged against the baseline at the A/B's n (verdict/aa_verdict.h). As stored in the
// study's aa_verdict, never recomputed.
struct AaReport {
    std::string arm; // "baseline-aa"; a grid's: "r0c0-aa"
    std::string grid; // the grid whose A/A this is (its cell carries it); empty for an A/B's
    bool judged = false; // false: the arm has no verdict yet
    std::size_t n = 0; // runs per arm it was judged on (the smaller of the two)
    std::string word; // NOISE, LICENSE, KILL, INCONCLUSIVE; empty until judged
    std::optional<double> delta_pct;
    std::optional<std::array<double, 2>> ci95_delta_pct;
    bool false_alarm = false; // judged, and any word but NOISE
    std::string summary; // "A/A at n = 6: NOISE, delta 0.3% [-0.4, 1]", or "no verdict yet"
};

// The per-device A/A history (run/aa_history.h) of the devices this study's experiments ran on,
// attached by the caller (attach_aa_history): the report of a file alone cannot know the history
// of the machine it is read on.
struct AaHistoryReport {
    bool attached = false; // false: the report was built without the history
    std::string source; // the history file it was read from
    std::string problem; // why it could not be read; empty when it was
    std::vector<std::string> devices; // the models of the study's experiments, in order
    std::vector<AaFalseAlarmRate> rates; // one per device that has A/A runs in the history
};

struct ExperimentReport {
    std::string id;
    std::string kind;
    std::string workload;
    std::string backend;
    std::string metric;
    std::string unit;
    Direction direction = Direction::Lower;
    std::string status;
    std::string stop_reason;
    std::string error;
    RunPlan plan;
    std::optional<int> launches_per_rep;
    DeviceIdentity device;
    std::vector<std::string> limitations;
    std::vector<std::string> missing_gates;
    std::vector<std::string> guard_metrics;
    std::string profile_name;
    ArmDiff diff; // the first two arms' (study/arm_diff.h diff_arm_pair): commands' settings or parameters
    bool command_arms = false; // external commands: the diff names settings, not variables
    bool acknowledged_multi_variable = false;
    std::vector<ArmReport> arms;
    std::vector<ControlRow> controls;
    std::string controls_notes;
    std::optional<SampleEvidence> evidence; // arms[0] against arms[1]; null unless both have runs
    StoredVerdict sample;
    StoredVerdict final;
    // The verdict as one story (verdict/verdict_story.h), the sentences the window and kwb run say;
    // null until both verdicts exist.
    std::optional<VerdictStory> story;
    std::optional<SplitHalfCheck> split_half;
    std::optional<AaReport> aa; // null: the experiment has no A/A arm
    std::vector<SamplerLane> lanes;
    // Every lane of the baseline against the treatment (verdict/metric_diff.h); null without lanes.
    std::optional<MetricDiff> metric_diff;
    std::vector<Sample> samples; // every repetition, for the timeline
    std::optional<Range> clock_mhz;
    std::optional<Range> temperature_c;
    std::optional<Range> power_w;
    std::string first_sample_at;
    std::string last_sample_at;
    // The thresholds of the profile on the delta% axis (kill, license) and its noise k, for charts.
    std::vector<DeltaLine> delta_lines; // verdict/delta_lines.h: the window's sigma chart draws the same
    double noise_k = 2;
    // The A/B's roofline (verdict/roofline.h) against the roofs the study records; null without
    // a baseline and a treatment.
    std::optional<Roofline> roofline;
    // The kernels of both arms (report/kernels_report.h), from the study's STUDY.kernels.json; null
    // when the report has no study path or the experiment's arms have no inventory.
    std::optional<KernelsReport> kernels;
};

// One cell of a grid group (study.grids): the cell experiment's own stored verdict, never
// recomputed, as the window's heat map reads it (widgets/models/grid_view.cpp).
struct GridGroupCell {
    int row = 0;
    int col = 0;
    std::string label; // "r1c0"
    bool baseline = false; // the baseline cell r0c0 (no experiment of its own)
    std::string experiment_id; // empty for the baseline cell and a cell missing from the study
    std::string status;
    std::optional<double> delta_pct;
    std::optional<std::array<double, 2>> ci95_delta_pct;
    std::optional<double> sigma_pct;
    std::size_t n_baseline = 0;
    std::size_t n_treatment = 0;
    std::string verdict; // final verdict word; empty until judged
    std::string ran_on; // spread-out runs: where the cell ran (study_parts.h where_it_ran); else empty
};

// A grid is reported once, as its group (Report::grids): its cells are ordinary two-arm
// experiments in Report::experiments, and the group's heat map is the window's grid page.
struct GridGroupReport {
    std::string id;
    std::string metric;
    std::string row_variable, col_variable;
    std::vector<std::string> row_levels, col_levels; // as written in the study
    std::vector<GridGroupCell> cells; // every cell, row-major, the baseline cell included
    std::optional<GridInteraction>
        interaction; // as stored (study/grid_interaction_record.h), null until every cell is judged
    std::vector<std::string> pending; // cells not judged yet
};

GridGroupReport grid_group_report(const Study& study, const GridGroup& grid);

struct Report {
    std::string name;
    std::string description;
    std::string created_at;
    std::string modified_at;
    int schema_version = 0;
    Target target;
    HardwareSnapshot hardware;
    BindingEvidence binding;
    Prediction prediction;
    std::vector<Tradeoff> tradeoffs;
    std::vector<LedgerEntry> ledger;
    std::vector<ExperimentReport> experiments;
    std::vector<GridGroupReport> grids; // schema 3 grid groups, each drawn as a heat map
    AaHistoryReport aa_history;
    Provenance provenance;
    // The study's verdict: the final verdict of its last judged experiment (the latest attempt).
    std::string final_word; // empty when nothing was judged
    std::string final_experiment;
    // Why STUDY.kernels.json could not be read (malformed); empty when it was, or is absent.
    std::string kernels_problem;
};

// Builds the report. `provenance` is filled by the caller (path, hash, command line); its version
// and generated_at are filled here when empty.
Report build_report(const Study& study, Provenance provenance);

// Whether any experiment of the report has an A/A arm.
bool has_aa_arm(const Report& r);

// Attaches the per-device A/A history: the false-alarm rate of every device model the study's
// experiments ran on, over `history` (read from `source`).
void attach_aa_history(Report& r, const std::vector<AaHistoryEntry>& history, std::string source);
// The same, read from this machine's history (run/aa_history.h aa_history_path()); a history that
// cannot be read is named in aa_history.problem, never an error of the report.
void attach_aa_history(Report& r);

// Convenience: loads the file (throws StudyLoadError), hashes its bytes and builds the report.
Report report_from_file(const std::string& path, const std::string& command_line);

} // namespace kwb::report
