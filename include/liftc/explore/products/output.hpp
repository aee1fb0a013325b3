#pragma once
// What an exploration leaves behind: the Pareto table, and under -o DIR the front's kernels
// and host programs, pareto.csv, pareto.json and every evaluated point as CSV. The same
// CSV and JSON writers export a results store (`liftc results`).

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

/// CSV of evaluations: one header line, one row each (quoted where needed). With `layers`
/// (a network's rows: the layer each row explored, one per row), a first column `layer`.
std::string evaluations_csv(const std::vector<Evaluation>& rows, const std::vector<std::string>& layers = {});

/// The program's inputs (DIR/inputs/<name>.npy) and the interpreter's outputs on them
/// (DIR/expected/<name>.npy): what a front point's host program runs and is checked
/// against (`PROGRAM DIR/inputs OUT --expected DIR/expected`).
void write_inputs_and_expected(const std::string& dir, const Problem& problem);

/// JSON array of evaluations.
std::string evaluations_json(const std::vector<Evaluation>& rows);

/// The items of a point's text ("name=value,..." as rows hold it), in order, as (name,
/// value); an item with no '=' is ("", item), for the caller to refuse or pass over.
std::vector<std::pair<std::string, std::string>> point_items(const std::string& point);

/// A point's text (format_point's, as rows hold it) read back as a point of `alt`, its values
/// in the order of the alternative's parameters; a liftc::Error naming `where` when an item
/// is not name=value with a whole number, or a parameter is missing or not the alternative's.
Point parse_point(const Alternative& alt, const std::string& text, const std::string& where);

/// The front as a table for the terminal: time, spread, memory, strategy, parameters.
std::string front_table(const std::vector<Evaluation>& front);

/// The files -o DIR gets (paths relative to DIR) for a front of `front_size` points.
std::vector<std::string> output_files(std::size_t front_size);

/// An exclusive lock on an -o folder: no other exploration writes into it while this is
/// held (an advisory lock the system drops when the process ends, even by kill -9).
class OutputLock {
 public:
  explicit OutputLock(int fd) : fd_(fd) {}
  ~OutputLock();
  OutputLock(OutputLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OutputLock& operator=(OutputLock&&) = delete;

 private:
  int fd_;  // the folder, open and flock'ed
};

/// Creates the output folder `dir` when missing and locks it (until the lock goes) against
/// every other liftc explore -o or deploy -o of it: a liftc::Error, naming `flag` ("-o"),
/// when another holds it or it cannot be made or opened.
OutputLock lock_output_dir(const std::string& dir, const std::string& flag);

/// lock_output_dir of explore's -o folder, then a liftc::Error when it cannot be written, or
/// (without `force`) when it already holds a file explore would write: checked before the
/// exploration starts.
OutputLock check_output_dir(const std::string& dir, bool force);

/// What an exploration writes into its -o folder (files and folders, relative to it), a
/// single program's as a network's: every one is removed before an exploration's outputs
/// are written (`--force` over an earlier run of another program leaves none of its files).
std::vector<std::string> output_names();

/// Runs `write`, which writes the outputs `names` into `dir`: the earlier exploration's are
/// removed first, and what `write` made is removed again when it fails (a full disk), so
/// the folder holds either one exploration's whole outputs or none (never a front of one
/// beside the tables of another).
void replace_outputs(const std::string& dir, const std::vector<std::string>& names, const std::function<void()>& write);

/// Writes each tensor of `allowance` (by output name: what a point through constant arrays
/// may differ by per element, interp::rounding_allowance) as `project`/allowance/NAME.npy,
/// which its host program reads with --allowance.
void write_front_allowance(const std::string& project, const interp::Tensors& allowance);

/// Writes the front's kernels and host programs (front/<rank>/), the problem's inputs/ and
/// expected/ (write_inputs_and_expected), pareto.csv, pareto.json and evaluated.csv into
/// `dir`, every byte or a liftc::Error (a full disk, a file-size limit). `space` generates
/// each front point's code again, with the exploration's `build_options`. `allowances[k]`
/// (nullptr: none) is front[k]'s allowance, written as front/<rank>/allowance/.
void write_outputs(const std::string& dir, const CandidateSpace& space, const std::vector<Explored>& explored,
                   const std::vector<std::size_t>& front, const std::vector<const interp::Tensors*>& allowances,
                   const Problem& problem, const std::string& program_name, const std::string& build_options);

}  // namespace liftc::explore
