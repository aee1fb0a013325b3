#pragma once
// The results store's schema, written once for every backend: its formats (schema versions)
// and the steps from one to the next, the tables and columns every store has, and what
// differs between SQL dialects (column types, a substring test). Private to the store.

#include <string>
#include <vector>

namespace liftc::explore::schema {

/// What one SQL backend writes differently from another.
struct Dialect {
  const char* name;       // "SQLite", "PostgreSQL"
  const char* row_id;     // an id column the database numbers
  const char* integer;    // a 64-bit integer column
  const char* real;       // a double column
  const char* bytes;      // a byte-string column
  const char* contains;   // a test that text column {0} contains the text of parameter {1}
};

extern const Dialect kSqlite;
extern const Dialect kPostgres;

/// The tables and columns every liftc store has (a store without one is not a store).
struct TableColumns {
  const char* table;
  std::vector<const char*> columns;
};
extern const std::vector<TableColumns> kTables;

/// A column of the evaluations table added after the first SQLite stores: a store written
/// before one is still read (the column reads as NULL: NaN, or empty text), and gets it when
/// it is opened for writing. In the order they were added; each is read after the columns of
/// kTables. Every other store was made with them.
struct AddedColumn {
  const char* name;
  const char* type;
};
extern const std::vector<AddedColumn> kAddedEvaluationColumns;

/// The statements that bring a store of format `from` (0: an empty database) to kStoreFormat
/// in `dialect`, in order. Each statement may create what exists already (IF NOT EXISTS).
std::vector<std::string> migration(int from, const Dialect& dialect);

/// Refuses a store of format `format`: a later one than this liftc's (never read or written:
/// the liftc that wrote it, or a later one, opens it) or one below 0, which no liftc wrote.
/// `store` names it in the message.
void check_format(int format, const std::string& store);

}  // namespace liftc::explore::schema
