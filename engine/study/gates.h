// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// The playbook's gates (shared/methodology.md), owned here and nowhere else: `kwb run` records the
// ones a study skipped, the verdict's tradeoff rule asks `tradeoff_named`, and every page of the
// workbench asks these same functions before it enables a button or draws a tick. A page that
// decided any of this itself would sooner or later disagree with the verdict.
namespace kwb {

// One gate: which phase owns it, whether it is met, and the playbook's rule in one sentence
// (for the tooltip that explains why a button is locked).
struct Gate {
    std::string id; // "target", "krw", "binding", "prediction", "controls", "tradeoff"
    int phase = 0; // methodology phase 1..8
    bool met = false;
    std::string reason; // when not met: one plain sentence, starting with the gate's name
    std::string rule; // the playbook rule behind it, quoted for tooltips
};

// ---- Phase 1: "one metric, from X to Y", with numbers.
// Not met while the metric is empty or either number is missing or not a positive finite value.
Gate target_gate(const Target& target);
Gate krw_gate(const Target& target);

// ---- Phase 4: "no formula, no run".
Gate prediction_gate(const Prediction& prediction);

// ---- Phase 7: "no tradeoff named = not at the extremes".
// A sacrifice is named when its axis is marked sacrificed and the note says what (not blank).
bool names_sacrifice(const Tradeoff& tradeoff);
bool tradeoff_named(const std::vector<Tradeoff>& tradeoffs);
Gate tradeoff_gate(const std::vector<Tradeoff>& tradeoffs);
// The sentence the final verdict adds when it turns a LICENSE into INCONCLUSIVE for this gate.
const std::string& tradeoff_gate_reason();
// The playbook's question for one tradeoff axis ("LOC complexity: how many new state machines /
// branches / FFI calls added?"); empty for an axis it does not know.
std::string tradeoff_question(const std::string& axis);

// ---- Phase 5: the matched-controls checklist.
Gate controls_gate(const Controls& controls);

// The controls every new A/B starts with, in the order the page lists them.
const std::vector<std::string>& standard_controls();

// What the engine can tell about one control without asking the user. `measured` is empty when
// the control cannot be measured here (the user ticks it), else whether it holds; `how` says
// what was compared.
struct ControlMeasurement {
    std::string name;
    std::optional<bool> measured;
    std::string how;
};
// Records in the checklist what the run itself measured of the controls: "no other process on the
// device" ticked or failed from the CPU sampler's lane (study/machine_load.h). kwb run's judging
// calls it, so the study says what was measured even where no window ever opened it.
void record_run_measured_controls(Experiment& experiment);

// `defaults` are the workload's parameter defaults (for the arm diff); `current` the device that
// will run the experiment, when known. Only the standard controls are measured.
std::vector<ControlMeasurement> measure_controls(
    const Experiment& experiment, const nlohmann::json& defaults, const DeviceIdentity* current);

// ---- All gates of a study for one experiment, in phase order (phase 3's binding included).
std::vector<Gate> study_gates(const Study& study, const Experiment& experiment);

// The wizard gates a study did not meet when it ran (kwb run records them, it does not enforce
// them): one plain sentence each, starting with the gate's name.
std::vector<std::string> missing_gates(const Study& study, const Experiment& experiment);

// Why the workbench keeps Run locked, or nullopt when it may run: the target (phase 1) and the
// prediction (phase 4) must exist (the window enforces the gates that kwb run only records), and
// the arms must pass the rule kwb run asks too (study/experiment_shape.h: kind, names, one variable
// unless acknowledged; identical arms run as an A/A). `defaults` as for measure_controls.
std::optional<std::string> run_blocked(
    const Study& study, const Experiment* experiment, const nlohmann::json& defaults = nlohmann::json::object());

} // namespace kwb
