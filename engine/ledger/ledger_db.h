// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

// The ledger's database (docs/ledger.md): one SQLite file indexing every judged experiment and
// every real A/A run. It never holds the only copy of anything: the study files are the source of
// truth and `kwb ledger rebuild` makes it again from them. The file has its own schema version
// (PRAGMA user_version), independent of the study files', moved forward by one migration per
// version. WAL journal and a busy timeout make concurrent writers (several `kwb run`s) wait for
// each other instead of failing; each index write is one transaction, so a writer killed mid-write
// leaves the database as it was before that write.
namespace kwb::ledger {

inline constexpr int kLedgerSchemaVersion = 2;

class LedgerError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// $KWB_LEDGER when set, else $XDG_DATA_HOME/kernel-workbench/ledger.sqlite (~/.local/share when
// XDG_DATA_HOME is unset or relative). Throws LedgerError when neither it nor HOME is set.
std::filesystem::path ledger_path();

// One prepared statement; binds by 1-based index, reads columns by 0-based index.
class Statement {
public:
    Statement(sqlite3* db, const std::string& sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, const std::string& text);
    Statement& bind(int index, long long value);
    Statement& bind(int index, const std::optional<double>& value); // null when empty
    // One step: true while a row is available; throws LedgerError on failure.
    bool step();
    void reset();
    std::string text(int column) const;
    long long integer(int column) const;
    std::optional<double> real(int column) const; // nullopt for NULL

private:
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
};

class Database {
public:
    // Opens the database at `path` (creating it and its directory) and migrates it to
    // kLedgerSchemaVersion. `aa_history` is the JSON-lines A/A history the migration to version 2
    // imports (run/aa_history.h); nullopt: aa_history_path(). Throws LedgerError naming the path.
    explicit Database(const std::filesystem::path& path, std::optional<std::filesystem::path> aa_history = {});
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    int schema_version() const;
    const std::filesystem::path& path() const { return path_; }
    void exec(const std::string& sql);
    Statement prepare(const std::string& sql) { return Statement(db_, sql); }

    // Runs `work` inside BEGIN IMMEDIATE ... COMMIT (the write lock taken at once, so two writers
    // queue on the busy timeout); a throw rolls it back and is rethrown.
    template<typename F> void transaction(F&& work)
    {
        exec("BEGIN IMMEDIATE");
        try {
            work();
            exec("COMMIT");
        } catch (...) {
            try {
                exec("ROLLBACK");
            } catch (...) {
            }
            throw;
        }
    }

private:
    void migrate(const std::filesystem::path& aa_history);

    std::filesystem::path path_;
    sqlite3* db_ = nullptr;
};

} // namespace kwb::ledger
