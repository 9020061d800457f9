// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The tiny harness of the GPU tests: no Qt there. CHECK records a failure and goes on, so one
// run reports every broken expectation; skip() ends the program as skipped (CTest code 77).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kwb::gputest {

inline int& failures()
{
    static int count = 0;
    return count;
}

[[noreturn]] inline void skip(const std::string& why)
{
    std::printf("SKIP: %s\n", why.c_str());
    std::exit(77);
}

inline int finish(const char* name)
{
    std::printf("%s: %s (%d failed checks)\n", name, failures() ? "FAILED" : "passed", failures());
    return failures() ? 1 : 0;
}

// A shell command's standard output; `status` is pclose's (-1: it did not start). The tests that
// run the kwb program beside them use it.
inline std::string run_capture(const std::string& command, int& status)
{
    std::string out;
    FILE* p = popen(command.c_str(), "r");
    if (!p) {
        status = -1;
        return out;
    }
    std::array<char, 4096> buffer {};
    while (size_t n = fread(buffer.data(), 1, buffer.size(), p))
        out.append(buffer.data(), n);
    status = pclose(p);
    return out;
}

} // namespace kwb::gputest

#define KWB_CHECK(cond)                                                                                                \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                       \
            ++kwb::gputest::failures();                                                                                \
        }                                                                                                              \
    } while (0)
