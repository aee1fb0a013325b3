#pragma once
// The statements every backend runs, written once: `?` marks a parameter (the PostgreSQL
// backend numbers them $1, $2, ...), and what differs between dialects comes from
// schema::Dialect. No outside text is ever part of a statement: it is a parameter.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "liftc/explore/store/store.hpp"
#include "schema.hpp"

namespace liftc::explore::queries {

/// A parameter's value.
using Value = std::variant<std::int64_t, std::string>;

/// A WHERE clause ("" or "WHERE ...") and its parameters, in order.
struct Condition {
  std::string where;
  std::vector<Value> values;
};

inline constexpr const char* kInsertRun =
    "INSERT INTO runs(started, file, config, liftc_version) VALUES(?, ?, ?, ?) RETURNING id";
inline constexpr const char* kInsertRunEnd = "INSERT INTO run_ends(run, finished) VALUES(?, ?)";
/// id, started, file, config, finished (1 or 0).
inline constexpr const char* kSelectRuns =
    "SELECT id, started, file, config, CASE WHEN EXISTS(SELECT 1 FROM run_ends WHERE run = runs.id) THEN 1 ELSE 0 END "
    "FROM runs ORDER BY id";
// An evaluation row's INSERT and SELECT list: stored_rows.hpp (its table of columns).
inline constexpr const char* kByKey = "WHERE key = ?";
inline constexpr const char* kByCandidate = "WHERE program = ? AND strategy = ? AND alternative = ? AND point = ?";
inline constexpr const char* kSelectReference = "SELECT meta, data FROM refs WHERE key = ?";
inline constexpr const char* kSelectReferenceKeys = "SELECT key FROM refs ORDER BY key";
inline constexpr const char* kInsertReference =
    "INSERT INTO refs(key, what, meta, data, created) VALUES(?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING";

/// The SELECT of evaluations: `columns` (the SELECT list), `where`, then `order` ("ORDER BY id").
std::string select_evaluations(const std::string& columns, const std::string& where, const std::string& order);


/// The condition that keeps the evaluations `filter` keeps.
Condition evaluation_filter(const EvaluationFilter& filter, const schema::Dialect& dialect);

}  // namespace liftc::explore::queries
