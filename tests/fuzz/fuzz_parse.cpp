// libFuzzer target: any text must parse or be a liftc::Error (never a crash, an assert, a
// hang or a stack overflow), and a program that parses must print to text that parses
// back, without the prelude, to an alpha-equal program.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"

namespace {

[[noreturn]] void fail(const std::string& why, const std::string& printed) {
  std::fprintf(stderr, "fuzz_parse: %s\nprinted program:\n%s\n", why.c_str(), printed.c_str());
  std::abort();
}

void check_round_trip(const liftc::ir::Program& p) {
  std::string printed = liftc::ir::to_string(p);
  liftc::parse::ParseOptions options;
  options.with_prelude = false;
  liftc::ir::Program q;
  try {
    q = liftc::parse::parse_program(std::make_shared<liftc::SourceFile>(liftc::SourceFile{"printed.sr", printed}),
                                    options);
  } catch (const liftc::Error& e) {
    fail(std::string("the printed program does not parse: ") + e.what(), printed);
  }
  if (q.defs.size() != p.defs.size()) fail("the printed program has other definitions", printed);
  for (std::size_t i = 0; i < p.defs.size(); ++i)
    if (!liftc::ir::alpha_equal(p.defs[i].body, q.defs[i].body))
      fail("definition " + p.defs[i].name + " changed: " + liftc::ir::to_string(q.defs[i].body), printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  liftc::ir::Program p;
  try {
    p = liftc::parse::parse_program(std::make_shared<liftc::SourceFile>(liftc::SourceFile{"fuzz.sr", text}));
  } catch (const liftc::Error&) {
    return 0;  // a user error: fine
  }
  check_round_trip(p);
  return 0;
}
