// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_lock.h"

#include "util/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kwb {
namespace {

std::string this_host()
{
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0)
        return "unknown host";
    return name;
}

LockHolder read_holder(int fd)
{
    LockHolder h;
    char buf[512] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n > 0) {
        char host[300] = {};
        if (std::sscanf(buf, "%ld %299s", &h.pid, host) >= 1)
            h.host = host;
    }
    if (h.host.empty())
        h.host = "an unknown host";
    return h;
}

// The file a descriptor has open is still the one the path names (a releasing holder unlinks the
// lock file; a lock taken on the unlinked inode would lock nothing).
bool still_linked(int fd, const std::filesystem::path& path)
{
    struct stat a = {}, b = {};
    return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

std::string LockHolder::describe() const
{
    return pid > 0 ? fmt::format("PID {} on host {}", pid, host) : fmt::format("a process on {}", host);
}

std::filesystem::path study_lock_path(const std::filesystem::path& study)
{
    const auto target = link_target(study);
    const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    return dir / ("." + target.filename().string() + ".lock");
}

StudyLock::StudyLock(StudyLock&& other) noexcept
    : fd_(other.fd_)
    , lock_path_(std::move(other.lock_path_))
{
    other.fd_ = -1;
}

StudyLock& StudyLock::operator=(StudyLock&& other) noexcept
{
    if (this != &other) {
        release();
        fd_ = other.fd_;
        lock_path_ = std::move(other.lock_path_);
        other.fd_ = -1;
    }
    return *this;
}

StudyLock::~StudyLock()
{
    release();
}

std::optional<StudyLock> StudyLock::try_acquire(const std::filesystem::path& study, LockHolder* holder)
{
    const auto path = study_lock_path(study);
    for (int attempt = 0; attempt < 100; ++attempt) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            throw std::runtime_error(fmt::format(
                "{}: cannot create the lock file {}: {}", study.string(), path.string(), std::strerror(errno)));
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            if (err == EWOULDBLOCK) {
                // A window that only looks (study_lock_holder takes a shared lock for a moment)
                // must not turn a run away: try a few times before naming the holder.
                if (attempt < 5) {
                    ::close(fd);
                    ::usleep(20000);
                    continue;
                }
                if (holder)
                    *holder = read_holder(fd);
                ::close(fd);
                return std::nullopt;
            }
            ::close(fd);
            throw std::runtime_error(
                fmt::format("{}: cannot lock {}: {}", study.string(), path.string(), std::strerror(err)));
        }
        if (!still_linked(fd, path)) { // the previous holder unlinked it between our open and flock
            ::close(fd);
            continue;
        }
        const std::string who = fmt::format("{} {}\n", static_cast<long>(::getpid()), this_host());
        if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, who.data(), who.size(), 0) != static_cast<ssize_t>(who.size())) {
            // The lock itself holds; only the description is missing. Say "unknown" rather than fail.
        }
        StudyLock lock;
        lock.fd_ = fd;
        lock.lock_path_ = path;
        return lock;
    }
    throw std::runtime_error(fmt::format("{}: cannot lock {}: it keeps being replaced", study.string(), path.string()));
}

void StudyLock::release()
{
    if (fd_ < 0)
        return;
    // Unlink while still holding the lock, so nothing beside the study outlives the run; a process
    // that opened the old file meanwhile sees it unlinked after its flock and tries again.
    ::unlink(lock_path_.c_str());
    ::close(fd_);
    fd_ = -1;
}

std::optional<LockHolder> study_lock_holder(const std::filesystem::path& study)
{
    const auto path = study_lock_path(study);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::optional<LockHolder> holder;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            holder = read_holder(fd);
    } else {
        ::flock(fd, LOCK_UN);
    }
    ::close(fd);
    return holder;
}

} // namespace kwb
