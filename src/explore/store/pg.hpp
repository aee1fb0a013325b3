#pragma once
// What the PostgreSQL store and the work queue share of libpqxx: parameters as libpq takes
// them, `?` statements numbered as $1, $2, ..., a server's message on one line, fields read
// back. Private to the store.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pqxx/pqxx>

#include "queries.hpp"

namespace liftc::explore::pg {

// A parameter as libpq takes it: text, or NULL.
using Param = std::optional<std::string>;

inline Param param(std::int64_t v) { return std::to_string(v); }
inline Param param(const std::string& v) { return v; }
inline Param param(double v) {
  if (std::isnan(v)) return std::nullopt;  // as SQLite keeps NaN: NULL
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", v);  // the shortest text that reads back as the same double
}
// Bytes as bytea's hex input form.
inline Param bytes_param(const std::string& bytes) {
  std::string out = "\\x";
  out.reserve(2 + 2 * bytes.size());
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// `sql` with its `?` numbered as PostgreSQL's $1, $2, ... (the shared statements hold no `?`
// in a quoted string).
inline std::string numbered(const std::string& sql) {
  std::string out;
  int n = 0;
  for (char c : sql) out += c == '?' ? fmt::format("${}", ++n) : std::string(1, c);
  return out;
}

// A message of libpq or the server on one line.
inline std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Runs `sql` (with `?` parameters) with `values`.
inline pqxx::result exec(pqxx::transaction_base& t, const std::string& sql, const std::vector<Param>& values) {
  std::vector<const char*> pointers;
  for (const Param& v : values) pointers.push_back(v ? v->c_str() : nullptr);
  return t.exec_params(numbered(sql), pqxx::prepare::make_dynamic_params(pointers));
}

inline std::vector<Param> params(const std::vector<queries::Value>& values) {
  std::vector<Param> out;
  for (const auto& v : values) out.push_back(std::visit([](const auto& x) { return param(x); }, v));
  return out;
}

inline std::int64_t integer(const pqxx::field& f) { return f.is_null() ? 0 : f.as<std::int64_t>(); }
inline double real(const pqxx::field& f) {
  return f.is_null() ? std::numeric_limits<double>::quiet_NaN() : std::strtod(f.c_str(), nullptr);
}
inline std::string text(const pqxx::field& f) { return f.is_null() ? std::string() : f.as<std::string>(); }

}  // namespace liftc::explore::pg
