// Tables and files of an exploration.

#include "liftc/explore/products/output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "liftc/emit/host_program.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/io/tensor.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::explore {

namespace fs = std::filesystem;

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : ""; }

nlohmann::json row_json(const Evaluation& e) {
  nlohmann::json point = nlohmann::json::object();
  for (const auto& [name, value] : point_items(e.point)) {
    if (name.empty()) continue;
    // A value is a whole number; one that is not (a store edited by hand) stays text.
    long long v = 0;
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (error == std::errc() && end == value.data() + value.size()) point[name] = v;
    else point[name] = value;
  }
  auto real = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  return {{"id", e.id},         {"run", e.run},           {"key", e.key},
          {"file", e.file},     {"strategy", e.strategy}, {"alternative", e.alternative},
          {"point", point},     {"status", e.status},     {"reason", e.reason},
          {"time_ms", status_valid(e.status) ? real(e.time_ms) : nlohmann::json()},
          {"spread_ms", status_valid(e.status) ? real(e.spread_ms) : nlohmann::json()},
          {"samples_ms", e.samples_ms}, {"memory_bytes", e.memory_bytes}, {"device", e.device},
          {"driver", e.driver}, {"machine", e.machine},   {"shapes", e.shapes},
          {"liftc_version", e.version}, {"created", e.created}};
}

void create_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cannot create the folder {}: {}", dir.string(), ec.message()));
}

// The front's host programs (front/<rank>/), the program's inputs and expected outputs, and
// the three tables, into `dir_text`.
void write_front(const std::string& dir_text, const CandidateSpace& space, const std::vector<Explored>& explored,
                 const std::vector<std::size_t>& front, const std::vector<const interp::Tensors*>& allowances,
                 const Problem& problem, const std::string& program_name, const std::string& build_options) {
  LIFTC_ASSERT(allowances.size() == front.size(), "an allowance (or none) per front point");
  fs::path dir(dir_text);
  create_folder(dir / "front");
  write_inputs_and_expected(dir_text, problem);
  std::vector<Evaluation> rows, front_rows;
  for (const auto& x : explored) rows.push_back(x.evaluation);
  for (std::size_t rank = 0; rank < front.size(); ++rank) {
    const Explored& x = explored[front[rank]];
    front_rows.push_back(x.evaluation);
    fs::path project = dir / "front" / std::to_string(rank + 1);
    create_folder(project);
    // A host project, or a CLBlast point's plan and description; each file whole or an error.
    candidate_of(*space.alternatives[x.candidate.alternative])
        .write_front_files(x.candidate.point, project.string(), program_name, build_options);
    if (allowances[rank]) write_front_allowance(project.string(), *allowances[rank]);
  }
  write_file((dir / "pareto.csv").string(), evaluations_csv(front_rows));
  write_file((dir / "pareto.json").string(), evaluations_json(front_rows));
  write_file((dir / "evaluated.csv").string(), evaluations_csv(rows));
}

}  // namespace

std::string evaluations_csv(const std::vector<Evaluation>& rows, const std::vector<std::string>& layers) {
  LIFTC_ASSERT(layers.empty() || layers.size() == rows.size(), "a layer name for every row, or none");
  std::string out = fmt::format(
      "{}id,run,status,time_ms,spread_ms,memory_bytes,strategy,alternative,point,reason,device,driver,machine,shapes,"
      "key,liftc_version,created\n",
      layers.empty() ? "" : "layer,");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Evaluation& e = rows[i];
    bool valid = status_valid(e.status);
    out += fmt::format("{}{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       layers.empty() ? "" : csv_field(layers[i]) + ",", e.id, e.run, e.status,
                       valid ? number(e.time_ms) : "", valid ? number(e.spread_ms) : "", e.memory_bytes,
                       csv_field(e.strategy), e.alternative, csv_field(e.point), csv_field(e.reason),
                       csv_field(e.device), csv_field(e.driver), csv_field(e.machine), csv_field(e.shapes), e.key,
                       csv_field(e.version), csv_field(e.created));
  }
  return out;
}

void write_inputs_and_expected(const std::string& dir_text, const Problem& problem) {
  fs::path dir(dir_text);
  for (const char* sub : {"inputs", "expected"}) create_folder(dir / sub);
  for (const auto& [name, t] : problem.inputs) io::write_npy((dir / "inputs" / (name + ".npy")).string(), t);
  for (const auto& [name, t] : problem.reference) io::write_npy((dir / "expected" / (name + ".npy")).string(), t);
}

void write_front_allowance(const std::string& project, const interp::Tensors& allowance) {
  fs::path dir = fs::path(project) / "allowance";
  create_folder(dir);
  for (const auto& [name, t] : allowance) io::write_npy((dir / (name + ".npy")).string(), t);
}

