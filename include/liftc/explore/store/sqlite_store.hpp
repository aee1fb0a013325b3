#pragma once
// The SQLite backend of the results store: one file, the embedded default (`--db FILE`).
// Rows are durable once add() returns (WAL), and a kill -9 cannot corrupt the file.

#include <memory>
#include <string>

#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

/// A results store in one SQLite file.
class SqliteStore final : public Store {
 public:
  /// Opens (creating when missing) the store at `path` for writing; a liftc::Error when it
  /// is not a store, is of a later format (kStoreFormat), is damaged, cannot be written (a
  /// file it created is then removed), or is a symbolic link to nothing (never removed).
  explicit SqliteStore(const std::string& path);
  ~SqliteStore() override;

  /// Opens an existing store read-only (also in a folder this process cannot write); a
  /// liftc::Error when it is missing, not a store or of a later format.
  static std::unique_ptr<SqliteStore> open_existing(const std::string& path);

  std::int64_t begin_run(const std::string& file, const std::string& config_json) override;
  /// An advisory lock on the store file (one byte per run, far beyond those SQLite locks).
  /// Closing a SqliteStore that holds a lock closes a descriptor of the file, which drops
  /// every POSIX lock of this process on it, SQLite's too: no other SqliteStore of the same
  /// file may be open in this process when it closes.
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
  SqliteStore(const std::string& path, bool read_only);
  void open_read_only();
  void open_for_writing();
  std::unique_ptr<Connection> c_;
};

}  // namespace liftc::explore
