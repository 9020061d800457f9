// SPDX-License-Identifier: GPL-3.0-or-later
// A C++ worker that misbehaves on purpose, for tst_worker_protocol (the C++ twin of
// data/noisy_kernel.py): it prints through printf, std::cout and write(2) on fd 1 in setup and on
// every launch, throws when asked, can leave an element unwritten (the NaN poison must show), and
// hands its output back in the dtype asked (f32, f64, f16, bf16) to check the float32 file.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <kwb/worker.h>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

struct State {
    std::vector<std::uint8_t> out; // 4 elements of `dtype`
    kwb::worker::DType dtype = kwb::worker::DType::f32;
    std::string fail;
    std::uint64_t seed = 0;
    int calls = 0;
};

void say(const char* text)
{
    std::printf("noisy: printf %s\n", text);
    std::cout << "noisy: cout " << text << std::endl;
    const std::string raw = std::string("noisy: fd 1 ") + text + "\n";
    if (::write(1, raw.data(), raw.size()) < 0)
        std::perror("write");
}

void store(State& s, int i, float v)
{
    using kwb::worker::DType;
    std::uint8_t* p = s.out.data();
    if (s.dtype == DType::f32) {
        std::memcpy(p + 4 * i, &v, 4);
    } else if (s.dtype == DType::f64) {
        const double d = v;
        std::memcpy(p + 8 * i, &d, 8);
    } else {
        std::uint32_t bits;
        std::memcpy(&bits, &v, 4);
        // Small integers are exact in both: bf16 is the top half of the float; f16 rebiases.
        std::uint16_t h = static_cast<std::uint16_t>(bits >> 16);
        if (s.dtype == DType::f16) {
            const int exp = static_cast<int>((bits >> 23) & 0xff);
            h = v == 0 ? 0
                       : static_cast<std::uint16_t>(
                           ((bits >> 16) & 0x8000) | ((exp - 127 + 15) << 10) | ((bits >> 13) & 0x3ff));
        }
        std::memcpy(p + 2 * i, &h, 2);
    }
}

} // namespace

int main(int argc, char** argv)
{
    kwb::worker::Kernel<State> k;
    k.name = "noisy-cpp";
    k.params = {{"fail", "none", {"none", "setup", "third-launch", "skip-last"}},
        {"dtype", "f32", {"f32", "f64", "f16", "bf16"}}};
    k.setup = [](State& s, const kwb::worker::Params& p, std::uint64_t seed) {
        say("in setup");
        s.fail = p.string("fail");
        if (s.fail == "setup")
            throw std::runtime_error("setup failed on purpose");
        const std::string& d = p.string("dtype");
        using kwb::worker::DType;
        s.dtype = d == "f64" ? DType::f64 : d == "f16" ? DType::f16 : d == "bf16" ? DType::bf16 : DType::f32;
        s.out.assign(4 * (s.dtype == DType::f64 ? 8 : s.dtype == DType::f32 ? 4 : 2), 0);
        s.seed = seed;
    };
    k.run = [](State& s) {
        say("in run");
        if (s.fail == "third-launch" && ++s.calls >= 3)
            throw std::runtime_error("third launch failed on purpose");
        for (int i = 0; i < (s.fail == "skip-last" ? 3 : 4); ++i)
            store(s, i, static_cast<float>(i + static_cast<int>(s.seed % 7)));
    };
    k.output = [](State& s) { return kwb::worker::output(s.out.data(), 4, s.dtype, kwb::worker::Memory::host); };
    k.reference = [](State& s) {
        std::vector<float> r(4);
        for (int i = 0; i < 4; ++i)
            r[static_cast<std::size_t>(i)] = static_cast<float>(i + static_cast<int>(s.seed % 7));
        return r;
    };
    return kwb::worker::serve(k, argc, argv);
}
