// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomic_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace kwb {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what)
{
    throw std::runtime_error(fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno)));
}

// ".NAME.PID.XXXXXX" beside the target: the PID says whether the process that made it still lives,
// so remove_stale_temporaries() can tell a save in flight from one a kill cut short.
std::string temporary_template(const std::filesystem::path& dir, const std::filesystem::path& target)
{
    return (dir / fmt::format(".{}.{}.XXXXXX", target.filename().string(), static_cast<long>(::getpid()))).string();
}

// Closes a descriptor on every way out of a scope (read_file throws from inside its loop).
class FdCloser {
public:
    explicit FdCloser(int fd)
        : fd_(fd)
    {
    }
    FdCloser(const FdCloser&) = delete;
    FdCloser& operator=(const FdCloser&) = delete;
    ~FdCloser() { ::close(fd_); }

private:
    int fd_;
};

bool all_digits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool alnum6(std::string_view s)
{
    return s.size() == 6
        && std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

} // namespace

std::filesystem::path link_target(const std::filesystem::path& path)
{
    std::filesystem::path target = path;
    std::error_code ec;
    for (int hops = 0; hops < 40 && std::filesystem::is_symlink(target, ec); ++hops) {
        const auto next = std::filesystem::read_symlink(target, ec);
        if (ec)
            break;
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    return target;
}

std::string non_regular_kind(const std::filesystem::path& path)
{
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0) // absent (or a dangling link): a save creates it
        return {};
    if (S_ISREG(st.st_mode))
        return {};
    if (S_ISCHR(st.st_mode))
        return "a character device";
    if (S_ISBLK(st.st_mode))
        return "a block device";
    if (S_ISFIFO(st.st_mode))
        return "a FIFO";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    if (S_ISDIR(st.st_mode))
        return "a directory";
    return "not a plain file";
}

void check_regular_or_absent(const std::filesystem::path& path)
{
    // Why refuse rather than write through: a rename over /dev/null replaces the device with a
    // file for every program on the machine, and a FIFO or socket holds no document to replace.
    if (const std::string kind = non_regular_kind(path); !kind.empty())
        throw NotARegularFile(fmt::format("{}: is {}, not a regular file", path.string(), kind));
}

std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& path)
{
    std::vector<std::filesystem::path> removed;
    const std::filesystem::path target = link_target(path);
    const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    const std::string prefix = "." + target.filename().string() + ".";
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string_view rest = std::string_view(name).substr(prefix.size());
        bool stale = false;
        if (const auto dot = rest.find('.');
            dot != std::string_view::npos && all_digits(rest.substr(0, dot)) && alnum6(rest.substr(dot + 1))) {
            // Ours: stale once its process is gone (ESRCH). EPERM means someone else's live process.
            const long pid = std::strtol(std::string(rest.substr(0, dot)).c_str(), nullptr, 10);
            stale = pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
        } else if (alnum6(rest)) {
            // Made by a version that did not name its PID: stale when untouched for an hour (no save
            // writes for that long).
            struct stat st = {};
            stale
                = ::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::time(nullptr) - st.st_mtime > 3600;
        }
        if (stale && it->is_regular_file(ec) && ::unlink(it->path().c_str()) == 0)
            removed.push_back(it->path());
    }
    return removed;
}

void check_replaceable(const std::filesystem::path& path)
{
    check_regular_or_absent(path);
    const std::filesystem::path target = link_target(path);
    if (::access(target.c_str(), F_OK) == 0 && ::access(target.c_str(), W_OK) != 0)
        fail(path, "cannot be written");
    const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    std::string tmpl = temporary_template(dir, target);
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        fail(path, "cannot create a temporary file beside it");
    ::close(fd);
    ::unlink(tmpl.c_str());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents)
{
    check_regular_or_absent(path);
    const std::filesystem::path target = link_target(path); // errors still name `path`, as given
    const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    std::string tmpl = temporary_template(dir, target);
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        fail(path, "cannot create a temporary file beside it");
    const char* data = contents.data();
    size_t left = contents.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            ::unlink(tmpl.c_str());
            fail(path, "cannot write");
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    // The file keeps its permissions when it exists, else gets those a plain create would give
    // it (mkstemp makes it 0600).
    struct stat old = {};
    if (::stat(target.c_str(), &old) == 0) {
        ::fchmod(fd, old.st_mode & 07777);
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(tmpl.c_str());
        fail(path, "cannot flush");
    }
    if (::rename(tmpl.c_str(), target.c_str()) != 0) {
        ::unlink(tmpl.c_str());
        fail(path, "cannot replace");
    }
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

std::string read_file(const std::filesystem::path& path, std::size_t max_bytes)
{
    // O_NONBLOCK for the open alone: opening a FIFO waits for a writer, forever if none comes.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        fail(path, "cannot open");
    const FdCloser closer(fd);
    struct stat st = {};
    if (::fstat(fd, &st) != 0)
        fail(path, "cannot read");
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        throw std::runtime_error(fmt::format("{}: is a directory, not a file", path.string()));
    }
    // Blocking reads from here on: a pipe whose writer is there delivers everything it writes.
    if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    std::string text;
    // A regular file's size is known: one allocation instead of a doubling per chunk (a study of
    // 100,000 samples is tens of megabytes). /dev/zero or a FIFO has none: the chunks below stop
    // past the limit.
    if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= max_bytes)
        text.reserve(static_cast<std::size_t>(st.st_size));
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail(path, "cannot read");
        }
        if (n == 0)
            break;
        if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
            errno = EFBIG;
            throw std::runtime_error(fmt::format("{}: larger than the {} limit for this file", path.string(),
                max_bytes % (1u << 20) == 0 ? fmt::format("{} MiB", max_bytes >> 20)
                                            : fmt::format("{} bytes", max_bytes)));
        }
        text.append(chunk, static_cast<std::size_t>(n));
    }
    return text;
}

} // namespace kwb
