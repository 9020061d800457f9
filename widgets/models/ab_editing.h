// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

// The edits of the phase 5 arm editor, on the study itself (the page wraps each in an undo
// command). A single-variable A/B is kept single-variable by construction: a shared parameter is
// set on both arms at once, and only the one varied parameter may differ. Whether the result is
// single-variable is still the engine's arm diff to say (study/arm_diff.h).
namespace kwb::gui {

// A new two-arm A/B of a built-in workload on the cpu backend: every parameter stored on both
// arms (defaults filled in), the target's metric when the workload has it, the standard
// controls unticked, the generic profile. Throws std::invalid_argument for an unknown workload.
Experiment makeAbExperiment(const Study& study, const std::string& workload);
std::string nextExperimentId(const Study& study, const std::string& stem = "ab");

// Replaces the workload: the arms start over from its defaults.
void setWorkload(Experiment& e, const std::string& workload);

// A shared parameter: both arms get the value.
void setShared(Experiment& e, const std::string& name, const nlohmann::json& value);
// The baseline (arm 0) or treatment (arm 1) value of the varied parameter.
void setArmValue(Experiment& e, int arm, const std::string& name, const nlohmann::json& value);
// A treatment value for `name` while `varied` is the parameter under test: refused (an error
// sentence) when it would make a second parameter differ; applied otherwise.
std::optional<std::string> setTreatmentValue(
    Experiment& e, const std::string& varied, const std::string& name, const nlohmann::json& value);
// Moves the varied parameter: the old one's treatment value goes back to the baseline's.
void setVaried(Experiment& e, const std::string& oldVaried, const std::string& newVaried);

// The value typed in a cell: a number when it reads as one (integers stay integers), else text.
nlohmann::json parseCellValue(const std::string& text);

// The measurable controls ticked or unticked as the engine measured them; the others kept.
void applyMeasuredControls(Experiment& e, const DeviceIdentity* current);

} // namespace kwb::gui
