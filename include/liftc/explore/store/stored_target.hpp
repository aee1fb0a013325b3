#pragma once
// A target profile as a run's config stores it ("target_profile"): what explore's constraints
// used, so a replay or a deployment rebuilds the same space.

#include <nlohmann/json.hpp>

#include "liftc/constraints/target.hpp"

namespace liftc::explore {

/// The profile as the JSON object a run's config holds.
nlohmann::json target_to_json(const constraints::Target& t);

/// The profile of a run config's "target_profile"; throws nlohmann::json's exceptions on a
/// key it lacks or a value of the wrong type (the caller names the damaged store).
constraints::Target target_from_json(const nlohmann::json& j);

}  // namespace liftc::explore
