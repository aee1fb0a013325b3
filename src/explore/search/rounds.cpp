// The queue and the generation 0 that the genetic and model-guided searches share (rounds.hpp).

#include "liftc/explore/search/rounds.hpp"

#include <algorithm>

namespace liftc::explore {

std::optional<Candidate> RoundSearch::ask() {
  if (pending_.empty()) next_round();
  if (pending_.empty()) return std::nullopt;
  Candidate c = pending_.front();
  pending_.pop_front();
  ++untold_;
  return c;
}

void RoundSearch::tell(const Candidate& c, const Outcome& o) {
  if (untold_ > 0) --untold_;
  told(c, o);
}

void RoundSearch::queue(const Candidate& c) {
  asked_.insert(c);
  pending_.push_back(c);
}

std::optional<Candidate> RoundSearch::random_candidate() {
  for (int attempt = 0; attempt < 200; ++attempt) {
    Candidate c;
    c.alternative = draw_alternative(space_, rng_);
    if (space_.alternatives[c.alternative]->count() <= 0) continue;
    c.point = space_.alternatives[c.alternative]->sample(rng_);
    if (fresh(c)) return c;
  }
  return std::nullopt;
}

std::optional<Candidate> RoundSearch::sample_of(std::size_t a) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    Candidate c{a, space_.alternatives[a]->sample(rng_)};
    if (fresh(c)) return c;
  }
  return std::nullopt;
}

void RoundSearch::first_round(const std::vector<Candidate>& seeds, std::size_t size) {
  for (const Candidate& c : seeds)
    if (c.alternative < space_.alternatives.size() && space_.alternatives[c.alternative]->valid(c.point) && fresh(c))
      queue(c);
  std::vector<std::size_t> order;
  for (std::size_t a = 0; a < space_.alternatives.size(); ++a)
    if (space_.alternatives[a]->count() > 0) order.push_back(a);
  std::shuffle(order.begin(), order.end(), rng_);
  for (std::size_t a : order)
    if (auto c = sample_of(a)) queue(*c);
  while (queued() < size) {
    auto c = random_candidate();
    if (!c) break;
    queue(*c);
  }
}

}  // namespace liftc::explore
