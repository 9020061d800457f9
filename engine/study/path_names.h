// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <cstddef>
#include <string>
#include <string_view>

// Names that become part of a path: experiment ids (STUDY.parts/ID.json, report charts
// ID-distributions.png), grid ids (cell ids, charts) and arm names. One rule for all of them,
// checked where a study is loaded and where such a name is made, so a study can never steer a
// file out of its folder ("../x", "/etc/x") or onto a name the shell or the filesystem mangles.
namespace kwb {

// Long enough for any id kwb makes ("grid-12-r3c3", "ab-1-7"), short enough that every file made
// from one ("." NAME ".json.PID.XXXXXX" beside a part) stays well inside NAME_MAX (255).
inline constexpr std::size_t kMaxPathNameLength = 100;

// Empty when `name` is usable: 1 to kMaxPathNameLength characters among ASCII letters, digits and
// "-_.=+,@", not starting with '.' (hidden files, "..") or '-' (read as an option by kwb and
// sbatch). Otherwise the problem in a few words, e.g. "contains '/'".
std::string path_name_problem(std::string_view name);

// `name` for a one-line message: in double quotes, JSON-escaped (control characters and bytes
// that are not UTF-8 cannot garble the terminal), cut after 40 characters.
std::string shown_name(std::string_view name);

// Ids name files (parts, charts) and are looked up by --cell: two experiments (or two grids) of one
// id would share them. The first clash as "field 'experiments[3].id': two experiments have the id
// 'ab-1' (experiments[0] and [3]); ids must be unique in a study"; empty when every id is unique.
// The loader and the run session both ask it.
std::string duplicate_id_problem(const Study& study);

// "STEM-N" for the first N from `first_number` that no experiment of `study` has. A stem too long
// for the suffix is cut, so the result always passes path_name_problem() when the stem does.
std::string unique_experiment_id(const Study& study, std::string_view stem, int first_number);

} // namespace kwb
