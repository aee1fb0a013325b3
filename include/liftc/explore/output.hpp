#pragma once
// What an exploration leaves behind: the Pareto table, and under -o DIR the front's kernels
// and host programs, pareto.csv, pareto.json and every evaluated point as CSV. The same
// CSV and JSON writers export a results store (`liftc results`).

#include <string>
#include <vector>

#include "liftc/explore/explore.hpp"
#include "liftc/explore/store.hpp"

namespace liftc::explore {

/// CSV of evaluations: one header line, one row each (quoted where needed).
std::string evaluations_csv(const std::vector<Evaluation>& rows);

/// JSON array of evaluations.
std::string evaluations_json(const std::vector<Evaluation>& rows);

/// The front as a table for the terminal: time, spread, memory, strategy, parameters.
std::string front_table(const std::vector<Evaluation>& front);

/// The files -o DIR gets (paths relative to DIR) for a front of `front_size` points.
std::vector<std::string> output_files(std::size_t front_size);

/// Throws a liftc::Error when `dir` cannot be written or (without `force`) already holds
/// a file explore would write: checked before the exploration starts.
void check_output_dir(const std::string& dir, bool force);

/// Writes the front's kernels and host programs (front/<rank>/), pareto.csv, pareto.json
/// and evaluated.csv into `dir`. `space` generates each front point's code again, with the
/// exploration's `build_options`.
void write_outputs(const std::string& dir, const CandidateSpace& space, const std::vector<Explored>& explored,
                   const std::vector<std::size_t>& front, const std::string& program_name,
                   const std::string& build_options);

}  // namespace liftc::explore
