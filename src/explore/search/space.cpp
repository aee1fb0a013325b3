// What a search sees of a space (space.hpp): a point's text.

#include "liftc/explore/search/space.hpp"

#include <fmt/format.h>

namespace liftc::explore {

std::string format_point(const Alternative& alt, const Point& p) {
  std::string out;
  const auto& params = alt.parameters();
  for (std::size_t i = 0; i < params.size() && i < p.size(); ++i)
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", params[i].name, p[i]);
  return out;
}

}  // namespace liftc::explore
