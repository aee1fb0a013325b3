#include "liftc/explore/products/named_strategies.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "liftc/explore/candidates/library.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

// The tags of `given` ("-s @fast"), for a note; empty where none.
std::string tags_of(const std::vector<std::string>& given) {
  std::vector<std::string> tags;
  for (const auto& g : given)
    if (!g.empty() && g[0] == '@') tags.push_back("-s " + g);
  return fmt::format("{}", fmt::join(tags, " "));
}

}  // namespace

bool named_by_itself(const std::vector<std::string>& given, const std::string& strategy) {
  return std::find(given.begin(), given.end(), strategy) != given.end();
}

std::vector<std::string> check_program_strategies_apply(const std::vector<NotApplied>& not_applied,
                                                        const std::vector<std::string>& strategies,
                                                        const std::vector<std::string>& given) {
  for (const auto& n : not_applied)
    if (named_by_itself(given, n.strategy)) throw Error(n.why, n.loc);
  if (!not_applied.empty() && not_applied.size() == strategies.size())
    throw Error(fmt::format("no strategy of {} applies ({}{})", tags_of(given), not_applied.front().why,
                            not_applied.size() > 1 ? fmt::format("; and {} more", not_applied.size() - 1) : ""));
  std::vector<std::string> notes;
  for (const auto& n : not_applied) notes.push_back(fmt::format("{}: {}", tags_of(given), n.why));
  return notes;
}

void check_named_strategies_apply(const std::vector<Layer>& layers,
                                  const std::vector<std::vector<NotApplied>>& not_applied,
                                  const std::vector<std::string>& strategies, const std::vector<std::string>& given) {
  const auto& source = layers.front().program.source;
  std::string file = source ? source->path : "the network";
  for (const std::string& s : strategies)
    if (is_library_strategy(s) && named_by_itself(given, s))
      throw Error(
          fmt::format("strategy `{}` applies to no layer of {} (a network's layers do not offer clblast- "
                      "candidates yet)",
                      s, file));
  std::string first_why;  // why the first layer refused the first strategy that applies to none
  bool any = false;
  for (const std::string& s : strategies) {
    if (is_library_strategy(s)) continue;
    std::string why;  // why the first layer refused it
    bool applies = false;
    for (std::size_t i = 0; i < layers.size() && !applies; ++i) {
      auto it = std::find_if(not_applied[i].begin(), not_applied[i].end(),
                             [&](const NotApplied& n) { return n.strategy == s; });
      applies = it == not_applied[i].end();
      if (!applies && why.empty()) why = fmt::format("layer '{}': {}", layers[i].name, it->why);
    }
    any = any || applies;
    if (applies) continue;
    std::string error = fmt::format("strategy `{}` applies to no layer of {} ({})", s, file, why);
    if (named_by_itself(given, s)) throw Error(error);
    if (first_why.empty()) first_why = error;
  }
  if (!any && !first_why.empty()) throw Error(fmt::format("no strategy of {} applies ({})", tags_of(given), first_why));
}

}  // namespace liftc::explore
