// The queue and the generation 0 that the genetic and model-guided searches share (rounds.hpp).

#include "liftc/explore/search/rounds.hpp"

#include <algorithm>

namespace liftc::explore {

std::optional<Candidate> RoundSearch::ask() {
  if (pending_.empty()) {
    pass_on_told();
    next_round();
    if (pending_.empty()) return std::nullopt;  // the search ends
    ++rounds_;
  }
  unseen_.push_back(std::move(pending_.front()));
  pending_.pop_front();
  return unseen_.back().candidate;
}

void RoundSearch::tell(const Candidate& c, const Outcome& o) {
  auto it = std::find_if(unseen_.begin(), unseen_.end(),
                         [&](const Asked& a) { return !a.outcome && a.candidate == c; });
  if (it == unseen_.end()) return;  // not asked, or told before
  it->outcome = o;
  it->slow = it->slow || o.seconds > slow_s_;  // at least what `running` said
  pass_on_told();
}

void RoundSearch::running(const Candidate& c, double seconds) {
  if (!(seconds > slow_s_)) return;
  auto it =
      std::find_if(unseen_.begin(), unseen_.end(), [&](const Asked& a) { return !a.outcome && a.candidate == c; });
  if (it != unseen_.end()) it->slow = true;
}

bool RoundSearch::due(const Asked& a) const { return a.round + (a.slow ? slow_lag_ : lag_) < rounds_; }

bool RoundSearch::waiting() const {
  // Round rounds_ needs the outcomes it sees; pass_on_told has passed on those told up to
  // the first one it sees that is not told yet.
  if (!pending_.empty()) return false;
  auto first = std::find_if(unseen_.begin(), unseen_.end(), [&](const Asked& a) { return due(a); });
  return first != unseen_.end() && !first->outcome;
}

void RoundSearch::pass_on_told() {
  // A candidate not seen yet stays (a slow one is seen later); the order of those passed is
  // the order asked, whatever the order told. One not told yet is not slow as far as this
  // knows, but its outcome may say so: those after it wait, so the same outcomes always
  // pass in the same order.
  for (auto it = unseen_.begin(); it != unseen_.end();) {
    if (!due(*it)) {
      ++it;
      continue;
    }
    if (!it->outcome) break;
    Asked a = std::move(*it);
    it = unseen_.erase(it);
    told(a.candidate, *a.outcome);
  }
}

void RoundSearch::queue(const Candidate& c) {
  asked_.insert(c);
  pending_.push_back({c, rounds_, std::nullopt});
}

std::optional<Candidate> RoundSearch::random_candidate(const std::map<std::string, double>& strategy_weights) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    Candidate c;
    c.alternative = draw_alternative(space_, rng_, strategy_weights);
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

void RoundSearch::first_round(const std::vector<Candidate>& seeds, std::size_t size, bool every_alternative) {
  for (const Candidate& c : seeds)
    if (c.alternative < space_.alternatives.size() && space_.alternatives[c.alternative]->valid(c.point) && fresh(c))
      queue(c);
  std::vector<std::size_t> order;
  for (std::size_t a = 0; every_alternative && a < space_.alternatives.size(); ++a)
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
