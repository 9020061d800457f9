// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/aa_history.h"

#include "stats/clopper_pearson.h"
#include "study/device_identity.h"
#include "study/study_file.h"
#include "util/atomic_file.h"
#include "util/json_reader.h"
#include "util/state_dir.h"
#include "util/state_dir.h"
#include "verdict/aa_verdict.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <unistd.h>

namespace kwb {
namespace {

using nlohmann::json;

std::runtime_error failure(const std::filesystem::path& path, const std::string& what)
{
    return std::runtime_error(fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno)));
}

// Holds an exclusive flock on a file for its lifetime.
class FileLock {
public:
    explicit FileLock(const std::filesystem::path& path)
        : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644))
    {
        if (fd_ < 0)
            throw failure(path, "cannot open the lock file");
        while (::flock(fd_, LOCK_EX) != 0)
            if (errno != EINTR) {
                ::close(fd_);
                throw failure(path, "cannot lock");
            }
    }
    ~FileLock() { ::close(fd_); } // closing releases the lock
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_;
};

json to_json(const AaHistoryEntry& e)
{
    return {{"at", e.at}, {"device", device_identity_json(e.device)}, {"study", e.study}, {"experiment", e.experiment},
        {"n", e.n}, {"word", e.word}, {"delta_pct", e.delta_pct ? json(*e.delta_pct) : json(nullptr)}};
}

std::optional<AaHistoryEntry> entry_from(const std::string& line)
{
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("device") || !j["device"].is_object() || !j.contains("n")
        || !j["n"].is_number_integer() || !j.contains("word") || !j["word"].is_string())
        return std::nullopt;
    if (!parse_verdict_word(j["word"].get<std::string>()))
        return std::nullopt;
    AaHistoryEntry e;
    const auto text = [](const json& o, const char* key) {
        return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
    };
    e.at = text(j, "at");
    try { // a line of another shape is skipped, as every malformed line of the history is
        e.device = device_identity_from(JsonReader(j["device"], "device"));
    } catch (const FormatError&) {
        return std::nullopt;
    }
    e.study = text(j, "study");
    e.experiment = text(j, "experiment");
    e.n = j["n"].get<int>();
    e.word = j["word"].get<std::string>();
    if (j.contains("delta_pct") && j["delta_pct"].is_number())
        e.delta_pct = j["delta_pct"].get<double>();
    if (e.device.model.empty() || e.n < 1)
        return std::nullopt;
    return e;
}

std::vector<std::string> lines_of(const std::filesystem::path& path)
{
    std::vector<std::string> lines;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return lines;
    std::istringstream in(read_file(path));
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    return lines;
}

AaFalseAlarmRate rate_of(const std::string& model, int runs, int alarms)
{
    const auto ci = stats::clopper_pearson(alarms, runs);
    return {model, runs, alarms, static_cast<double>(alarms) / runs, ci};
}

} // namespace

std::filesystem::path aa_history_path()
{
    return kwb_state_dir("the A/A history") / "aa-history.jsonl";
}

std::optional<AaHistoryEntry> aa_history_entry(const std::string& study, const Experiment& e)
{
    if (!e.aa_verdict)
        return std::nullopt;
    AaHistoryEntry h;
    h.at = utc_now_iso8601();
    h.device = e.device;
    h.study = study;
    h.experiment = e.id;
    h.n = static_cast<int>(std::min(e.aa_verdict->n_baseline(), e.aa_verdict->n_treatment()));
    h.word = std::string(to_string(e.aa_verdict->word));
    h.delta_pct = e.aa_verdict->delta_pct;
    return h;
}

void append_aa_history(const std::filesystem::path& path, const AaHistoryEntry& entry, std::size_t max_entries)
{
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        throw std::runtime_error(
            fmt::format("{}: cannot create the directory: {}", path.parent_path().string(), ec.message()));
    const FileLock lock(path.string() + ".lock");
    const std::string line = to_json(entry).dump() + "\n";
    auto lines = lines_of(path);
    if (max_entries > 0 && lines.size() + 1 > max_entries) {
        // Bounded: the oldest go, and the trimmed history replaces the file in one rename.
        lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(max_entries - 1));
        std::string text;
        for (const auto& l : lines)
            text += l + "\n";
        write_file_atomically(path, text + line);
        return;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw failure(path, "cannot open");
    // One write of the whole line: with O_APPEND no reader or writer ever sees half of it.
    const ssize_t written = ::write(fd, line.data(), line.size());
    const bool ok = written == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
    const int saved = errno;
    ::close(fd);
    errno = saved;
    if (!ok)
        throw failure(path, "cannot append");
}

std::vector<AaHistoryEntry> read_aa_history(const std::filesystem::path& path, int* skipped)
{
    std::vector<AaHistoryEntry> out;
    int bad = 0;
    for (const auto& line : lines_of(path)) {
        if (auto e = entry_from(line))
            out.push_back(std::move(*e));
        else
            ++bad;
    }
    if (skipped)
        *skipped = bad;
    return out;
}

std::optional<AaFalseAlarmRate> aa_false_alarm_rate(
    const std::vector<AaHistoryEntry>& history, const DeviceIdentity& device)
{
    int runs = 0, alarms = 0;
    for (const auto& e : history)
        if (same_device(e.device, device)) {
            ++runs;
            alarms += e.word != to_string(VerdictWord::Noise);
        }
    if (runs == 0)
        return std::nullopt;
    return rate_of(device.model, runs, alarms);
}

std::vector<AaFalseAlarmRate> aa_false_alarm_rates(const std::vector<AaHistoryEntry>& history)
{
    std::vector<AaFalseAlarmRate> out;
    std::vector<DeviceIdentity> seen;
    for (const auto& e : history)
        if (std::none_of(seen.begin(), seen.end(), [&](const DeviceIdentity& d) { return same_device(d, e.device); })) {
            seen.push_back(e.device);
            out.push_back(*aa_false_alarm_rate(history, e.device));
        }
    return out;
}

std::string describe(const AaFalseAlarmRate& r)
{
    using wording::num;
    return fmt::format("A/A history on {}: {} false alarm{} in {} A/A run{} ({}%, 95% CI {}-{}%)", r.device,
        r.false_alarms, r.false_alarms == 1 ? "" : "s", r.runs, r.runs == 1 ? "" : "s", num(100 * r.rate),
        num(100 * r.ci95[0]), num(100 * r.ci95[1]));
}

std::string describe_aa_history(const std::optional<AaFalseAlarmRate>& rate, const std::string& model)
{
    return rate ? describe(*rate) : fmt::format("A/A history on {}: no A/A run recorded yet", model);
}

} // namespace kwb
