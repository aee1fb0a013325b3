// A run's options in the store (request.hpp).

#include "liftc/explore/request.hpp"

#include <initializer_list>
#include <utility>

#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

using nlohmann::json;

json request_to_json(const Request& o) {
  return {{"file", o.file},       {"strategies", o.strategies}, {"target", o.target},   {"device", o.device},
          {"search", o.search},   {"evals", o.evals},           {"time", o.time},       {"seed", o.seed},
          {"input_seed", o.input_seed}, {"runner", o.runner},   {"timeout", o.timeout}, {"runs", o.runs},
          {"warmup", o.warmup},   {"population", o.population}, {"selection", o.selection},
          {"rtol", o.rtol},       {"atol", o.atol},             {"pareto", o.pareto},
          {"build_options", o.build_options}, {"whole_program", o.whole_program}, {"warm_start", o.warm_start},
          {"max_program_alternatives", o.max_program_alternatives}, {"storage", o.storage},
          // A tuning database's password stays out of the store (a team reads it): --resume asks for it.
          {"fusion", o.fusion}, {"train_db", shown_store_names(o.train_dbs)}};
}

void request_from_json(const json& j, Request& o) {
  o.file = j.at("file");
  o.strategies = j.at("strategies").get<std::vector<std::string>>();
  for (auto [key, field] : std::initializer_list<std::pair<const char*, std::string*>>{
           {"target", &o.target}, {"device", &o.device}, {"search", &o.search}, {"evals", &o.evals},
           {"time", &o.time}, {"seed", &o.seed}, {"input_seed", &o.input_seed}, {"runner", &o.runner},
           {"timeout", &o.timeout}, {"runs", &o.runs}, {"warmup", &o.warmup}, {"population", &o.population},
           {"selection", &o.selection}})
    *field = j.at(key).get<std::string>();
  o.rtol = j.at("rtol");
  o.atol = j.at("atol");
  o.pareto = j.at("pareto");
  o.build_options = j.value("build_options", "");  // stores written before --build-options lack it
  o.whole_program = j.value("whole_program", false);  // nor before networks were explored by layer
  o.warm_start = j.value("warm_start", false);        // nor before --warm-start
  o.max_program_alternatives = j.value("max_program_alternatives", "");  // nor before --max-program-alternatives
  o.storage = j.value("storage", "float");                                // nor before --storage
  o.fusion = j.value("fusion", "off");  // nor before --fusion: a network then had no fused layers
  // Nor before --train-db; one name (or "" for none) before it was repeatable.
  const json& train = j.contains("train_db") ? j.at("train_db") : json(json::array());
  if (train.is_string())
    o.train_dbs = train.get<std::string>().empty() ? std::vector<std::string>{}
                                                   : std::vector<std::string>{train.get<std::string>()};
  else
    o.train_dbs = train.get<std::vector<std::string>>();
}

}  // namespace liftc::explore
