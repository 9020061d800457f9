// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kernel.h"

namespace kwb::worker {

// CUDA errors as exceptions: KWB_CUDA_CHECK(cudaMalloc(&p, n)) throws "CUDA error: out of memory
// (cudaMalloc(&p, n) at file.cu:12)", which the helper answers as ok:false.
#if KWB_WORKER_HAS_CUDA
inline void cuda_check(cudaError_t e, const char* what, const char* file, int line)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(e) + " (" + what + " at " + file + ":"
            + std::to_string(line) + ")");
}
#define KWB_CUDA_CHECK(expr) ::kwb::worker::cuda_check((expr), #expr, __FILE__, __LINE__)
#endif

namespace detail {

inline std::string one_line(std::string s)
{
    for (char& c : s)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    if (s.size() > 400)
        s = s.substr(0, 397) + "...";
    return s.empty() ? std::string("(no message)") : s;
}

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF): a request that
// is not would otherwise be echoed into an answer kwb cannot parse.
inline bool valid_utf8(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if ((c & 0xe0) == 0xc0) {
            n = 1;
            cp = c & 0x1fu;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            cp = c & 0x0fu;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            cp = c & 0x07u;
        } else {
            return false;
        }
        for (std::size_t k = 1; k <= n; ++k) {
            if (i + k >= s.size())
                return false;
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (cc & 0x3fu);
        }
        static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

// A request that cannot be served (as opposed to an exception of the user's code).
class RequestError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline float half_to_float(std::uint16_t h)
{
    const std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    float v;
    if (exp == 0)
        v = std::ldexp(static_cast<float>(mant), -24);
    else if (exp == 31)
        v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else
        v = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

inline float bf16_to_float(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

inline std::size_t dtype_bytes(DType t)
{
    return t == DType::f64 ? 8 : t == DType::f32 ? 4 : 2;
}

inline std::string cpu_model()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                auto name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(' '));
                return name;
            }
        }
    return {};
}

inline int device_index()
{
    const char* env = std::getenv("KWB_DEVICE");
    if (!env || !*env)
        return 0;
    int index = -1;
    const std::string_view text(env);
    const auto r = std::from_chars(text.data(), text.data() + text.size(), index);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || index < 0)
        throw std::runtime_error("KWB_DEVICE=" + std::string(text) + " is not a device index");
    return index;
}

#if KWB_WORKER_HAS_CUDA
// CUDA events on the legacy default stream (ordered with every blocking stream, and with the
// per-thread default stream); cold: a cudaMemsetAsync over twice the L2 before each launch,
// outside its event pair, as the embedded harness does.
class Clock {
public:
    static constexpr const char* kTimer = "cuda_events";

    Clock()
        : index_(device_index())
    {
        KWB_CUDA_CHECK(cudaSetDevice(index_));
    }
    ~Clock()
    {
        for (auto e : events_)
            cudaEventDestroy(e);
        if (flush_)
            cudaFree(flush_);
    }
    Clock(const Clock&) = delete;
    Clock& operator=(const Clock&) = delete;

    Json describe() const
    {
        cudaDeviceProp p {};
        KWB_CUDA_CHECK(cudaGetDeviceProperties(&p, index_));
        static constexpr char kHex[] = "0123456789abcdef";
        std::string uuid = "GPU-"; // as NVML and nvidia-smi print it, so kwb can match the two
        for (int i = 0; i < 16; ++i) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                uuid += '-';
            const auto byte = static_cast<unsigned char>(p.uuid.bytes[i]);
            uuid += kHex[byte >> 4];
            uuid += kHex[byte & 0xf];
        }
        return Json::object()
            .set("kind", "cuda")
            .set("name", std::string(p.name))
            .set("uuid", uuid)
            .set("index", index_);
    }
    void synchronize() const { KWB_CUDA_CHECK(cudaDeviceSynchronize()); }

    template<class Launch> double time_hot(Launch&& launch, int launches)
    {
        events(1);
        synchronize();
        KWB_CUDA_CHECK(cudaEventRecord(events_[0], cudaStreamLegacy));
        for (int i = 0; i < launches; ++i)
            launch();
        KWB_CUDA_CHECK(cudaGetLastError());
        KWB_CUDA_CHECK(cudaEventRecord(events_[1], cudaStreamLegacy));
        KWB_CUDA_CHECK(cudaEventSynchronize(events_[1]));
        float ms = 0;
        KWB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[0], events_[1]));
        return ms;
    }

    template<class Launch> std::vector<double> time_cold(Launch&& launch, int launches)
    {
        events(static_cast<std::size_t>(launches));
        synchronize();
        for (int i = 0; i < launches; ++i) {
            flush_l2();
            KWB_CUDA_CHECK(cudaEventRecord(events_[2 * i], cudaStreamLegacy));
            launch();
            KWB_CUDA_CHECK(cudaEventRecord(events_[2 * i + 1], cudaStreamLegacy));
        }
        KWB_CUDA_CHECK(cudaGetLastError());
        KWB_CUDA_CHECK(cudaEventSynchronize(events_[2 * launches - 1]));
        std::vector<double> times(static_cast<std::size_t>(launches));
        for (int i = 0; i < launches; ++i) {
            float ms = 0;
            KWB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]));
            times[static_cast<std::size_t>(i)] = ms;
        }
        return times;
    }

