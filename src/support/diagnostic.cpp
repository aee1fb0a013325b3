#include "liftc/support/diagnostic.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

namespace liftc {

namespace {

// The longest source text a diagnostic shows of its line; a longer line is excerpted around
// the column, so a one-line program of megabytes gives a message of one screen line.
constexpr std::size_t kMaxExcerpt = 120;
constexpr std::string_view kEllipsis = "...";

// Returns the 1-based `line` of `text` without its newline, or "" when out of range.
std::string_view source_line(std::string_view text, int line) {
  std::size_t begin = 0;
  for (int l = 1; l < line; ++l) {
    begin = text.find('\n', begin);
    if (begin == std::string_view::npos) return {};
    ++begin;
  }
  std::size_t end = text.find('\n', begin);
  return text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The part of `line` shown: at most kMaxExcerpt bytes around byte `at`, never cutting a
// UTF-8 character.
struct Excerpt {
  std::size_t begin = 0, end = 0;
};

Excerpt excerpt_around(std::string_view line, std::size_t at) {
  if (line.size() <= kMaxExcerpt) return {0, line.size()};
  std::size_t begin = at > kMaxExcerpt / 2 ? at - kMaxExcerpt / 2 : 0;
  std::size_t end = std::min(line.size(), begin + kMaxExcerpt);
  begin = end - kMaxExcerpt;  // a caret near the end still shows a full excerpt
  while (begin < at && utf8_continuation(line[begin])) ++begin;
  while (end < line.size() && end > at && utf8_continuation(line[end])) --end;
  return {begin, end};
}

}  // namespace

std::string format_diagnostic(const SourceLoc& loc, const std::string& message) {
  if (!loc.known()) return fmt::format("error: {}", message);
  std::string out = fmt::format("{}:{}:{}: error: {}", loc.file->path, loc.line, loc.col, message);
  std::string_view text = source_line(loc.file->text, loc.line);
  if (!text.empty()) {
    const std::size_t at = std::min(static_cast<std::size_t>(std::max(loc.col, 1) - 1), text.size());
    const Excerpt shown = excerpt_around(text, at);
    const std::string_view before = shown.begin > 0 ? kEllipsis : std::string_view{};
    const std::string_view after = shown.end < text.size() ? kEllipsis : std::string_view{};
    // Tabs are kept in the caret line so the caret lines up under the column.
    std::string pad(before.size(), ' ');
    for (std::size_t i = shown.begin; i < at && i < shown.end; ++i) pad += text[i] == '\t' ? '\t' : ' ';
    out += fmt::format("\n  {}{}{}\n  {}^", before, text.substr(shown.begin, shown.end - shown.begin), after, pad);
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
