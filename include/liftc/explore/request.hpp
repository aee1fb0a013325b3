#pragma once
// The options of one exploration (explore.hpp's Request) and their stored form: a run's
// options are stored with it, and --resume reads them back.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "liftc/explore/search/registry.hpp"

namespace liftc::explore {

/// The options of one exploration, as text where the command line gives text (run()
/// checks them: a bad value is a liftc::Error naming its flag).
struct Request {
  // Stored with the run (request_to_json): --resume redoes the run with them.
  std::string file;
  std::vector<std::string> strategies;
  std::string search{kDefaultSearch};
  std::string target, device, evals, time, seed = "1", input_seed = "0";
  std::string runner, timeout = "60", runs = "5", warmup = "1", population, selection = "tournament";
  std::string build_options;
  std::string max_program_alternatives;  // --whole-program: the bound on its alternatives ("" = the default)
  std::string storage = "float";         // --storage: float, half or half=NAME,... (codegen::parse_storage)
  std::string fusion = "on";             // --fusion: a network's fused layers beside its layers (on), not (off), alone (only)
  double rtol = 1e-3, atol = 1e-3;
  bool pareto = false;
  bool whole_program = false;  // a program of several definitions explored as one, not layer by layer
  bool warm_start = false;     // generation 0 seeded with the store's fastest points (warm_start.hpp)
  // Not stored: where results go and how. (The rules folder and what identifies the
  // program and the rules are stored besides the options: see run.cpp.)
  std::string out_dir, db, replay, rules_dir, jobs;
  // --search model: the tuning databases its model is trained on first (--train-db, repeatable;
  // none: the run's own store; transfer.hpp). Stored, each without its password.
  std::vector<std::string> train_dbs;
  std::string workers;  // --workers: N (start N local workers), "external" (only queue), "" (run candidates here)
  std::string seeds;  // with --replay: replay the search with this many seeds (replay_benchmark.hpp)
  bool force = false, resume = false, quiet = false, isolate = false;
};

/// The stored options of a run (the store's `config`, less what run() adds to it).
nlohmann::json request_to_json(const Request& r);

/// Reads a run's stored options into `r` (the options not stored are left as they are).
/// Throws nlohmann::json's exceptions on a config that lacks a key or has a wrong type.
void request_from_json(const nlohmann::json& j, Request& r);

}  // namespace liftc::explore
