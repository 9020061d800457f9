// SPDX-License-Identifier: GPL-3.0-or-later
// Corpus replay for the fuzz targets where libFuzzer is not used: every file of the committed
// corpus, then a fixed number of deterministic mutations of each (bit flips, truncations, byte
// insertions, splices of two entries), through the target's LLVMFuzzerTestOneInput. Under the
// sanitizer build a memory error or undefined behaviour ends the test; the count and the seed are
// fixed, so the time is bounded and a failure replays exactly.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::uint64_t g_state = 0x9E3779B97F4A7C15ull;
std::uint64_t next_random()
{
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    return g_state;
}

void run(const std::string& input)
{
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

std::string mutate(std::string s, const std::vector<std::string>& corpus)
{
    const int edits = 1 + static_cast<int>(next_random() % 4);
    for (int e = 0; e < edits; ++e) {
        const std::size_t at = s.empty() ? 0 : next_random() % s.size();
        switch (next_random() % 6) {
        case 0: // flip a bit
            if (!s.empty())
                s[at] = static_cast<char>(s[at] ^ (1 << (next_random() % 8)));
            break;
        case 1: // truncate
            s.resize(at);
            break;
        case 2: { // insert an interesting byte or token
            static const char* tokens[]
                = {"\0", "\xff", "\"", "{", "}", "[", "]", ",", ":", "-", "1e400", "1e308", "-0", "NaN", "\xEF\xBB\xBF",
                    "\n", "#", "2147483648", "9223372036854775808", "null", "\\u0000", "\xc3\x28"};
            const char* t = tokens[next_random() % (sizeof tokens / sizeof *tokens)];
            s.insert(at, t[0] ? std::string(t) : std::string(1, '\0'));
            break;
        }
        case 3: // duplicate a span
            if (!s.empty()) {
                const std::size_t len = 1 + next_random() % std::min<std::size_t>(64, s.size() - at);
                s.insert(at, s.substr(at, len));
            }
            break;
        case 4: // delete a span
            if (!s.empty())
                s.erase(at, 1 + next_random() % std::min<std::size_t>(64, s.size() - at));
            break;
        default: { // splice with another entry
            const std::string& other = corpus[next_random() % corpus.size()];
            const std::size_t from = other.empty() ? 0 : next_random() % other.size();
            s = s.substr(0, at) + other.substr(from);
            break;
        }
        }
    }
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR [MUTATIONS_PER_ENTRY]\n", argv[0]);
        return 2;
    }
    const int mutations = argc > 2 ? std::atoi(argv[2]) : 300;
    // Sorted by name: directory order differs between filesystems, and the mutations depend on it.
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(argv[1]))
        if (entry.is_regular_file())
            paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    std::vector<std::string> corpus;
    for (const auto& path : paths) {
        std::ifstream in(path, std::ios::binary);
        corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (corpus.empty()) {
        std::fprintf(stderr, "%s: no corpus entries\n", argv[1]);
        return 1;
    }
    for (const auto& c : corpus)
        run(c);
    long runs = static_cast<long>(corpus.size());
    for (const auto& c : corpus)
        for (int m = 0; m < mutations; ++m, ++runs)
            run(mutate(c, corpus));
    std::printf("%ld inputs, no findings\n", runs);
    return 0;
}
