// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_lock.h"

#include "util/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

// The study itself, opened to lock its inode: without waiting (a FIFO would block the open) and
// only when it is a regular file. -1 when there is nothing to lock (no file yet: the load says
// why; a file this user cannot read: the load says so too).
int open_study_file(const std::filesystem::path& study)
{
    const int fd = ::open(link_target(study).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == EACCES || errno == ENOTDIR)
            return -1;
        throw std::runtime_error(
            fmt::format("{}: cannot open it to lock it: {}", study.string(), std::strerror(errno)));
    }
    struct stat st = {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        check_regular_or_absent(study); // throws NotARegularFile naming what it is
        throw std::runtime_error(fmt::format("{}: cannot be locked: not a regular file", study.string()));
    }
    return fd;
}

// Who holds a flock on the file open as `fd`, from /proc/locks ("1: FLOCK ADVISORY WRITE PID
// MAJ:MIN:INODE 0 EOF"): a holder through another name wrote its PID into another sidecar, which
// this name cannot find. A lock held from another host (NFS) is not listed here.
LockHolder flock_holder(int fd)
{
    LockHolder h;
    h.host = "an unknown host";
    struct stat st = {};
    if (::fstat(fd, &st) != 0)
        return h;
    std::ifstream locks("/proc/locks");
    std::string line;
    while (std::getline(locks, line)) {
        std::istringstream in(line);
        std::string number, kind, advisory, mode, file;
        long pid = 0;
        if (!(in >> number >> kind) || kind != "FLOCK" || !(in >> advisory >> mode >> pid >> file))
            continue; // "->" lines are waiters, not holders
        unsigned maj = 0, min = 0;
        unsigned long long ino = 0;
        if (std::sscanf(file.c_str(), "%x:%x:%llu", &maj, &min, &ino) == 3 && maj == ::major(st.st_dev)
            && min == ::minor(st.st_dev) && ino == static_cast<unsigned long long>(st.st_ino)) {
            h.pid = pid;
            h.host = this_host();
            break;
        }
    }
    return h;
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
    , file_fd_(other.file_fd_)
    , lock_path_(std::move(other.lock_path_))
{
    other.fd_ = -1;
    other.file_fd_ = -1;
}

StudyLock& StudyLock::operator=(StudyLock&& other) noexcept
{
    if (this != &other) {
        release();
        fd_ = other.fd_;
        file_fd_ = other.file_fd_;
        lock_path_ = std::move(other.lock_path_);
        other.fd_ = -1;
        other.file_fd_ = -1;
    }
    return *this;
}

StudyLock::~StudyLock()
{
    release();
}

bool StudyLock::lock_the_file(const std::filesystem::path& study, LockHolder* holder)
{
    const int fd = open_study_file(study);
    if (fd < 0)
        return true;
    for (int attempt = 0;; ++attempt) {
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        const int err = errno;
        if (err == EWOULDBLOCK && attempt < 5) { // a window's look (study_lock_holder), as for the sidecar
            ::usleep(20000);
            continue;
        }
        if (err == EWOULDBLOCK && holder)
            *holder = flock_holder(fd);
        ::close(fd);
        if (err == EWOULDBLOCK)
            return false;
        throw std::runtime_error(fmt::format("{}: cannot lock it: {}", study.string(), std::strerror(err)));
    }
    struct stat st = {};
    if (::fstat(fd, &st) == 0 && st.st_nlink > 1)
        file_fd_ = fd; // held to the end: another name keeps this inode after our first save
    else
        ::close(fd); // no other name can reach it; the sidecar covers this one
    return true;
}

std::optional<StudyLock> StudyLock::try_acquire(const std::filesystem::path& study, LockHolder* holder)
{
    check_regular_or_absent(study); // before the sidecar: /dev/null must not get /dev/.null.lock
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
        if (!lock.lock_the_file(study, holder))
            return std::nullopt; // held through another name (a hard link); ours is removed again
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
    if (file_fd_ >= 0)
        ::close(file_fd_);
    file_fd_ = -1;
}

std::optional<LockHolder> study_lock_holder(const std::filesystem::path& study)
{
    std::optional<LockHolder> holder;
    const auto path = study_lock_path(study);
    if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
        if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK)
                holder = read_holder(fd);
        } else {
            ::flock(fd, LOCK_UN);
        }
        ::close(fd);
    }
    if (holder)
        return holder;
    // Held through another name of the same file (a hard link)?
    int fd = -1;
    try {
        fd = open_study_file(study);
    } catch (const std::exception&) {
        return std::nullopt; // not a regular file: nobody runs it
    }
    if (fd < 0)
        return std::nullopt;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            holder = flock_holder(fd);
    } else {
        ::flock(fd, LOCK_UN);
    }
    ::close(fd);
    return holder;
}

} // namespace kwb
