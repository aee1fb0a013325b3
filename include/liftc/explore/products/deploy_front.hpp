#pragma once
// The front of an exploration as points to deploy (emit/deploy_project.hpp): read back from the
// folder `liftc explore --pareto -o DIR` wrote (pareto.json and front/<rank>/plan.json), or
// regenerated from a results store's run (its rows, its program, rules and target).

#include <cstdint>
#include <string>
#include <vector>

#include "liftc/emit/deploy_project.hpp"

namespace liftc::explore {

/// The front an exploration wrote into `dir`: pareto.json's rows in their order (point n is
/// front/n), each with the plan of front/n/plan.json. A liftc::Error naming the problem
/// when `dir` is missing, is not an exploration's output, or a file is damaged or missing.
std::vector<emit::DeployPoint> read_front_folder(const std::string& dir);

/// The Pareto front of run `run` of the store `db` (its validated rows, fastest first, as
/// explore orders its front), each point's code generated again from the run's program,
/// rules, target profile and build options. A liftc::Error when there is no such run, the
/// run recorded too little to regenerate it (an earlier liftc), its program changed since,
/// or a point generates other code than was measured (its memory differs).
std::vector<emit::DeployPoint> regenerate_front(const std::string& db, std::int64_t run);

}  // namespace liftc::explore
