#pragma once
// The text an exploration reports when its loop ends: the candidates' summary, the front
// as a table, a network's layers (report.cpp). Private to the facade (explore.cpp).

#include <cstddef>
#include <string>
#include <vector>

#include "liftc/explore/products/network.hpp"
#include "liftc/explore/search/loop.hpp"

namespace liftc::explore {

/// "N candidates in S s (statuses); M served from the store; stopped: why", and the first
/// failure's reason (a status other than valid or missing).
std::string summary_text(const LoopResult& r, const CandidateSpace& space);

/// The front's table (`pareto`) or its fastest row; a liftc::Error ("no front: ...")
/// saying why when `front` is empty: nothing validated is no success.
std::string front_text(const LoopResult& r, const CandidateSpace& space, const std::vector<std::size_t>& front,
                       bool pareto);

/// Each layer of a network explored with its own space: its summary, rate and front.
std::string layers_text(const NetworkExploration& net, std::size_t jobs);

}  // namespace liftc::explore
