// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomic_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace kwb {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what)
{
    throw std::runtime_error(fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno)));
}

// The file a path names once symbolic links are followed: renaming over a link would replace the
// link with a plain file and leave the study it points to as it was.
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

} // namespace

void check_replaceable(const std::filesystem::path& path)
{
    const std::filesystem::path target = link_target(path);
    if (::access(target.c_str(), F_OK) == 0 && ::access(target.c_str(), W_OK) != 0)
        fail(path, "cannot be written");
    const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        fail(path, "cannot create a temporary file beside it");
    ::close(fd);
    ::unlink(tmpl.c_str());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents)
{
    const std::filesystem::path target = link_target(path);   // errors still name `path`, as given
    const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
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

std::string read_file(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, "cannot open");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
        fail(path, "cannot read");
    return buffer.str();
}

} // namespace kwb
