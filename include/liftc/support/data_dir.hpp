#pragma once
// Where liftc's data (rules/ and its target profiles, rules/targets/; scripts/plot_pareto.py) is found, so that a
// liftc built anywhere, moved or installed (`cmake --install`) finds it without help:
//   1. $LIFTC_RULES when set (its targets/ go with it, unless $LIFTC_TARGETS says otherwise);
//   2. beside the binary as installed: <prefix>/bin/liftc -> <prefix>/share/liftc/rules;
//   3. the source tree it was built from (a liftc run from its build folder).

#include <string>

namespace liftc {

/// The folder of the running executable ("" when the system does not say).
std::string executable_dir();

/// The folder of .rules files liftc loads by default (see the order above); a liftc::Error
/// naming every place looked at when none exists.
std::string default_rules_dir();

/// The script that plots an exploration's front: installed beside the rules
/// (<prefix>/share/liftc/scripts/plot_pareto.py) when there, else the source tree's.
std::string plot_script();

/// The folder of target profiles: $LIFTC_TARGETS when set, else `targets/` of
/// default_rules_dir().
std::string default_targets_dir();

}  // namespace liftc
