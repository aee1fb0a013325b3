// Which backend a store's name opens: one row a backend, found by the name's scheme.

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "liftc/explore/store/postgres_store.hpp"
#include "liftc/explore/store/sqlite_store.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

// A backend reached through a URL: the schemes that name it and how it opens.
struct UrlBackend {
  std::array<std::string_view, 2> schemes;
  std::unique_ptr<Store> (*open)(const std::string& url);
  std::unique_ptr<Store> (*open_existing)(const std::string& url);
};

const UrlBackend kUrlBackends[] = {
    {{"postgresql://", "postgres://"},
     [](const std::string& url) -> std::unique_ptr<Store> { return std::make_unique<PostgresStore>(url); },
     [](const std::string& url) -> std::unique_ptr<Store> { return PostgresStore::open_existing(url); }},
};

const UrlBackend* url_backend(const std::string& db) {
  for (const auto& b : kUrlBackends)
    for (std::string_view scheme : b.schemes)
      if (db.starts_with(scheme)) return &b;
  // Another scheme is no file name a user meant.
  auto colon = db.find("://");
  bool scheme = colon != std::string::npos && colon > 0 && std::isalpha(static_cast<unsigned char>(db[0])) &&
                std::all_of(db.begin(), db.begin() + static_cast<std::ptrdiff_t>(colon),
                            [](unsigned char c) { return std::isalnum(c) || c == '+' || c == '-'; });
  if (scheme)
    throw Error(fmt::format("--db {}: liftc keeps results in a SQLite file (give its path) or in PostgreSQL "
                            "(postgresql://USER@HOST/DATABASE or postgres://...)",
                            db.substr(0, colon + 3) + "..."));
  return nullptr;
}

}  // namespace

bool is_database_url(const std::string& db) { return url_backend(db) != nullptr; }

std::string shown_store_name(const std::string& db) { return is_database_url(db) ? hide_password(db) : db; }

std::vector<std::string> shown_store_names(const std::vector<std::string>& dbs) {
  std::vector<std::string> shown;
  for (const auto& db : dbs) shown.push_back(shown_store_name(db));
  return shown;
}

bool password_hidden(const std::string& shown) {
  return is_database_url(shown) && (shown.find(":***@") != std::string::npos || shown.find("password=***") != std::string::npos);
}

std::unique_ptr<Store> Store::open(const std::string& db) {
  if (const UrlBackend* b = url_backend(db)) return b->open(db);
  return std::make_unique<SqliteStore>(db);
}

std::unique_ptr<Store> Store::open_existing(const std::string& db) {
  if (const UrlBackend* b = url_backend(db)) return b->open_existing(db);
  return SqliteStore::open_existing(db);
}

}  // namespace liftc::explore
