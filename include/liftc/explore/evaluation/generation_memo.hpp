#pragma once
// A candidate's generated kernels, shared by its code features and its evaluation, so that
// a measured candidate is generated once (issue 37). The model-guided search generates a
// shortlisted proposal for its features before it is asked (the evaluator then finds its
// kernels here) and a random draw, which the evaluator generates when it is asked, for its
// features once it is told (they then find its kernels here). A generation is kept until
// both have used it, or until it is the oldest of more than `capacity` kept (a proposal the
// search did not ask, a candidate told after `capacity` others were generated): memory is
// at most `capacity` generations (a module and its memory, never a launch plan's inputs).
// Both users get exactly what generate_candidate gives: the same kernels, plan and features
// as without the memo. A liftc::Error of a generation is kept too and thrown to each.

#include <array>
#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "liftc/explore/evaluation/candidate.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/search/space.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

/// What the memo did so far; by GenerationMemo::User where an array.
struct GenerationStats {
  std::array<std::size_t, 2> generated{};  // generations each user made (failed ones included)
  std::array<std::size_t, 2> reused{};     // each user's asks answered from a kept generation
  std::array<double, 2> generate_s{};      // time each user spent generating
  std::array<double, 2> saved_s{};         // the generation time of the ones each reused: what it did not spend
  std::size_t evicted = 0;                 // generations dropped as the oldest before both users had them
  std::size_t most_kept = 0;               // the most generations kept at once
};

/// The stats as explore prints them at the end of a run: made, reused, dropped, the most kept.
std::string format_generation_stats(const GenerationStats& s, std::size_t capacity);

/// The candidates of one space generated once for their features and their evaluation.
/// Safe to call from several threads (one lock around its maps; generation outside it).
class GenerationMemo {
 public:
  /// Who asks: each uses a candidate's generation once.
  enum class User { Features, Evaluator };

  /// Candidates of `space` (alive as long as the memo), generated with `build_options`
  /// besides the point's own; at most `capacity` (at least 1) kept.
  GenerationMemo(const CandidateSpace& space, std::string build_options, std::size_t capacity);

  /// The kernels of `c`, whose alternative's kernels are liftc's own (constraint_space()),
  /// as generate_candidate makes them: kept from the other user's ask, or made now and kept
  /// for it. A kept generation goes once both users have asked for it. Throws the
  /// generation's liftc::Error.
  std::shared_ptr<const Generated> generated(const Candidate& c, User user);

  /// What the evaluator runs of `c` with the problem's `inputs`: for liftc's kernels, the
  /// artefacts of its generation (ConstraintAlternative::artefacts), else the alternative's
  /// own generate (a library call: nothing of it is kept).
  Artefacts artefacts(const Candidate& c, const interp::Tensors& inputs);

  const std::string& build_options() const { return build_options_; }
  std::size_t capacity() const { return capacity_; }
  /// Generations kept now.
  std::size_t kept() const;
  GenerationStats stats() const;

 private:
  struct Kept {
    std::shared_ptr<const Generated> generated;  // null when the generation failed
    std::optional<Error> error;                  // why it failed
    double seconds = 0;                          // how long it took
    std::array<bool, 2> used{};                  // by User
    std::list<Candidate>::iterator age;          // its place in order_
  };

  const CandidateSpace& space_;
  std::string build_options_;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::map<Candidate, Kept> kept_;
  std::list<Candidate> order_;  // the kept candidates, oldest first
  GenerationStats stats_;
};

}  // namespace liftc::explore
