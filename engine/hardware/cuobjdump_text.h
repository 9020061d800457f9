// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// cuobjdump's text read into kernels' resources and SASS hashes: pure parsers (analysis, no
// process), tested on recorded output; hardware/cuobjdump.h runs the tool.
#include "study/kernel_inventory.h"

#include <map>
#include <string>
#include <vector>

namespace kwb {

std::vector<KernelResource> parse_resource_usage(const std::string& text, const std::string& binary);
// function name -> sha256 of its SASS lines (addresses and encodings included), per arch as
// "arch|name".
std::map<std::string, std::string> parse_sass_hashes(const std::string& text);

} // namespace kwb
