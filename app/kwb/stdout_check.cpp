// SPDX-License-Identifier: GPL-3.0-or-later
#include "stdout_check.h"

#include "commands.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace kwb::cli {

void ignore_broken_pipe_signal()
{
    std::signal(SIGPIPE, SIG_IGN);
}

int checked_stdout(int code)
{
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int err = errno;
    if (flushed && !std::ferror(stdout))
        return code;
    std::fprintf(stderr, "kwb: cannot write the output: %s\n", err ? std::strerror(err) : "write error");
    return kRunFailed;
}

} // namespace kwb::cli
