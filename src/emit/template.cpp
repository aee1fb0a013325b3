// Templates: the embedded table, filling holes, and the escape of each hole's context.

#include "liftc/emit/template.hpp"

#include <cctype>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "template_table.hpp"

namespace liftc::emit {

namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

// The value of hole CONTEXT:NAME, escaped for CONTEXT.
std::string hole_text(const std::string& where, const std::string& context, const std::string& name,
                      const HoleValue& value) {
  if (context == "code") {
    if (!std::holds_alternative<Code>(value))
      throw std::logic_error(fmt::format("{}: hole code:{} takes emit's own Code, not outside text", where, name));
    return std::get<Code>(value).text;
  }
  if (!std::holds_alternative<std::string>(value))
    throw std::logic_error(fmt::format("{}: hole {}:{} takes text to escape, not Code", where, context, name));
  const std::string& text = std::get<std::string>(value);
  if (context == "comment") return cpp_comment(text);
  if (context == "string") return cpp_string(text);
  if (context == "name") return cmake_name(text);
  if (context == "markdown") return markdown_text(text);
  throw std::logic_error(fmt::format("{}: hole {}:{} has no such context", where, context, name));
}

}  // namespace

const std::string& template_text(const std::string& name) {
  static const std::map<std::string, std::string> texts = [] {
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < kTemplateCount; ++i) out[kTemplates[i].name] = kTemplates[i].text;
    return out;
  }();
  auto it = texts.find(name);
  if (it == texts.end()) throw std::logic_error("no template " + name);
  return it->second;
}

std::string fill(const std::string& name, const std::map<std::string, HoleValue>& values) {
  const std::string& text = template_text(name);
  std::string out;
  std::set<std::string> used;
  std::size_t at = 0;
  for (std::size_t open; (open = text.find("@{", at)) != std::string::npos;) {
    std::size_t close = text.find('}', open);
    std::size_t colon = text.find(':', open);
    if (close == std::string::npos || colon == std::string::npos || colon > close)
      throw std::logic_error(fmt::format("{}: a hole is not written @{{CONTEXT:NAME}}", name));
    std::string context = text.substr(open + 2, colon - open - 2), hole = text.substr(colon + 1, close - colon - 1);
    auto value = values.find(hole);
    if (value == values.end()) throw std::logic_error(fmt::format("{}: hole {} has no value", name, hole));
    out += text.substr(at, open - at);
    out += hole_text(name, context, hole, value->second);
    used.insert(hole);
    at = close + 1;
  }
  for (const auto& [hole, value] : values)
    if (!used.count(hole)) throw std::logic_error(fmt::format("{}: has no hole {}", name, hole));
  return out + text.substr(at);
}

std::string cpp_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') out += {'\\', static_cast<char>(c)};
    else if (c == '\n') out += "\\n";
    else if (is_control(c) || c >= 0x80) out += fmt::format("\\{:03o}", c);  // octal: never runs into the next character
    else if (c == '?') out += "\\?";                                           // no trigraphs
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string cpp_comment(const std::string& text) {
  std::string out;
  char last = 0;
  for (unsigned char c : text) {
    // A backslash too: at the end of the line it would splice the next line into the comment.
    if (c == '\\' || is_control(c) || c >= 0x80 || (c == '?' && last == '?')) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
    last = static_cast<char>(c);
  }
  return out;
}

std::string cmake_name(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += std::isalnum(c) || c == '_' ? static_cast<char>(c) : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "liftc_" + out;
  return out;
}

std::string markdown_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '|' || c == '\\' || c == '<' || c == '`') out += {'\\', static_cast<char>(c)};
    else if (is_control(c)) out += ' ';
    else out += static_cast<char>(c);
  }
  return out;
}

std::string host_support_text() {
  std::string half = template_text("half.hpp");
  const std::string once = "#pragma once\n";  // pasted into a main file, where GCC warns of it
  if (auto at = half.find(once); at != std::string::npos) half.erase(at, once.size());
  return fill("host_support.hpp", {{"half", Code{half}}});
}

}  // namespace liftc::emit
