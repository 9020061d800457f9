// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <string>

// The one owner of "same device": an experiment's samples were taken on one device model, and
// continuing it on another would mix two populations into one verdict. `kwb run`, the hardware
// page and calibration all ask these functions.
namespace kwb {

class JsonReader;

// Kind and model equal (two H200s are the same device; an H200 and an H100 are not). An empty
// recorded identity (a study not yet run, or written before schema 3) matches anything.
bool same_device(const DeviceIdentity& recorded, const DeviceIdentity& current);

// Whether an experiment may go on collecting samples on `current`: it has no judged sample yet (it
// takes the device it runs on), or its samples were taken on the same device model. `kwb run`
// refuses the rest (or, with --new-device, starts a new experiment); the hardware page warns of them.
bool may_continue_on(const Experiment& experiment, const DeviceIdentity& current);

// "NVIDIA H200 (cuda 0, GPU-8c1a...)" or "Intel(R) Xeon(R) Processor (cpu)".
std::string describe(const DeviceIdentity& device);

// The identity of one entry of a hardware sheet (`kwb devices --json` "devices" element).
DeviceIdentity identity_from_sheet(const nlohmann::json& device);

// The one codec of a device identity, for the study file, the A/A history and the report's JSON:
// {"kind", "name", "uuid", "index" (null when unknown), "driver"}, "name" spelled as the hardware
// sheet spells it (an identity written before schema 6 said "model"; it is read too).
nlohmann::json device_identity_json(const DeviceIdentity& device);
// Reads it back; a field of the wrong type throws FormatError naming it (util/json_reader.h).
DeviceIdentity device_identity_from(const JsonReader& reader);

} // namespace kwb
