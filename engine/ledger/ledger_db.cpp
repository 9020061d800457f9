// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger/ledger_db.h"

#include "run/aa_history.h"

#include <cstdlib>
#include <fmt/format.h>
#include <sqlite3.h>

namespace kwb::ledger {
namespace {

// Version 1: the experiments index (one row per judged experiment of a study file).
constexpr const char* kMigration1 = R"sql(
CREATE TABLE experiments (
    study_path TEXT NOT NULL,
    experiment_id TEXT NOT NULL,
    study_name TEXT NOT NULL DEFAULT '',
    kernel TEXT NOT NULL DEFAULT '',
    workload TEXT NOT NULL DEFAULT '',
    metric TEXT NOT NULL DEFAULT '',
    direction TEXT NOT NULL DEFAULT 'lower',
    benchmark_key TEXT NOT NULL DEFAULT '',
    fingerprint TEXT NOT NULL DEFAULT '{}',
    params TEXT NOT NULL DEFAULT '{}',
    device_kind TEXT NOT NULL DEFAULT '',
    device_model TEXT NOT NULL DEFAULT '',
    device_uuid TEXT NOT NULL DEFAULT '',
    device_driver TEXT NOT NULL DEFAULT '',
    commit_baseline TEXT NOT NULL DEFAULT '',
    commit_treatment TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL DEFAULT '',
    word TEXT NOT NULL DEFAULT '',
    final_word TEXT NOT NULL DEFAULT '',
    rule INTEGER NOT NULL DEFAULT 0,
    delta_pct REAL, ci_lo REAL, ci_hi REAL, sigma_pct REAL,
    n_baseline INTEGER NOT NULL DEFAULT 0,
    n_treatment INTEGER NOT NULL DEFAULT 0,
    baseline_mean REAL, baseline_sd REAL, treatment_mean REAL, treatment_sd REAL,
    verdict TEXT NOT NULL DEFAULT '{}',
    guards_regressed INTEGER NOT NULL DEFAULT 0,
    hypotheses TEXT NOT NULL DEFAULT '[]',
    summary TEXT NOT NULL DEFAULT '',
    indexed_at TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (study_path, experiment_id)
);
CREATE INDEX experiments_key ON experiments (benchmark_key, device_model, at);
)sql";

// Version 2: the per-device A/A history (until now only a JSON-lines file) joins the database.
constexpr const char* kMigration2 = R"sql(
CREATE TABLE aa_runs (
    study TEXT NOT NULL,
    experiment TEXT NOT NULL,
    at TEXT NOT NULL DEFAULT '',
    device_kind TEXT NOT NULL DEFAULT '',
    device_model TEXT NOT NULL DEFAULT '',
    device_uuid TEXT NOT NULL DEFAULT '',
    n INTEGER NOT NULL,
    word TEXT NOT NULL,
    delta_pct REAL,
    source TEXT NOT NULL DEFAULT 'study',
    PRIMARY KEY (study, experiment)
);
CREATE INDEX aa_runs_device ON aa_runs (device_model, at);
)sql";

LedgerError error_of(sqlite3* db, const std::string& what)
{
    return LedgerError(fmt::format("{}: {}", what, db ? sqlite3_errmsg(db) : "out of memory"));
}

void import_aa_history(Database& db, const std::filesystem::path& file)
{
    auto insert = db.prepare("INSERT OR IGNORE INTO aa_runs (study, experiment, at, device_kind, device_model, "
                             "device_uuid, n, word, delta_pct, source) VALUES (?,?,?,?,?,?,?,?,?,'aa-history')");
    std::vector<AaHistoryEntry> entries;
    try {
        entries = read_aa_history(file);
    } catch (const std::exception&) {
        return; // an unreadable history is not the database's to lose: the studies hold each A/A
    }
    for (const auto& e : entries) {
        insert.bind(1, e.study).bind(2, e.experiment).bind(3, e.at).bind(4, e.device.kind).bind(5, e.device.model);
        insert.bind(6, e.device.uuid).bind(7, static_cast<long long>(e.n)).bind(8, e.word).bind(9, e.delta_pct);
        insert.step();
        insert.reset();
    }
}

} // namespace

std::filesystem::path ledger_path()
{
    if (const char* own = std::getenv("KWB_LEDGER"); own && *own)
        return own;
    std::filesystem::path base;
    const char* data = std::getenv("XDG_DATA_HOME");
    if (data && *data && std::filesystem::path(data).is_absolute())
        base = data;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".local" / "share";
    else
        throw LedgerError("no KWB_LEDGER, XDG_DATA_HOME or HOME: nowhere to keep the ledger");
    return base / "kernel-workbench" / "ledger.sqlite";
}

Statement::Statement(sqlite3* db, const std::string& sql)
    : db_(db)
{
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
        throw error_of(db_, "ledger: cannot prepare a statement");
}

Statement::~Statement()
{
    sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int index, const std::string& text)
{
    sqlite3_bind_text(stmt_, index, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bind(int index, long long value)
{
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value)
{
    if (value)
        sqlite3_bind_double(stmt_, index, *value);
    else
        sqlite3_bind_null(stmt_, index);
    return *this;
}

bool Statement::step()
{
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    throw error_of(db_, "ledger");
}

void Statement::reset()
{
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::string Statement::text(int column) const
{
    const auto* p = sqlite3_column_text(stmt_, column);
    return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

long long Statement::integer(int column) const
{
    return sqlite3_column_int64(stmt_, column);
}

std::optional<double> Statement::real(int column) const
{
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL)
        return std::nullopt;
    return sqlite3_column_double(stmt_, column);
}

Database::Database(const std::filesystem::path& path, std::optional<std::filesystem::path> aa_history)
    : path_(path)
{
    std::error_code ec;
    if (path.has_parent_path())
        std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        throw LedgerError(
            fmt::format("{}: cannot create the directory: {}", path.parent_path().string(), ec.message()));
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr)
        != SQLITE_OK) {
        const auto e = error_of(db_, fmt::format("{}: cannot open the ledger", path.string()));
        sqlite3_close(db_);
        throw e;
    }
    try {
        sqlite3_busy_timeout(db_, 30'000);
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=NORMAL");
        migrate(aa_history ? *aa_history : aa_history_path());
    } catch (const std::exception& e) {
        sqlite3_close(db_);
        throw LedgerError(fmt::format("{}: {}", path.string(), e.what()));
    }
}

Database::~Database()
{
    sqlite3_close(db_);
}

void Database::exec(const std::string& sql)
{
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string what = message ? message : sqlite3_errmsg(db_);
        sqlite3_free(message);
        throw LedgerError("ledger: " + what);
    }
}

int Database::schema_version() const
{
    Statement s(db_, "PRAGMA user_version");
    s.step();
    return static_cast<int>(s.integer(0));
}

void Database::migrate(const std::filesystem::path& aa_history)
{
    // Each migration and its version bump commit together; a second process opening the file at
    // the same time waits on the write lock, then finds the version moved and does nothing.
    for (;;) {
        bool done = false;
        transaction([&] {
            const int version = schema_version();
            if (version > kLedgerSchemaVersion)
                throw LedgerError(
                    fmt::format("the ledger has schema {}, newer than this kwb's {}", version, kLedgerSchemaVersion));
            if (version == kLedgerSchemaVersion) {
                done = true;
                return;
            }
            if (version == 0)
                exec(kMigration1);
            if (version == 1) {
                exec(kMigration2);
                import_aa_history(*this, aa_history);
            }
            exec(fmt::format("PRAGMA user_version = {}", version + 1));
        });
        if (done)
            return;
    }
}

} // namespace kwb::ledger
