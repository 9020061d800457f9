// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device.h"

namespace kwb::worker {
namespace detail {

// The protocol's two streams on private fds (see the header's comment).
class Channel {
public:
    Channel()
    {
        in_ = ::dup(0);
        out_ = ::dup(1);
        if (in_ < 0 || out_ < 0)
            throw std::runtime_error(std::string("kwb worker: dup failed: ") + std::strerror(errno));
        ::fcntl(in_, F_SETFD, FD_CLOEXEC);
        ::fcntl(out_, F_SETFD, FD_CLOEXEC);
        ::dup2(2, 1);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            ::dup2(devnull, 0);
            ::close(devnull);
        }
    }
    ~Channel()
    {
        ::close(in_);
        ::close(out_);
    }
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    // The next line (without '\n'); false at end of input. `oversized`: the line was longer than
    // kMaxMessageBytes and was skipped to its end.
    bool read(std::string& line, bool& oversized)
    {
        line.clear();
        oversized = false;
        for (;;) {
            const auto nl = buffer_.find('\n', scanned_);
            if (nl != std::string::npos) {
                oversized = oversized || nl > kMaxMessageBytes;
                if (!oversized)
                    line.assign(buffer_, 0, nl);
                buffer_.erase(0, nl + 1);
                scanned_ = 0;
                if (!line.empty() && line.back() == '\r')
                    line.pop_back();
                return true;
            }
            if (buffer_.size() > kMaxMessageBytes) {
                oversized = true; // keep reading to the newline, dropping what is read
                buffer_.clear();
            }
            scanned_ = buffer_.size();
            char chunk[65536];
            const ssize_t n = ::read(in_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (buffer_.empty() && !oversized)
                    return false;
                // A last line without its newline is still a request.
                if (!oversized)
                    line = buffer_;
                buffer_.clear();
                scanned_ = 0;
                return true;
            }
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
    }

    bool write(const Json& message)
    {
        const std::string text = message.dump() + "\n";
        std::size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = ::write(out_, text.data() + done, text.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            done += static_cast<std::size_t>(n);
        }
        return true;
    }

private:
    int in_ = -1;
    int out_ = -1;
    std::string buffer_;
    std::size_t scanned_ = 0;
};

inline std::int64_t integer_field(const Json& request, const char* key)
{
    const Json* v = request.find(key);
    std::int64_t out = 0;
    if (!v || !v->to_int64(out))
        throw RequestError(std::string("'") + key + "' must be an integer");
    return out;
}

// A parameter value from the request, as the declared parameter's type.
inline Value coerce(const Param& p, const Json& given)
{
    const std::string bad = "parameter " + p.name + ": " + given.dump();
    if (p.default_value.is_string()) {
        if (given.is_string() || given.is_number())
            return Value(given.text());
        throw RequestError(bad + " is not a string");
    }
    Json number = given;
    if (given.is_string()) {
        try {
            number = Json::parse(given.text());
        } catch (const JsonError&) {
            throw RequestError(bad + " is not a number");
        }
    }
    if (!number.is_number())
        throw RequestError(bad + " is not a number");
    if (p.default_value.is_integer()) {
        std::int64_t v = 0;
        if (!number.to_int64(v))
            throw RequestError(bad + " is not an integer");
        return Value(static_cast<long long>(v));
    }
    return Value(number.number());
}

} // namespace detail
} // namespace kwb::worker