Point parse_point(const Alternative& alt, const std::string& text, const std::string& where) {
  std::map<std::string, std::int64_t> values;
  for (const auto& [name, value] : point_items(text)) {
    try {
      std::size_t used = 0;
      if (name.empty()) throw std::invalid_argument(value);
      std::int64_t v = std::stoll(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
      values[name] = v;
    } catch (const std::exception&) {
      throw Error(fmt::format("{}: the point '{}' is not name=value,...", where, text));
    }
  }
  Point p;
  for (const auto& param : alt.parameters()) {
    auto it = values.find(param.name);
    if (it == values.end()) throw Error(fmt::format("{}: the point '{}' has no value of {}", where, text, param.name));
    p.push_back(it->second);
  }
  if (values.size() != alt.parameters().size())
    throw Error(fmt::format("{}: the point '{}' names parameters {} does not have", where, text, alt.label()));
  return p;
}

std::vector<std::pair<std::string, std::string>> point_items(const std::string& point) {
  std::vector<std::pair<std::string, std::string>> items;
  std::size_t begin = 0;
  while (begin < point.size()) {
    std::size_t end = point.find(',', begin);
    if (end == std::string::npos) end = point.size();
    std::string item = point.substr(begin, end - begin);
    if (auto eq = item.find('='); eq != std::string::npos) items.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    else items.emplace_back("", item);
    begin = end + 1;
  }
  return items;
}

std::string evaluations_json(const std::vector<Evaluation>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : rows) out.push_back(row_json(e));
  // Text that is not UTF-8 (a runner's stderr cut in a character) is shown replaced, not refused.
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string front_table(const std::vector<Evaluation>& front) {
  std::string out = fmt::format("{:>4}  {:>11}  {:>9}  {:>12}  {:<18}  {}\n", "#", "time (ms)", "± (ms)",
                                "memory (B)", "strategy", "parameters");
  for (std::size_t i = 0; i < front.size(); ++i) {
    const Evaluation& e = front[i];
    out += fmt::format("{:>4}  {:>11.4f}  {:>9.4f}  {:>12}  {:<18}  {}\n", i + 1, e.time_ms, e.spread_ms,
                       e.memory_bytes, fmt::format("{} #{}", e.strategy, e.alternative),
                       e.point.empty() ? "(none)" : e.point);
  }
  return out;
}

std::vector<std::string> output_files(std::size_t front_size) {
  std::vector<std::string> files = {"pareto.csv", "pareto.json", "evaluated.csv"};
  for (std::size_t i = 0; i < front_size; ++i) files.push_back(fmt::format("front/{}", i + 1));
  return files;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // the flock goes with the descriptor
}

OutputLock lock_output_dir(const std::string& dir_text, const std::string& flag) {
  fs::path dir(dir_text);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw Error(fmt::format("{} {}: exists and is not a folder", flag, dir_text));
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{} {}: cannot create the folder: {}", flag, dir_text, ec.message()));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{} {}: cannot open the folder: {}", flag, dir_text, std::strerror(errno)));
  OutputLock held(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      throw Error(fmt::format("{} {}: another liftc explore or deploy is writing into this folder; wait for it to end, "
                              "or give another folder",
                              flag, dir_text));
    throw Error(fmt::format("{} {}: cannot lock the folder: {}", flag, dir_text, std::strerror(errno)));
  }
  return held;
}

OutputLock check_output_dir(const std::string& dir_text, bool force) {
  fs::path dir(dir_text);
  std::error_code ec;
  OutputLock held = lock_output_dir(dir_text, "-o");
  if (!force)
    for (const auto& name : output_names())
      if (fs::exists(dir / name, ec))
        throw Error(fmt::format("-o {}: {} exists; pass --force to overwrite the exploration's files", dir_text,
                                (dir / name).string()));
  fs::path probe = dir / ".liftc-write-test";
  if (int test = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); test >= 0) {
    ::close(test);
    fs::remove(probe, ec);
  } else {
    throw Error(fmt::format("-o {}: the folder is not writable", dir_text));
  }
  return held;
}

std::vector<std::string> output_names() {
  return {"pareto.csv", "pareto.json", "evaluated.csv", "front", "inputs", "expected"};
}

void replace_outputs(const std::string& dir_text, const std::vector<std::string>& names, const std::function<void()>& write) {
  fs::path dir(dir_text);
  std::error_code ec;
  for (const auto& name : names) {
    fs::remove_all(dir / name, ec);
    if (ec) throw Error(fmt::format("cannot remove the earlier {}: {}", (dir / name).string(), ec.message()));
  }
  try {
    write();
  } catch (...) {
    for (const auto& name : names) fs::remove_all(dir / name, ec);
    throw;
  }
}

void write_outputs(const std::string& dir_text, const CandidateSpace& space, const std::vector<Explored>& explored,
                   const std::vector<std::size_t>& front, const std::vector<const interp::Tensors*>& allowances,
                   const Problem& problem, const std::string& program_name, const std::string& build_options) {
  replace_outputs(dir_text, output_names(), [&] {
    write_front(dir_text, space, explored, front, allowances, problem, program_name, build_options);
  });
}

}  // namespace liftc::explore
