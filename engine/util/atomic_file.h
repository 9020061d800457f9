// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kwb {

// A path kwb was asked to write, or to lock as a study, that exists and is not a regular file (a
// device, a FIFO, a socket, a directory). Bad input: replacing /dev/null with a file, or waiting
// forever on a FIFO, is never what the user meant. what() is one line naming the path.
class NotARegularFile : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What the file at `path` is when it exists (links followed) and is not a regular file: "a
// character device", "a FIFO", "a directory"...; empty when it is a regular file or absent.
std::string non_regular_kind(const std::filesystem::path& path);

// Throws NotARegularFile naming `path` when non_regular_kind() is not empty: the one rule every
// writer of kwb and the window follows (write_file_atomically and check_replaceable call it).
void check_regular_or_absent(const std::filesystem::path& path);

// The file a path names once symbolic links are followed (at most 40 hops; a dangling or looping
// link stops where it breaks): saving or locking through a link must act on the study it points
// to, not replace the link with a plain file.
std::filesystem::path link_target(const std::filesystem::path& path);

// Writes `contents` to `path` so that a reader sees either the old file or the new one, never a
// half-written one: write a temporary file in the same directory, fsync it, rename it over the
// target, fsync the directory. Throws NotARegularFile for a target that is not a regular file,
// std::runtime_error naming the path on any other failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Throws when write_file_atomically() could not replace the path: NotARegularFile for a device,
// FIFO, socket or directory; std::runtime_error naming the path when the file exists and is not
// writable (a read-only study is not silently replaced), or no temporary file can be created
// beside it. Leaves nothing behind.
void check_replaceable(const std::filesystem::path& path);

// Removes the temporary files a killed write_file_atomically() left beside `path`
// (".NAME.PID.XXXXXX" whose PID no longer runs on this host; ".NAME.XXXXXX" from older versions
// when untouched for an hour). Call it while holding the study's lock. Returns what it removed.
std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& path);

// The largest file read_file() reads by default (a study of a million samples is about 400 MiB).
inline constexpr std::size_t kMaxReadBytes = std::size_t {1} << 30; // 1 GiB

// Reads a whole file; throws std::runtime_error naming the path when it cannot (a directory among
// them), or when it holds more than `max_bytes` (it stops reading there: /dev/zero does not grow
// without limit). A FIFO is opened without waiting for a writer: with none, it reads as empty.
std::string read_file(const std::filesystem::path& path, std::size_t max_bytes = kMaxReadBytes);

} // namespace kwb
