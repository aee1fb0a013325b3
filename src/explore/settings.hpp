#pragma once
// A Request's options checked and settled into the values the search, the loop and the
// evaluator take (settings.cpp). Private to the facade (explore.cpp).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/request.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/search/registry.hpp"
#include "liftc/ir/program.hpp"

namespace liftc::explore {

struct Settings {
  Budget budget;
  std::uint64_t seed = 1, input_seed = 0;
  GeneticOptions genetic;
  const SearchKind* search = nullptr;  // from the registry (registry.hpp)
  EvaluatorOptions evaluator;
  std::size_t jobs = 1;  // candidates evaluated at once
  std::size_t workers = 0;        // --workers N: local workers to start
  bool external_workers = false;  // --workers external: candidates only queued
  std::size_t max_program_alternatives = kDefaultMaxProgramAlternatives;
  codegen::StorageChoice storage;  // --storage
  std::size_t replay_seeds = 0;  // --seeds: the replay benchmark over that many seeds; 0 = one replay

  Featurizer features;   // what the model-guided search's model sees (explore.cpp: model_inputs)
  Featurizer shortlist_features;  // its first stage of ranking
  std::size_t shortlist = 0;       // the proposals of a round its model scores
  TransferRows transfer; // a tuning database's rows it trains on first
  std::function<double()> reused_by_evaluator;  // of the features' generations (explore.cpp: model_inputs)
  KernelReach kernel_reach;  // which kernels each parameter reaches (explore.cpp: model_inputs)
  std::unique_ptr<Search> make_search(CandidateSpace& space) const {
    return search->make(space, {seed, genetic, features, jobs, shortlist_features, shortlist, transfer,
                                reused_by_evaluator, kernel_reach});
  }
};

/// Checks every option of `r` and settles its values; a liftc::Error names the flag.
Settings settle(const Request& r);

/// explore runs the program on inputs of its sizes, and has no --size flag (its runs are
/// stored and resumed by the program file's text): every size needs its value in the
/// program. A liftc::Error at the first size without one.
void require_size_values(const ir::Program& program);

}  // namespace liftc::explore
