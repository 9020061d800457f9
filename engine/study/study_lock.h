// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>

// One writer per study. `kwb run` holds an exclusive flock(2) on a sidecar file `.STUDY.lock`
// beside the study for as long as it runs; the lock file holds "PID HOST" so a second writer can
// say who has it. Why a sidecar and not the study itself: every save replaces the study by an
// atomic rename, and a lock on the old inode would be lost with it. Why flock: the kernel drops
// it when the process dies (crash, SIGKILL), so a stale lock never blocks the next run.
//
// One writer per FILE, not per name: a hard link gives the study a second name, and so a second
// sidecar. So the lock also takes a flock on the study's inode (device and inode number: what
// every name of it shares), and refuses when another process holds that one. After the holder's
// first save its name points at a new inode while the other name keeps the old one, so the holder
// keeps the old inode open and locked for as long as it runs, but only when another name exists
// (st_nlink > 1 at acquire): for the usual study of one name, keeping the replaced inode would hold
// a whole study's disk space until the run ends. Not seen: a hard link made while a run is going.
namespace kwb {

struct LockHolder {
    long pid = 0;
    std::string host;
    std::string describe() const; // "PID 1234 on host gpu-01"
};

// The lock file of a study: `.NAME.lock` in the study's directory (links followed, like saves).
std::filesystem::path study_lock_path(const std::filesystem::path& study);

class StudyLock {
public:
    StudyLock() = default;
    StudyLock(StudyLock&& other) noexcept;
    StudyLock& operator=(StudyLock&& other) noexcept;
    StudyLock(const StudyLock&) = delete;
    StudyLock& operator=(const StudyLock&) = delete;
    ~StudyLock();

    // Takes the lock without waiting. Returns an empty optional with `holder` set when another
    // live process holds it (through this name or another name of the same file); throws
    // NotARegularFile (util/atomic_file.h) for a study that is a device, FIFO, socket or
    // directory, std::runtime_error naming the path when the lock file cannot be created at all
    // (a read-only directory).
    static std::optional<StudyLock> try_acquire(const std::filesystem::path& study, LockHolder* holder);

    bool held() const { return fd_ >= 0; }
    void release();

private:
    bool lock_the_file(const std::filesystem::path& study, LockHolder* holder);

    int fd_ = -1; // the sidecar
    int file_fd_ = -1; // the study's inode, when it has another name (see above)
    std::filesystem::path lock_path_;
};

// Who holds the study's lock right now, if anyone (the window opens such a study read-only),
// through this name or another name of the same file. Never creates the lock file.
std::optional<LockHolder> study_lock_holder(const std::filesystem::path& study);

} // namespace kwb
