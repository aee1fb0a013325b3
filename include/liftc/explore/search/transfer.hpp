#pragma once
// A tuning database that transfers (issue 37): the rows other programs, shapes and devices
// left in a results store, as the model-guided search's first training rows, and the best
// points of the nearest shapes, mapped into this program's space, as its first candidates.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "liftc/explore/search/model_search.hpp"
#include "liftc/explore/search/space.hpp"
#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

/// The program the rows are for: they are taken from every other (program, device).
struct TransferTarget {
  std::string program_hash;
  std::string device;
  std::string shapes;  // "image=28x28x32,weights=32x3x3x32": the nearest shapes are nearest to these
  std::int64_t before_run = std::numeric_limits<std::int64_t>::max();  // rows of earlier runs only (a resumed run's own rows and later ones are not)
  std::vector<std::string> strategies;  // the one-hot columns `strategy.<name>` (cost::feature_strategies)
};

/// Rows of the stores `dbs` (one tuning database, or several read as one: a (program, device)
/// in two of them is one group) of every (program, device) but the target's, grouped so, each row's features
/// those of cost::point_features (strategy one-hot, alternative, `param.<name>`: what a row
/// says without its program) and its time relative to its group's best validated time
/// (infinity: failed). A group without two different validated times is left out (it ranks
/// nothing); at most `limit` rows, every k-th of each group beyond it.
TransferRows transfer_rows(const std::vector<const Store*>& dbs, const TransferTarget& target, std::size_t limit = 4000);

/// How far two shapes texts are apart: Σ |log(a/b)| over the dimensions of inputs of one
/// name and rank, and 10 for an input either lacks or of another rank.
double shapes_distance(const std::string& a, const std::string& b);

/// The fastest validated points of the other programs of `dbs` (other shapes, other devices:
/// the target's device first, then by shapes_distance), up to `per_group` of each group in
/// that order and `count` in all, mapped into `space`: the alternative of the same strategy
/// and number, the point read by its parameter names, and where it is not valid there, the
/// space's nearest valid point (`Alternative::repair`).
std::vector<Candidate> nearest_shape_seeds(const std::vector<const Store*>& dbs, const TransferTarget& target,
                                           const CandidateSpace& space,
                                           std::size_t count, std::size_t per_group = 4);

}  // namespace liftc::explore
