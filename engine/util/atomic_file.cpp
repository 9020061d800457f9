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

} // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view contents)
{
    const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
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
    // The file keeps the permissions a plain create would give it (mkstemp makes it 0600).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(tmpl.c_str());
        fail(path, "cannot flush");
    }
    if (::rename(tmpl.c_str(), path.c_str()) != 0) {
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
