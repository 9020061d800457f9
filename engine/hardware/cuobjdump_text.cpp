// SPDX-License-Identifier: GPL-3.0-or-later
// The parsers of cuobjdump's text (pure: recorded output in, kernels out).
#include "hardware/cuobjdump_text.h"

#include "report/sha256.h"

#include <regex>
#include <sstream>

namespace kwb {
namespace {

std::string trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::optional<int> field(const std::string& line, const char* key)
{
    const std::regex re(std::string("(^|\\s)") + key + ":(\\d+)");
    std::smatch m;
    if (!std::regex_search(line, m, re))
        return std::nullopt;
    return std::stoi(m[2].str());
}

} // namespace

// cuobjdump --dump-resource-usage:
//   arch = sm_90
//   ...
//   Resource usage:
//    Function _Z6kernelPf:
//     REG:8 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:360 TEXTURE:0 SURFACE:0 SAMPLER:0
std::vector<KernelResource> parse_resource_usage(const std::string& text, const std::string& binary)
{
    std::vector<KernelResource> out;
    std::istringstream in(text);
    std::string line, arch, pending;
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.rfind("arch = ", 0) == 0) {
            arch = trim(t.substr(7));
            continue;
        }
        if (t.rfind("Function ", 0) == 0 && !t.empty() && t.back() == ':') {
            pending = trim(t.substr(9, t.size() - 10));
            continue;
        }
        if (!pending.empty() && t.find("REG:") != std::string::npos) {
            KernelResource k;
            k.name = pending;
            k.binary = binary;
            k.arch = arch;
            k.registers = field(t, "REG");
            k.static_smem_bytes = field(t, "SHARED");
            k.local_bytes = field(t, "LOCAL");
            out.push_back(std::move(k));
            pending.clear();
        }
    }
    return out;
}

// cuobjdump -sass:
//   	code for sm_90
//   		Function : _Z6kernelPf
//   	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 ..."
//           /*0000*/                   LDC R1, c[0x0][0x28] ;
//   		..........
std::map<std::string, std::string> parse_sass_hashes(const std::string& text)
{
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line, arch, name, body;
    const auto flush = [&] {
        if (!name.empty())
            out[arch + "|" + name] = report::sha256_hex(body);
        name.clear();
        body.clear();
    };
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.rfind("code for ", 0) == 0) {
            flush();
            arch = trim(t.substr(9));
        } else if (t.rfind("Function : ", 0) == 0) {
            flush();
            name = trim(t.substr(11));
        } else if (!name.empty()) {
            if (t.rfind("....", 0) == 0) {
                flush();
                continue;
            }
            if (t.rfind("/*", 0) == 0) // an instruction line: what the code is
                body += t + "\n";
        }
    }
    flush();
    return out;
}

} // namespace kwb
