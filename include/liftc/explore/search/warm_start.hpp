#pragma once
// Warm start (`liftc explore --warm-start`): the genetic search's first generation seeded
// with the fastest validated points earlier runs stored for the same program on the same
// device, so that explorations of one program add up instead of each starting over.

#include <optional>
#include <string>
#include <vector>

#include "liftc/explore/search/space.hpp"
#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

/// The `count` fastest validated evaluations in `store` of program `program_hash` (the
/// problem's hash: .sr text, sizes, input seed) on device `device` by runs before run
/// `run`, as candidates of `space`, fastest first and each once. Only earlier runs: a
/// resumed run (--resume) gets the seeds it started with, so it proposes the candidates it
/// proposed before and they are served, not evaluated again. A row that is no candidate of
/// `space` (stored_candidate) is left out.
/// Stored row `row` as a candidate of `space`: the alternative of its strategy and number,
/// its point read back by that alternative's parameter names; none when the space no longer
/// has that alternative, those parameters or that point (other rules, another target's limits).
std::optional<Candidate> stored_candidate(const CandidateSpace& space, const Evaluation& row);

std::vector<Candidate> stored_seeds(const Store& store, const std::string& program_hash, const std::string& device,
                                    std::int64_t run, const CandidateSpace& space, std::size_t count);

}  // namespace liftc::explore
