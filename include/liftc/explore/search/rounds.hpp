#pragma once
// What the genetic and the model-guided searches share: candidates handed out in rounds (a
// generation, a ranked batch) from one queue, the next round made only once every candidate
// of the last one was told (`waiting()`, so the candidates do not depend on how many
// evaluations run at once), and the first round both start with (generation 0).
//
// With a lag of L rounds, round n is made from the outcomes of rounds before n - L only:
// a candidate that takes long to evaluate (a library kernel's build takes seconds on a GPU
// where a generated one takes a tenth) holds the search up only once L more rounds were
// handed out, not at once, while the other jobs go on with those rounds. Outcomes told
// early wait (in the order asked) until a round may see them, so the candidates still do not
// depend on the order outcomes come in nor on how many evaluations run at once.
//
// A slow candidate (one that ran longer than `slow_s`: Outcome::seconds, or the loop's
// `running` while it still runs) is seen `slow_lag` rounds after its own instead of `lag`,
// and no round waits for it before then. Without it, a CLBlast candidate whose kernel took
// 5-12 s to build on the H200 held every round after the lag's six: with every strategy,
// 60 of a run's 120 s went by with 15 of 16 jobs idle (docs/results.md). Its seconds are an
// outcome like its time (stored with its row, so a resumed or replayed run sees it too): a
// round is made from the same outcomes, in the same order, however long the search waited.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "liftc/explore/search/searches.hpp"

namespace liftc::explore {

/// A search that hands out its candidates in rounds. A subclass makes each round with
/// `queue` in `next_round` and learns each outcome in `told`.
class RoundSearch : public Search {
 public:
  std::optional<Candidate> ask() final;
  void tell(const Candidate& c, const Outcome& o) final;
  /// The next round needs outcomes not told yet: those of every round before it but the
  /// last `lag` (with no lag, all of them).
  bool waiting() const final;
  /// Marks `c` slow once it has run longer than `slow_s`.
  void running(const Candidate& c, double seconds) final;

 protected:
  /// `lag`: rounds whose outcomes a new round goes without; `slow_lag`: the same for a
  /// candidate that ran longer than `slow_s` seconds (the file's comment).
  RoundSearch(CandidateSpace& space, std::uint64_t seed, std::size_t lag = 0, std::size_t slow_lag = 0,
              double slow_s = std::numeric_limits<double>::infinity())
      : space_(space), rng_(seed), lag_(lag), slow_lag_(std::max(slow_lag, lag)), slow_s_(slow_s) {}

  /// Queues the next round; queuing nothing ends the search.
  virtual void next_round() = 0;
  /// The outcome of a candidate asked, once a round may see it: in the order asked.
  virtual void told(const Candidate& c, const Outcome& o) = 0;

  /// Not asked before nor queued.
  bool fresh(const Candidate& c) const { return !asked_.count(c); }
  /// Hands `c` out after the candidates queued before it.
  void queue(const Candidate& c);
  /// Candidates queued and not asked yet.
  std::size_t queued() const { return pending_.size(); }
  /// A fresh point of a drawn alternative (draw_alternative, with its strategies'
  /// `strategy_weights`); nullopt after 200 draws found none.
  std::optional<Candidate> random_candidate(const std::map<std::string, double>& strategy_weights = {});
  /// A fresh sampled point of alternative `a`; nullopt after 50 samples found none.
  std::optional<Candidate> sample_of(std::size_t a);
  /// Generation 0, queued: the `seeds` that are valid points of the space, a point of every
  /// alternative with valid points (in random order), then random draws up to `size`. With
  /// more alternatives than `size` (VGG-16's layer 2 has 28 to a population of 24), draws
  /// alone left a third of them, the fastest among them, without a single point. Without
  /// `every_alternative`, the seeds and the draws only (a search that already knows where
  /// to look: the model-guided search trained on a tuning database ranks its first round).
  void first_round(const std::vector<Candidate>& seeds, std::size_t size, bool every_alternative = true);

  CandidateSpace& space_;
  std::mt19937_64 rng_;

 private:
  // A candidate queued or asked whose outcome `told` has not had yet: the round it was
  // queued in, and its outcome once the loop told it.
  struct Asked {
    Candidate candidate;
    std::size_t round = 0;
    std::optional<Outcome> outcome;
    bool slow = false;  // ran longer than slow_s_ (told so, or still running)
  };
  // Whether round rounds_ sees `a` (of a round before rounds_ - lag_, or - slow_lag_ if slow).
  bool due(const Asked& a) const;
  // The outcomes round `rounds_` may see, to `told`, in the order asked, up to the first it
  // may see that is not told yet.
  void pass_on_told();

  std::deque<Asked> pending_;  // queued, not asked yet, in order
  std::set<Candidate> asked_;  // queued or asked
  std::deque<Asked> unseen_;   // asked, not passed to `told` yet, in the order asked
  std::size_t rounds_ = 0;     // rounds made so far (the next one's number)
  std::size_t lag_ = 0;
  std::size_t slow_lag_ = 0;
  double slow_s_ = 0;
};

}  // namespace liftc::explore
