// Target profiles to and from a run config's JSON.

#include "liftc/explore/store/stored_target.hpp"

namespace liftc::explore {

nlohmann::json target_to_json(const constraints::Target& t) {
  return {{"name", t.name},
          {"description", t.description},
          {"origin", t.origin},
          {"live", t.live},
          {"max_work_group_size", t.max_work_group_size},
          {"max_work_item_sizes", t.max_work_item_sizes},
          {"local_mem_bytes", t.local_mem_bytes},
          {"local_mem_global", t.local_mem_global},
          {"preferred_vector_width", t.preferred_vector_width},
          {"compute_units", t.compute_units},
          {"global_mem_bytes", t.global_mem_bytes},
          {"max_alloc_bytes", t.max_alloc_bytes},
          {"private_mem_bytes", t.private_mem_bytes},
          {"sources", t.sources}};
}

constraints::Target target_from_json(const nlohmann::json& j) {
  constraints::Target t;
  t.name = j.at("name");
  t.description = j.at("description");
  t.origin = j.at("origin");
  t.live = j.at("live");
  t.max_work_group_size = j.at("max_work_group_size");
  t.max_work_item_sizes = j.at("max_work_item_sizes").get<std::array<std::int64_t, 3>>();
  t.local_mem_bytes = j.at("local_mem_bytes");
  t.local_mem_global = j.at("local_mem_global");
  t.preferred_vector_width = j.at("preferred_vector_width");
  t.compute_units = j.at("compute_units");
  t.global_mem_bytes = j.at("global_mem_bytes");
  t.max_alloc_bytes = j.at("max_alloc_bytes");
  // Runs stored before targets had a register budget: none.
  t.private_mem_bytes = j.value("private_mem_bytes", std::int64_t{0});
  t.sources = j.at("sources").get<std::vector<std::string>>();
  return t;
}

}  // namespace liftc::explore
