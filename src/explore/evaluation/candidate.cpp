// The candidate interface of an alternative (candidate.hpp).

#include "liftc/explore/evaluation/candidate.hpp"

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

const CandidateAlternative& candidate_of(const Alternative& alt) {
  const CandidateAlternative* c = alt.as_candidate();
  LIFTC_ASSERT(c, "an alternative explore evaluates, writes or deploys generates its artefacts (a CandidateAlternative)");
  return *c;
}

}  // namespace liftc::explore