private:
    void events(std::size_t pairs)
    {
        while (events_.size() < 2 * pairs) {
            cudaEvent_t e;
            KWB_CUDA_CHECK(cudaEventCreate(&e));
            events_.push_back(e);
        }
    }
    void flush_l2()
    {
        if (!flush_) {
            int l2 = 0;
            KWB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, index_));
            flush_bytes_ = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : 256 << 20);
            KWB_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
        }
        KWB_CUDA_CHECK(cudaMemsetAsync(flush_, 0, flush_bytes_, cudaStreamLegacy));
    }

    int index_ = 0;
    std::vector<cudaEvent_t> events_;
    void* flush_ = nullptr;
    std::size_t flush_bytes_ = 0;
};
#else
// steady_clock around the launches; a CPU has no L2 for this helper to flush.
class Clock {
public:
    static constexpr const char* kTimer = "steady_clock";

    Json describe() const
    {
        Json d = Json::object().set("kind", "cpu");
        const auto name = cpu_model();
        if (!name.empty())
            d.set("name", name);
        return d;
    }
    void synchronize() const { }

    template<class Launch> double time_hot(Launch&& launch, int launches)
    {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < launches; ++i)
            launch();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }

    template<class Launch> std::vector<double> time_cold(Launch&& launch, int launches)
    {
        std::vector<double> times(static_cast<std::size_t>(launches));
        for (auto& t : times) {
            const auto start = std::chrono::steady_clock::now();
            launch();
            t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
        return times;
    }
};
#endif

// The output's values on the host as float32 (C order).
inline std::vector<float> read_output(const Output& out)
{
    if (!out.data && out.elements)
        throw RequestError("output(state) returned a null buffer");
    std::vector<unsigned char> raw(out.elements * dtype_bytes(out.dtype));
    if (out.memory == Memory::device) {
#if KWB_WORKER_HAS_CUDA
        KWB_CUDA_CHECK(cudaMemcpy(raw.data(), out.data, raw.size(), cudaMemcpyDeviceToHost));
#else
        throw RequestError("output(state) is device memory, but this worker was built without CUDA");
#endif
    } else if (!raw.empty()) {
        std::memcpy(raw.data(), out.data, raw.size());
    }
    std::vector<float> values(out.elements);
    for (std::size_t i = 0; i < out.elements; ++i) {
        const unsigned char* p = raw.data() + i * dtype_bytes(out.dtype);
        switch (out.dtype) {
        case DType::f32:
            std::memcpy(&values[i], p, 4);
            break;
        case DType::f64: {
            double d;
            std::memcpy(&d, p, 8);
            values[i] = static_cast<float>(d);
            break;
        }
        case DType::f16:
        case DType::bf16: {
            std::uint16_t h;
            std::memcpy(&h, p, 2);
            values[i] = out.dtype == DType::f16 ? half_to_float(h) : bf16_to_float(h);
            break;
        }
        }
    }
    return values;
}

// NaN over every element: all bits set is a NaN in f32, f64, f16 and bf16 alike.
inline void poison(const Output& out)
{
    const std::size_t bytes = out.elements * dtype_bytes(out.dtype);
    if (out.memory == Memory::device) {
#if KWB_WORKER_HAS_CUDA
        KWB_CUDA_CHECK(cudaMemset(out.data, 0xff, bytes));
#else
        throw RequestError("output(state) is device memory, but this worker was built without CUDA");
#endif
    } else if (bytes) {
        std::memset(out.data, 0xff, bytes);
    }
}

inline void write_float32(const std::string& path, const std::vector<float>& values)
{
    std::vector<unsigned char> bytes(values.size() * 4);
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, &values[i], 4);
        for (int b = 0; b < 4; ++b) // little-endian, whatever the host's order
            bytes[4 * i + static_cast<std::size_t>(b)] = static_cast<unsigned char>(bits >> (8 * b));
    }
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw RequestError("cannot write " + path + ": " + std::strerror(errno));
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (std::fclose(f) != 0 || !ok)
        throw RequestError("cannot write " + path + ": " + std::strerror(errno));
}

// The verify rule's reference check, per element: |out - ref| <= tolerance * (1 + |ref|).
inline Json compare(const std::vector<float>& out, const std::vector<float>& ref, double tolerance)
{
    Json r = Json::object();
    if (out.size() != ref.size()) {
        return r.set("passed", false)
            .set("max_abs_error", nullptr)
            .set("max_rel_error", nullptr)
            .set("tolerance", tolerance)
            .set("detail",
                "the reference has " + std::to_string(ref.size()) + " elements, the output "
                    + std::to_string(out.size()));
    }
    std::size_t failing = 0, non_finite = 0, first = 0;
    double max_abs = 0, max_rel = 0;
    bool finite = true;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double o = out[i], e = ref[i], d = std::fabs(o - e);
        if (!std::isfinite(o))
            ++non_finite;
        if (!std::isfinite(d)) {
            finite = false;
        } else {
            max_abs = std::max(max_abs, d);
            if (e != 0)
                max_rel = std::max(max_rel, d / std::fabs(e));
        }
        if (!(d <= tolerance * (1.0 + std::fabs(e)))) { // NaN never passes
            if (failing++ == 0)
                first = i;
        }
    }
    r.set("passed", failing == 0)
        .set("max_abs_error", finite ? Json(max_abs) : Json())
        .set("max_rel_error", finite ? Json(max_rel) : Json())
        .set("tolerance", tolerance);
    if (failing) {
        std::string detail = std::to_string(failing) + " of " + std::to_string(out.size())
            + " elements outside the tolerance; first at index " + std::to_string(first) + ": "
            + Json::format_double(out[first]) + ", expected " + Json::format_double(ref[first]);
        if (non_finite)
            detail += "; " + std::to_string(non_finite) + " output elements are NaN or infinite (not written?)";
        r.set("detail", detail);
    }
    return r;
}

} // namespace detail
} // namespace kwb::worker
