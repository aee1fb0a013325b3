// What every results store shares: which rows are valid, a run's config, the hash of a key
// and the time a row is stamped with.

#include "liftc/explore/store/store.hpp"

#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "stored_rows.hpp"

namespace liftc::explore {

bool status_valid(const std::string& s) { return s == status::Ok || s == status::Cut; }

bool valid_result(const Evaluation& e) {
  return status_valid(e.status) && std::isfinite(e.time_ms) && e.time_ms >= 0 && e.memory_bytes >= 0;
}

nlohmann::json Store::run_config(const RunRecord& run) const {
  nlohmann::json config = nlohmann::json::parse(run.config, nullptr, false);
  if (config.is_discarded() || !config.is_object())
    throw stored::damaged(path(), fmt::format("run {}", run.id), "its config is not a JSON object");
  return config;
}

std::string hash_text(const std::string& text) {
  std::uint64_t a = 14695981039346656037ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char c : text) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace liftc::explore
