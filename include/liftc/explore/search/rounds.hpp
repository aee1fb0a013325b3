#pragma once
// What the genetic and the model-guided searches share: candidates handed out in rounds (a
// generation, a ranked batch) from one queue, the next round made only once every candidate
// of the last one was told (`waiting()`, so the candidates do not depend on how many
// evaluations run at once), and the first round both start with (generation 0).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "liftc/explore/search/searches.hpp"

namespace liftc::explore {

/// A search that hands out its candidates in rounds. A subclass makes each round with
/// `queue` in `next_round` and learns each outcome in `told`.
class RoundSearch : public Search {
 public:
  std::optional<Candidate> ask() final;
  void tell(const Candidate& c, const Outcome& o) final;
  /// The next round is made from the outcomes of this one: all of them.
  bool waiting() const final { return pending_.empty() && untold_ > 0; }

 protected:
  RoundSearch(CandidateSpace& space, std::uint64_t seed) : space_(space), rng_(seed) {}

  /// Queues the next round; queuing nothing ends the search.
  virtual void next_round() = 0;
  /// The outcome of a candidate asked.
  virtual void told(const Candidate& c, const Outcome& o) = 0;

  /// Not asked before nor queued.
  bool fresh(const Candidate& c) const { return !asked_.count(c); }
  /// Hands `c` out after the candidates queued before it.
  void queue(const Candidate& c);
  /// Candidates queued and not asked yet.
  std::size_t queued() const { return pending_.size(); }
  /// A fresh point of a drawn alternative (draw_alternative); nullopt after 200 draws found none.
  std::optional<Candidate> random_candidate();
  /// A fresh sampled point of alternative `a`; nullopt after 50 samples found none.
  std::optional<Candidate> sample_of(std::size_t a);
  /// Generation 0, queued: the `seeds` that are valid points of the space, a point of every
  /// alternative with valid points (in random order), then random draws up to `size`. With
  /// more alternatives than `size` (VGG-16's layer 2 has 28 to a population of 24), draws
  /// alone left a third of them, the fastest among them, without a single point.
  void first_round(const std::vector<Candidate>& seeds, std::size_t size);

  CandidateSpace& space_;
  std::mt19937_64 rng_;

 private:
  std::deque<Candidate> pending_;  // asked for next, in order
  std::set<Candidate> asked_;      // queued or asked
  std::size_t untold_ = 0;         // asked, outcome not told yet
};

}  // namespace liftc::explore
