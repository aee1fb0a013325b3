// A candidate's generation shared by its features and its evaluation (generation_memo.hpp).

#include "liftc/explore/evaluation/generation_memo.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "liftc/explore/candidates/constraint_space.hpp"

namespace liftc::explore {

GenerationMemo::GenerationMemo(const CandidateSpace& space, std::string build_options, std::size_t capacity)
    : space_(space), build_options_(std::move(build_options)), capacity_(std::max<std::size_t>(capacity, 1)) {}

std::shared_ptr<const Generated> GenerationMemo::generated(const Candidate& c, User user) {
  LIFTC_ASSERT(c.alternative < space_.alternatives.size(), "a candidate of the memo's space");
  auto by = static_cast<std::size_t>(user);
  {
    std::lock_guard lock(mutex_);
    if (auto it = kept_.find(c); it != kept_.end()) {
      Kept& k = it->second;
      std::shared_ptr<const Generated> g = k.generated;
      std::optional<Error> error = k.error;
      ++stats_.reused[by];
      stats_.saved_s[by] += k.seconds;
      k.used[by] = true;
      if (k.used[0] && k.used[1]) {  // both have it: no one asks again
        order_.erase(k.age);
        kept_.erase(it);
      }
      if (error) throw *error;
      return g;
    }
  }
  const ConstraintAlternative* alt = candidate_of(*space_.alternatives[c.alternative]).constraint_space();
  LIFTC_ASSERT(alt, "only liftc's own kernels are kept: a library call is not generated per point");
  auto begin = std::chrono::steady_clock::now();
  Kept made;
  try {
    made.generated = std::make_shared<const Generated>(generate_candidate(*alt, c.point, build_options_));
  } catch (const Error& e) {
    made.error = e;
  }
  made.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  made.used[by] = true;
  std::shared_ptr<const Generated> g = made.generated;
  std::optional<Error> error = made.error;
  {
    std::lock_guard lock(mutex_);
    ++stats_.generated[by];
    stats_.generate_s[by] += made.seconds;
    // Another thread may have made it meanwhile: the first kept stays (they are the same).
    if (!kept_.count(c)) {
      order_.push_back(c);
      made.age = std::prev(order_.end());
      kept_.emplace(c, std::move(made));
      while (kept_.size() > capacity_) {
        kept_.erase(order_.front());
        order_.pop_front();
        ++stats_.evicted;
      }
      stats_.most_kept = std::max(stats_.most_kept, kept_.size());
    }
  }
  if (error) throw *error;
  return g;
}

Artefacts GenerationMemo::artefacts(const Candidate& c, const interp::Tensors& inputs) {
  const CandidateAlternative& alt = candidate_of(*space_.alternatives[c.alternative]);
  if (!alt.constraint_space()) return alt.generate(c.point, inputs, build_options_);
  return ConstraintAlternative::artefacts(*generated(c, User::Evaluator), inputs);
}

std::size_t GenerationMemo::kept() const {
  std::lock_guard lock(mutex_);
  return kept_.size();
}

GenerationStats GenerationMemo::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::string format_generation_stats(const GenerationStats& s, std::size_t capacity) {
  constexpr auto features = static_cast<std::size_t>(GenerationMemo::User::Features);
  constexpr auto evaluator = static_cast<std::size_t>(GenerationMemo::User::Evaluator);
  return fmt::format("generations: the features made {} ({:.3f} s), the evaluator {} ({:.3f} s); the evaluator "
                     "reused {} of the features' ({:.3f} s saved), the features {} of the evaluator's ({:.3f} s "
                     "saved); {} dropped before both used them, at most {} kept of {}",
                     s.generated[features], s.generate_s[features], s.generated[evaluator], s.generate_s[evaluator],
                     s.reused[evaluator], s.saved_s[evaluator], s.reused[features], s.saved_s[features], s.evicted,
                     s.most_kept, capacity);
}

}  // namespace liftc::explore
