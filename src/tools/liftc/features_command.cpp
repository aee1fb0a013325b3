// `liftc features F.sr -s S --params POINT`: what the cost model sees of one candidate, the
// features explore computes from its generated kernels without running it (src/explore/cost).

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "liftc/constraints/target.hpp"
#include "liftc/explore/cost/features.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/runtime/device.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::tool {

namespace {

struct FeaturesOptions {
  std::string file;
  std::string strategy;
  std::size_t alternative = 1;
  std::string params;
  std::string target;
  std::string device;
  bool device_given = false;
  std::string rules_dir;
  std::string build_options;
  bool json = false;
};

void run_features(const FeaturesOptions& o) {
  if (!o.target.empty() && o.device_given) throw Error("--target and --device exclude each other: give one");
  explore::cost::FeatureRequest request;
  request.target = o.target.empty() ? constraints::target_from_device(runtime::select_device(o.device))
                                    : constraints::find_target(o.target, constraints::default_targets_dir());
  rewrite::RuleSet rules = rewrite::load_rules_dir(o.rules_dir.empty() ? rewrite::default_rules_dir() : o.rules_dir);
  request.program = parse::load_program(o.file);
  request.strategy = o.strategy;
  request.alternative = o.alternative;
  request.point = o.params;
  request.build_options = o.build_options;
  explore::cost::FeatureVector features = explore::cost::requested_features(request, rules);
  if (o.json) {
    fmt::print("{}", explore::cost::features_json(features));
    return;
  }
  fmt::print("// liftc features {}: {} at {}; target {}\n", o.file, features.alternative,
             features.point.empty() ? "(no parameters)" : features.point, constraints::format_target(request.target));
  fmt::print("// {} features, the first {} common to every alternative; per work-item unless named otherwise\n",
             features.names.size(), features.common);
  fmt::print("{}", explore::cost::features_table(features));
}

}  // namespace

void add_features_command(CLI::App& app) {
  auto o = std::make_shared<FeaturesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "features", "What explore's cost model sees of one candidate: features of its generated kernels, without running it");
  cmd->add_option("file", o->file, "the .sr program")->required();
  cmd->add_option("--strategy,-s", o->strategy, "the strategy (liftc rules lists them)")->required();
  cmd->add_option("--alternative", o->alternative, "the strategy's alternative N (1-based, as liftc rewrite --all lists them; default 1)")
      ->check(integer_in(1, 1000000));
  cmd->add_option("--params", o->params,
                  "the point, every parameter of the alternative as explore prints it: mad=0,unroll=1,local_0=8 "
                  "(liftc space lists them)");
  cmd->add_option("--target,-t", o->target, "a target profile of rules/targets (mali-g72, mali-g76, adreno-640, adreno-650)");
  cmd->add_option("--device", o->device, "the OpenCL device whose limits to use (index or part of its name; default: the first)")
      ->each([o](const std::string&) { o->device_given = true; });
  cmd->add_option("--rules", o->rules_dir, kRulesFlagHelp);
  cmd->add_option("--build-options", o->build_options, "more OpenCL compiler options, as explore's --build-options");
  cmd->add_flag("--json", o->json, "print the features as JSON (alternative, point, kernels, common, features in order)");
  cmd->callback([o] { run_features(*o); });
}

}  // namespace liftc::tool
