// The front end's entry points: file or text -> AST -> elaborated IR program.

#include "liftc/parse/parse.hpp"

#include "elaborator.hpp"
#include "liftc/syntax/read.hpp"
#include "liftc/support/file.hpp"

namespace liftc::parse {

namespace {

// The prelude, parsed once (it is immutable afterwards, so sharing it is thread-safe).
const Syntax& prelude_syntax() {
  static const std::unique_ptr<Syntax> prelude =
      syntax::read_program(std::make_shared<const SourceFile>(SourceFile{"<prelude>/dsl/prelude.sr", prelude_text()}));
  return *prelude;
}

}  // namespace

ir::Program parse_program(std::shared_ptr<const SourceFile> source, const ParseOptions& options) {
  std::unique_ptr<Syntax> program = syntax::read_program(std::move(source));
  Elaborator elaborator;
  return elaborator.run(*program, options.with_prelude ? &prelude_syntax() : nullptr);
}

ir::Program load_program(const std::string& path, const ParseOptions& options) {
  std::string text = read_regular_file(path, ".sr program", kMaxProgramBytes);
  return parse_program(std::make_shared<const SourceFile>(SourceFile{path, std::move(text)}), options);
}

}  // namespace liftc::parse
