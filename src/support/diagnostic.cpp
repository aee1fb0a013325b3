#include "liftc/support/diagnostic.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace liftc {

namespace {

// Returns the 1-based `line` of `text` without its newline, or "" when out of range.
std::string source_line(const std::string& text, int line) {
  std::size_t begin = 0;
  for (int l = 1; l < line; ++l) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return "";
    ++begin;
  }
  std::size_t end = text.find('\n', begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace

std::string format_diagnostic(const SourceLoc& loc, const std::string& message) {
  if (!loc.known()) return fmt::format("error: {}", message);
  std::string out = fmt::format("{}:{}:{}: error: {}", loc.file->path, loc.line, loc.col, message);
  std::string text = source_line(loc.file->text, loc.line);
  if (!text.empty()) {
    // Tabs are kept in the caret line so the caret lines up under the column.
    std::string pad;
    for (int i = 0; i + 1 < loc.col && i < static_cast<int>(text.size()); ++i)
      pad += text[static_cast<std::size_t>(i)] == '\t' ? '\t' : ' ';
    out += fmt::format("\n  {}\n  {}^", text, pad);
  }
  return out;
}

Error::Error(const std::string& message, SourceLoc loc)
    : std::runtime_error(format_diagnostic(loc, message)), message_(message), loc_(std::move(loc)) {}

void internal_error(const char* file, int line, const char* condition, const std::string& why) {
  std::fprintf(stderr, "liftc internal error at %s:%d: invariant `%s` broken: %s\n", file, line, condition,
               why.c_str());
  std::abort();
}

}  // namespace liftc
