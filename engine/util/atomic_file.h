// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string_view>

namespace kwb {

// Writes `contents` to `path` so that a reader sees either the old file or the new one, never a
// half-written one: write a temporary file in the same directory, fsync it, rename it over the
// target, fsync the directory. Throws std::runtime_error naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Throws std::runtime_error naming the path when write_file_atomically() could not replace it:
// the file exists and is not writable (a read-only study is not silently replaced), or no
// temporary file can be created beside it. Leaves nothing behind.
void check_replaceable(const std::filesystem::path& path);

// Reads a whole file; throws std::runtime_error naming the path when it cannot.
std::string read_file(const std::filesystem::path& path);

} // namespace kwb
