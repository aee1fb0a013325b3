#pragma once
// The strategies a user names with -s, checked against what they apply to. A strategy named by
// its own name must apply (to the program, or to some layer of a network); one named by a tag
// (-s @fast: every strategy tagged fast) need not, since a tag names strategies for kinds of
// convolution the program may not hold, but some strategy named must apply.

#include <string>
#include <vector>

#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/products/layers.hpp"

namespace liftc::explore {

/// Whether `strategy` is in `given` (-s as typed) by its own name, not only through a tag.
bool named_by_itself(const std::vector<std::string>& given, const std::string& strategy);

/// A single program's check: `strategies` (given, its tags expanded, no `clblast-` one) are
/// those build_candidate_space tried, `not_applied` those that did not apply. A liftc::Error
/// with the rewriter's reason for the first named by itself that does not apply, or where none
/// applies; else one note for each strategy of a tag that does not apply ("-s @fast:
/// conv-chw-tile-m0 does not apply to FILE (...)").
std::vector<std::string> check_program_strategies_apply(const std::vector<NotApplied>& not_applied,
                                                        const std::vector<std::string>& strategies,
                                                        const std::vector<std::string>& given);

/// A network's check: each of `strategies` (given, tags expanded) named by itself applies to
/// some layer, from what layer i refused (`not_applied[i]`), and some strategy applies to some
/// layer: else a liftc::Error naming the first layer's reason. A `clblast-` strategy named by
/// itself applies to none (a network's layers do not offer them yet).
void check_named_strategies_apply(const std::vector<Layer>& layers,
                                  const std::vector<std::vector<NotApplied>>& not_applied,
                                  const std::vector<std::string>& strategies, const std::vector<std::string>& given);

}  // namespace liftc::explore
