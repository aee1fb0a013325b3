#pragma once
// What a store keeps, the same in every backend: the columns of an evaluation row and the
// Evaluation field each holds (one table: both backends bind a row and read it back by it),
// an evaluation's timed samples as a JSON list, and an interpreter reference as JSON meta and
// raw bytes; read back with checks (a damaged value is a liftc::Error naming the store and
// the row).

#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "liftc/explore/store/store.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::stored {

/// "STORE: WHAT is damaged (WHY)".
Error damaged(const std::string& store, const std::string& what, const std::string& why);

/// The samples as the JSON list a row keeps (a sample that is not finite is null).
std::string samples_to_json(const std::vector<double>& samples);
/// The samples of a row's JSON list (null: NaN); `what` names the row in the error.
std::vector<double> samples_from_json(const std::string& text, const std::string& store, const std::string& what);

/// A column of the evaluations table and the field of Evaluation it holds: an integer, a
/// number (NaN is NULL), text, or the samples (text: their JSON list).
struct EvaluationColumn {
  const char* name;
  std::variant<std::int64_t Evaluation::*, double Evaluation::*, std::string Evaluation::*,
               std::vector<double> Evaluation::*>
      field;
};

/// The evaluations table's columns in their order: the id (the store numbers it), then
/// every column a row is inserted with (schema::kTables' evaluations, then
/// schema::kAddedEvaluationColumns).
inline constexpr EvaluationColumn kEvaluationColumns[] = {
    {"id", &Evaluation::id},
    {"run", &Evaluation::run},
    {"key", &Evaluation::key},
    {"program", &Evaluation::program},
    {"file", &Evaluation::file},
    {"strategy", &Evaluation::strategy},
    {"alternative", &Evaluation::alternative},
    {"point", &Evaluation::point},
    {"status", &Evaluation::status},
    {"reason", &Evaluation::reason},
    {"time_ms", &Evaluation::time_ms},
    {"spread_ms", &Evaluation::spread_ms},
    {"samples_ms", &Evaluation::samples_ms},
    {"memory_bytes", &Evaluation::memory_bytes},
    {"device", &Evaluation::device},
    {"driver", &Evaluation::driver},
    {"shapes", &Evaluation::shapes},
    {"liftc_version", &Evaluation::version},
    {"created", &Evaluation::created},
    {"timeout_s", &Evaluation::timeout_s},
    {"machine", &Evaluation::machine},
    {"seconds", &Evaluation::seconds},
};

/// The INSERT of a row: every column but the id, as `?` parameters 1, 2, ... in the table's
/// order (bind_evaluation binds them), returning the id.
std::string insert_evaluation_statement();
/// The SELECT list of a row (read_evaluation reads it): every column in the table's order,
/// NULL in place of those in `absent` (the added columns a store from before them lacks).
std::string evaluation_select_list(const std::set<std::string>& absent = {});

/// Calls `bind(i, value)` for parameter i = 1, 2, ... of insert_evaluation_statement with
/// `e`'s field: a std::int64_t, a double or a std::string (the samples as their JSON list).
template <class Bind>
void bind_evaluation(const Evaluation& e, Bind&& bind) {
  for (int i = 1; i < static_cast<int>(std::size(kEvaluationColumns)); ++i)
    std::visit(
        [&](auto member) {
          if constexpr (std::is_same_v<decltype(member), std::vector<double> Evaluation::*>)
            bind(i, samples_to_json(e.*member));
          else
            bind(i, e.*member);
        },
        kEvaluationColumns[i].field);
}

/// The Evaluation of a row of evaluation_select_list's columns. `row` is the backend's:
/// `row.integer(col)` (std::optional<std::int64_t>: none when the column holds no integer),
/// `row.real(col)` (std::optional<double>: NaN for NULL, none when not a number) and
/// `row.text(col)`. A column of the wrong kind is damaged, as `store` names it.
template <class Row>
Evaluation read_evaluation(const Row& row, const std::string& store) {
  Evaluation e;
  e.id = row.integer(0).value_or(0);  // the store's own numbering: always an integer
  std::string what = fmt::format("evaluation {}", e.id);
  for (int col = 1; col < static_cast<int>(std::size(kEvaluationColumns)); ++col) {
    const EvaluationColumn& c = kEvaluationColumns[col];
    std::visit(
        [&](auto member) {
          using Member = decltype(member);
          if constexpr (std::is_same_v<Member, std::int64_t Evaluation::*>) {
            std::optional<std::int64_t> v = row.integer(col);
            if (!v) throw damaged(store, what, fmt::format("its {} is not an integer", c.name));
            e.*member = *v;
          } else if constexpr (std::is_same_v<Member, double Evaluation::*>) {
            std::optional<double> v = row.real(col);
            if (!v) throw damaged(store, what, fmt::format("its {} is not a number", c.name));
            e.*member = *v;
          } else if constexpr (std::is_same_v<Member, std::string Evaluation::*>) {
            e.*member = row.text(col);
          } else {
            e.*member = samples_from_json(row.text(col), store, what);
          }
        },
        c.field);
  }
  return e;
}

/// A reference as a row of refs keeps it: its tensors' names, dtypes and shapes, and their
/// elements' bytes one after the other.
struct EncodedReference {
  std::string meta;
  std::string data;
};
EncodedReference encode_reference(const interp::Tensors& outputs);
/// The tensors of a stored reference `key`, checked against its meta.
interp::Tensors decode_reference(const std::string& meta, const std::string& data, const std::string& store,
                                 const std::string& key);

}  // namespace liftc::explore::stored
