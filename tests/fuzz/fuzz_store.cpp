// libFuzzer target for the results store's reader: the input becomes a store, and the
// store is read the way `liftc results`, `explore --resume` and `explore --replay` read
// one (runs and their configs, evaluations all and by run, by key and by candidate,
// references). Every read must succeed or throw liftc::Error: no crash, no other exception,
// no AddressSanitizer report.
//
// Two kinds of input:
//  * a file that starts with SQLite's magic ("SQLite format 3\0") is written as the store
//    file itself (seed it with a small store; its bytes are mutated);
//  * anything else is the values of rows of a well-formed store (one row of each table in
//    turn, up to four rounds): the input is cut at '\n' into fields, each field's first
//    byte picks how SQLite stores it (i: integer, r: real, n: NULL, b: bytes, t: text;
//    anything else: the whole field as text).

#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "liftc/explore/store/sqlite_store.hpp"
#include "liftc/support/diagnostic.hpp"

namespace {

namespace fs = std::filesystem;
using liftc::explore::SqliteStore;
using liftc::explore::Store;

const std::string& scratch_path() {
  static const std::string path = (fs::temp_directory_path() / fmt::format("fuzz_store_{}.db", getpid())).string();
  return path;
}

void remove_store(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
}

// Reads everything the commands read; a liftc::Error ends that part.
void read_all(const Store& s) {
  try {
    for (const auto& r : s.runs()) {
      (void)s.run_config(r);
      (void)s.evaluations(r.id);
    }
  } catch (const liftc::Error&) {
  }
  try {
    for (const auto& e : s.evaluations()) {
      (void)liftc::explore::valid_result(e);
      (void)s.find_all(e.key);
      (void)s.find_candidate(e.program, e.strategy, e.alternative, e.point);
      (void)s.reference(e.program);
    }
  } catch (const liftc::Error&) {
  }
  try {
    for (const auto& key : s.reference_keys()) (void)s.reference(key);
  } catch (const liftc::Error&) {
  }
}

// The next '\n'-ended field of `data`, bound to parameter `i` of `stmt` as its first byte says.
void bind_field(sqlite3_stmt* stmt, int i, std::string_view& data) {
  std::size_t end = data.find('\n');
  std::string_view field = data.substr(0, end);
  data = end == std::string_view::npos ? std::string_view() : data.substr(end + 1);
  std::string rest(field.empty() ? field : field.substr(1));
  switch (field.empty() ? 't' : field[0]) {
    case 'i': sqlite3_bind_int64(stmt, i, std::strtoll(rest.c_str(), nullptr, 10)); break;
    case 'r': sqlite3_bind_double(stmt, i, std::strtod(rest.c_str(), nullptr)); break;
    case 'n': sqlite3_bind_null(stmt, i); break;
    case 'b': sqlite3_bind_blob(stmt, i, rest.data(), static_cast<int>(rest.size()), SQLITE_TRANSIENT); break;
    case 't': sqlite3_bind_text(stmt, i, rest.data(), static_cast<int>(rest.size()), SQLITE_TRANSIENT); break;
    default: sqlite3_bind_text(stmt, i, field.data(), static_cast<int>(field.size()), SQLITE_TRANSIENT);
  }
}

// The store the field inputs fill: made once, emptied and filled again for each input
// (making a store for each would cost most of the time).
sqlite3* field_store(const std::string& path) {
  static sqlite3* db = [&] {
    remove_store(path);
    std::atexit([] { remove_store(scratch_path() + "-fields.db"); });
    { SqliteStore make(path); }  // the schema, as explore makes it
    sqlite3* h = nullptr;
    sqlite3_open(path.c_str(), &h);
    return h;
  }();
  return db;
}

// Replaces the rows of the field store with rows whose values are the fields of `data`:
// one row of each table in turn, again while fields are left (at most four rounds).
void fill_rows(sqlite3* db, std::string_view data) {
  sqlite3_exec(db, "BEGIN; DELETE FROM runs; DELETE FROM run_ends; DELETE FROM evaluations; DELETE FROM refs;", nullptr,
               nullptr, nullptr);
  const char* inserts[] = {
      "INSERT INTO runs(id, started, file, config, liftc_version) VALUES(?, ?, ?, ?, ?)",
      "INSERT INTO run_ends(run, finished) VALUES(?, ?)",
      "INSERT INTO evaluations(id, run, key, program, file, strategy, alternative, point, status, reason, time_ms, "
      "spread_ms, samples_ms, memory_bytes, device, driver, shapes, liftc_version, created, timeout_s, machine) "
      "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO refs(key, what, meta, data, created) VALUES(?, ?, ?, ?, ?)",
  };
  for (int round = 0; round < 4 && !data.empty(); ++round)
    for (const char* sql : inserts) {
      sqlite3_stmt* stmt = nullptr;
      if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) continue;
      for (int i = 1; i <= sqlite3_bind_parameter_count(stmt); ++i) bind_field(stmt, i, data);
      sqlite3_step(stmt);  // a NOT NULL or key conflict leaves that row out
      sqlite3_finalize(stmt);
    }
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
}

// Opens `path` read-only (as `results` and `--replay` do) and for writing (as explore
// does), and reads everything.
void open_and_read(const std::string& path) {
  try {
    read_all(*SqliteStore::open_existing(path));
  } catch (const liftc::Error&) {
  }
  try {
    SqliteStore writable(path);  // the schema made or checked, an earlier version's store given the new column
    read_all(writable);
  } catch (const liftc::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  if (data.substr(0, kMagic.size()) == kMagic) {
    const std::string& path = scratch_path();
    remove_store(path);
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      std::fwrite(data.data(), 1, data.size(), f);
      std::fclose(f);
    }
    open_and_read(path);
    remove_store(path);
  } else {
    static const std::string path = scratch_path() + "-fields.db";
    fill_rows(field_store(path), data);
    open_and_read(path);
  }
  return 0;
}
