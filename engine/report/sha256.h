// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the study file's fingerprint in a
// report's provenance. Written here rather than pulled from OpenSSL so that kwb keeps running on a
// bare GPU host with no crypto library; the test checks it against the FIPS vectors and sha256sum.

#include <string>
#include <string_view>

namespace kwb::report {

std::string sha256_hex(std::string_view bytes);

} // namespace kwb::report
