// libFuzzer target for rule files: any text must load or be a liftc::Error (never a crash,
// an assert, a hang or another exception); every rule and strategy that loads is then
// applied everywhere in three small programs, where it must rewrite, fail cleanly, or stop
// at its budget.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"

namespace {

const char* const kPrograms[] = {
    // A map at the root, so that strategies that only look at the root (repeat(r)) apply.
    "size N = 8\ninput x : [float]N\ndef out = map(a -> a * 2.0, x)\n",
    "size N = 8\ninput x : [float]N\ninput y : [float]N\n"
    "def out = reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(map(a -> a * 2.0, x), y))\n",
    "size C = 2, H = 4, W = 4, M = 2, K = 3\n"
    "input weights : [[[[float]C]K]K]M\ninput biases : [float]M\ninput image : [[[float]C]W]H\n"
    "def conv = map2D(window -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1,\n"
    "    zip(join(join(window)), join(join(w)))), zip(weights, biases)),\n"
    "  slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))\n",
};

const std::vector<liftc::ir::Program>& programs() {
  static const std::vector<liftc::ir::Program> ps = [] {
    std::vector<liftc::ir::Program> out;
    for (const char* text : kPrograms)
      out.push_back(liftc::parse::parse_program(std::make_shared<liftc::SourceFile>(liftc::SourceFile{"p.sr", text})));
    return out;
  }();
  return ps;
}

void rewrite_all(const liftc::rewrite::RuleSet& set, const std::string& strategy) {
  // Steps, time and alternatives are capped so one input stays fast; the node count is
  // not: a rule that grows the program must be stopped by the engine's own default
  // budget, without crashing on the way there (a cap here once hid a stack overflow).
  liftc::rewrite::RewriteOptions options;
  options.budget.max_steps = 50;
  options.budget.max_seconds = 1.0;
  options.budget.max_alternatives = 8;
  for (const auto& p : programs()) {
    try {
      liftc::rewrite::rewrite_program(set, strategy, p, options);
    } catch (const liftc::Error&) {
      // the strategy applies nowhere, or its result does not check: a user error
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  liftc::rewrite::RuleSet set;
  try {
    liftc::rewrite::add_rules(set, std::make_shared<const liftc::SourceFile>(liftc::SourceFile{"fuzz.rules", text}));
  } catch (const liftc::Error&) {
    return 0;  // a user error: fine
  }
  try {
    for (const auto& r : set.rules) rewrite_all(set, "topdown(" + r.name + ")");
    for (const auto& s : set.strategies) rewrite_all(set, s.name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_rules: %s escaped as an internal error\n", e.what());
    std::abort();
  }
  return 0;
}
