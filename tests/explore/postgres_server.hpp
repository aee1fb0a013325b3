#pragma once
// A throwaway PostgreSQL server for a test: a cluster made by initdb in a fresh temporary
// folder, started by pg_ctl listening only on a Unix socket in that folder, stopped and
// removed at the end. initdb refuses root: run as root (as CI is), the server runs as the
// user liftc-pg (scripts/setup.sh makes it), else nobody, and owns the folder. Its role
// liftc (a superuser) logs in without a password; the role `locked` only with the password
// kLockedPassword (scram-sha-256). A missing PostgreSQL is an error, never a skipped test.

#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pqxx/pqxx>

namespace liftc::explore::test {

class PostgresServer {
 public:
  static constexpr const char* kLockedPassword = "right-password";

  /// Where initdb and pg_ctl are: $LIFTC_PG_BIN, else Debian's PostgreSQL 15.
  static std::string bin_dir() {
    const char* env = std::getenv("LIFTC_PG_BIN");
    return env && *env ? env : "/usr/lib/postgresql/15/bin";
  }

  /// Makes and starts the cluster; empty when it runs, else why not.
  std::string start() {
    namespace fs = std::filesystem;
    for (const char* program : {"initdb", "pg_ctl"})
      if (access((fs::path(bin_dir()) / program).c_str(), X_OK) != 0)
        return fmt::format("PostgreSQL's {} is not in {}: install the server (scripts/setup.sh installs postgresql) "
                           "or set LIFTC_PG_BIN to the folder of initdb and pg_ctl",
                           program, bin_dir());
    char folder[] = "/tmp/liftc-pg-XXXXXX";
    if (!mkdtemp(folder)) return "cannot make a temporary folder for the server";
    dir_ = folder;
    if (std::string why = choose_user(); !why.empty()) return why;
    if (chown(dir_.c_str(), uid_, gid_) != 0) return fmt::format("cannot give {} to the server's user", dir_);
    if (!run(fmt::format("'{}/initdb' -D '{}/data' -U liftc -A trust -E UTF8 --locale=C --no-sync "
                                          ">'{}/initdb.log' 2>&1",
                                          bin_dir(), dir_, dir_)))
      return "initdb failed: " + read(dir_ + "/initdb.log");
    if (!write_hba()) return "cannot write pg_hba.conf";
    if (!run(fmt::format("'{}/pg_ctl' -D '{}/data' -l '{}/server.log' -w -s -o \"-c listen_addresses='' -c "
                         "unix_socket_directories='{}' -c fsync=off\" start",
                         bin_dir(), dir_, dir_, dir_)))
      return "pg_ctl start failed: " + read(dir_ + "/server.log");
    started_ = true;
    admin(fmt::format("CREATE ROLE locked LOGIN PASSWORD '{}'", kLockedPassword));
    return "";
  }

  ~PostgresServer() {
    if (started_) run(fmt::format("'{}/pg_ctl' -D '{}/data' -m immediate -w -s stop", bin_dir(), dir_));
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  /// The URL of `database` for `user` (libpq's socket-folder form: ?host=FOLDER).
  std::string url(const std::string& database, const std::string& user = "liftc") const {
    return fmt::format("postgresql://{}@/{}?host={}", user, database, dir_);
  }

  /// Runs `sql` in the database `database` as liftc (outside a transaction: CREATE DATABASE works).
  void sql(const std::string& database, const std::string& statements) const {
    pqxx::connection c(url(database));
    pqxx::nontransaction t(c);
    t.exec(statements);
  }
  void admin(const std::string& statements) const { sql("postgres", statements); }
  /// The first column of the first row `query` returns, as text ("" for NULL or no row).
  std::string value(const std::string& database, const std::string& query) const {
    pqxx::connection c(url(database));
    pqxx::nontransaction t(c);
    pqxx::result r = t.exec(query);
    return r.empty() || r[0][0].is_null() ? "" : r[0][0].c_str();
  }
  /// Makes an empty database `name`.
  void create_database(const std::string& name) const { admin(fmt::format("CREATE DATABASE \"{}\"", name)); }

  const std::string& dir() const { return dir_; }

 private:
  // liftc-pg, else nobody, when this process is root; else this user.
  std::string choose_user() {
    uid_ = getuid();
    gid_ = getgid();
    if (geteuid() != 0) return "";
    for (const char* name : {"liftc-pg", "nobody"})
      if (const passwd* p = getpwnam(name)) {
        uid_ = p->pw_uid;
        gid_ = p->pw_gid;
        return "";
      }
    return "the tests run as root, and neither the user liftc-pg nor nobody exists to run PostgreSQL as";
  }
  // Runs `command` with /bin/sh as the server's user; whether it exited 0.
  bool run(const std::string& command) const {
    pid_t pid = fork();
    if (pid == 0) {
      if (geteuid() == 0 && (setgid(gid_) != 0 || setuid(uid_) != 0)) _exit(126);
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  bool write_hba() const {
    std::string path = dir_ + "/data/pg_hba.conf";
    std::ofstream(path) << "local all locked scram-sha-256\nlocal all all trust\n";
    return chown(path.c_str(), uid_, gid_) == 0;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string dir_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool started_ = false;
};

/// A test fixture over `Base` (::testing::Test, or a fixture of its own) whose suite shares
/// one throwaway server: started before its first test, stopped after its last. `error_`
/// says why there is none (each test's SetUp asserts it is empty).
template <class Base>
class WithPostgresServer : public Base {
 protected:
  static void SetUpTestSuite() {
    server_ = new PostgresServer;
    error_ = server_->start();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  static inline PostgresServer* server_ = nullptr;
  static inline std::string error_;
};

}  // namespace liftc::explore::test
