#pragma once
// The PostgreSQL backend of the results store (`--db postgresql://USER@HOST/DATABASE`, also
// postgres://, and libpq's other URL forms such as `?host=/socket/folder`): the team's
// shared store, the same tables, keys and rules as a SQLite file. Every write is one
// transaction; the schema's format is kept in the table liftc_schema.

#include <memory>
#include <string>

#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

/// A results store in a PostgreSQL database.
class PostgresStore final : public Store {
 public:
  /// Connects to the database at `url` and makes its tables when it has none; a liftc::Error
  /// when it cannot be reached or refuses the login (libpq's reason, the URL without its
  /// password), holds a store of a later format, or holds tables that are no store.
  explicit PostgresStore(const std::string& url);
  ~PostgresStore() override;

  /// Connects to an existing store read-only; a liftc::Error also when the database holds none.
  static std::unique_ptr<PostgresStore> open_existing(const std::string& url);

  std::int64_t begin_run(const std::string& file, const std::string& config_json) override;
  /// A session-level advisory lock of the database, which the server drops when the
  /// connection ends (the process ended, however it ended).
  bool try_lock_run(std::int64_t id) override;
  void end_run(std::int64_t id) override;
  std::vector<RunRecord> runs() const override;

  std::int64_t add(Evaluation& e) override;
  using Store::add;
  std::optional<Evaluation> find(const std::string& key) const override;
  std::vector<Evaluation> find_all(const std::string& key) const override;
  std::optional<Evaluation> find_candidate(const std::string& program, const std::string& strategy,
                                           std::int64_t alternative, const std::string& point) const override;
  std::vector<Evaluation> evaluations(const EvaluationFilter& filter) const override;
  using Store::evaluations;

  std::optional<interp::Tensors> reference(const std::string& key) const override;
  std::vector<std::string> reference_keys() const override;
  void put_reference(const std::string& key, const std::string& what, const interp::Tensors& outputs) override;

  struct Connection;

 private:
  PostgresStore(const std::string& url, bool read_only);
  std::unique_ptr<Connection> c_;
};

/// `url` with the password it holds (user:PASSWORD@, or password=... in its query) shown as
/// "***": how messages name a PostgreSQL store.
std::string hide_password(const std::string& url);

}  // namespace liftc::explore
