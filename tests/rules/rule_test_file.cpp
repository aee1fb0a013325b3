// The RUN and check lines of a rule test file, and the FileCheck-like matcher (see
// rule_test_file.hpp and tests/rules/README.md).

#include "rule_test_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "liftc/support/fnv1a.hpp"

namespace liftc::rewrite::test {

namespace {

// What follows `//` on a comment line (blanks around it dropped), or nullopt for another line.
std::optional<std::string> comment_of(const std::string& line) {
  std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos || line.compare(start, 2, "//") != 0) return std::nullopt;
  std::size_t from = line.find_first_not_of(" \t", start + 2);
  if (from == std::string::npos) return std::string();
  std::size_t to = line.find_last_not_of(" \t\r");
  return line.substr(from, to - from + 1);
}

bool is_name(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
}

bool is_prefix(const std::string& s) {
  if (s.empty() || !std::isupper(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
}

// Reads one RUN line; `fail` throws the file's error at this line.
class RunParser {
 public:
  RunParser(const std::string& path, int line) : path_(path), line_(line) {}

  RunLine parse(const std::string& text) {
    std::vector<std::string> words = split(text);
    if (words.empty() || words[0] != "rewrite")
      fail("a RUN line is `rewrite [FILE] (--rule NAME | --strategy S) [options]`");
    RunLine run;
    run.line = line_;
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string& w = words[i];
      if (w.rfind("--", 0) != 0) {
        if (seen_input_) fail(fmt::format("a second program `{}` (one FILE a RUN line)", w));
        seen_input_ = true;
        run.input = w == "%s" ? "" : w;
        continue;
      }
      if (!seen_.insert(w).second) fail(fmt::format("{} given twice", w));
      if (w == "--allow-infeasible") {
        run.allow_infeasible = true;
        continue;
      }
      if (i + 1 == words.size()) fail(fmt::format("{} needs a value", w));
      option(run, w, words[++i]);
    }
    if (seen_.count("--rule") == seen_.count("--strategy")) fail("give one of --rule NAME and --strategy S");
    return run;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(fmt::format("{}:{}: {}", path_, line_, message));
  }

  // The words of `text`: blank-separated, a word in single quotes taken whole.
  std::vector<std::string> split(const std::string& text) const {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
      if (text[i] == ' ' || text[i] == '\t') {
        ++i;
        continue;
      }
      if (text[i] == '\'') {
        std::size_t end = text.find('\'', i + 1);
        if (end == std::string::npos) fail("a quote ' without its closing one");
        out.push_back(text.substr(i + 1, end - i - 1));
        i = end + 1;
        continue;
      }
      std::size_t end = text.find_first_of(" \t", i);
      if (end == std::string::npos) end = text.size();
      out.push_back(text.substr(i, end - i));
      i = end;
    }
    return out;
  }

  long long number(const std::string& option, const std::string& text, long long lo, long long hi) const {
    long long v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
      fail(fmt::format("{} takes an integer in {}..{}, not `{}`", option, lo, hi, text));
    return v;
  }

  void option(RunLine& run, const std::string& o, const std::string& value) const {
    if (o == "--rule" || o == "--strategy") {
      if (value.empty()) fail(fmt::format("{} needs a value", o));
      if (o == "--rule" && !is_name(value)) fail(fmt::format("--rule takes a rule's name, not `{}`", value));
      run.strategy = o == "--rule" ? "topdown(" + value + ")" : value;
      run.covers = is_name(value) ? value : "";
      run.by_rule = o == "--rule";
    } else if (o == "--trials") {
      run.trials = static_cast<int>(number(o, value, 1, 100));
    } else if (o == "--seed") {
      std::uint64_t v = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || end != value.data() + value.size())
        fail(fmt::format("--seed takes an unsigned integer, not `{}`", value));
      run.seed = v;
    } else if (o == "--params") {
      std::stringstream items(value);
      std::string item;
      while (std::getline(items, item, ',')) {
        std::size_t eq = item.find('=');
        std::string name = item.substr(0, std::min(eq, item.size()));
        if (eq == std::string::npos || !is_name(name))
          fail(fmt::format("--params takes NAME=VALUE,..., not `{}`", value));
        if (!run.params.emplace(name, number("--params " + name, item.substr(eq + 1), 1, 1 << 20)).second)
          fail(fmt::format("--params gives {} twice", name));
      }
    } else if (o == "--check-prefix") {
      if (!is_prefix(value)) fail(fmt::format("--check-prefix takes capitals, digits and _, not `{}`", value));
      run.prefix = value;
    } else {
      fail(fmt::format("unknown option {}", o));
    }
  }

  std::string path_;
  int line_;
  std::set<std::string> seen_;
  bool seen_input_ = false;
};

// The check line `comment` of one of `prefixes`, or nullopt when it is none.
std::optional<CheckLine> check_of(const std::string& comment, const std::set<std::string>& prefixes) {
  std::size_t colon = comment.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string head = comment.substr(0, colon);
  CheckLine c;
  for (auto [suffix, kind] : {std::pair{"-NEXT", CheckLine::Kind::Next}, std::pair{"-NOT", CheckLine::Kind::Not}}) {
    std::string s = suffix;
    if (head.size() > s.size() && head.compare(head.size() - s.size(), s.size(), s) == 0 &&
        prefixes.count(head.substr(0, head.size() - s.size()))) {
      head.resize(head.size() - s.size());
      c.kind = kind;
    }
  }
  if (!prefixes.count(head)) return std::nullopt;
  c.prefix = head;
  std::size_t from = comment.find_first_not_of(" \t", colon + 1);
  c.pattern = from == std::string::npos ? "" : comment.substr(from);
  return c;
}

}  // namespace

RuleTestFile parse_rule_test(const std::string& path, const std::string& text) {
  RuleTestFile file;
  file.path = path;
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::set<std::string> prefixes;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto comment = comment_of(lines[i]);
    if (!comment || comment->rfind("RUN:", 0) != 0) continue;
    file.runs.push_back(RunParser(path, static_cast<int>(i + 1)).parse(comment->substr(4)));
    prefixes.insert(file.runs.back().prefix);
  }
  if (file.runs.empty()) throw Error(fmt::format("{}:1: no `// RUN: rewrite ...` line", path));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto comment = comment_of(lines[i]);
    if (!comment) continue;
    auto check = check_of(*comment, prefixes);
    if (!check) continue;
    check->line = static_cast<int>(i + 1);
    if (check->pattern.empty()) throw Error(fmt::format("{}:{}: an empty check pattern", path, check->line));
    file.checks.push_back(*check);
  }
  for (const auto& run : file.runs)
    if (run.prefix != "CHECK" && std::none_of(file.checks.begin(), file.checks.end(),
                                              [&](const CheckLine& c) { return c.prefix == run.prefix; }))
      throw Error(fmt::format("{}:{}: no check line has the prefix {}", path, run.line, run.prefix));
  return file;
}

std::uint64_t seed_of(const std::string& strategy) { return fnv1a_64(strategy); }

std::string file_check(const RuleTestFile& file, const std::string& prefix, const std::string& output) {
  std::size_t pos = 0;           // where the next match may start: the end of the previous one
  bool matched = false;          // whether a positive check has matched yet
  std::vector<const CheckLine*> pending_not;
  auto fail = [&](const CheckLine& c, const std::string& message) {
    return fmt::format("{}:{}: {}{}: {}", file.path, c.line, c.prefix,
                       c.kind == CheckLine::Kind::Next ? "-NEXT" : c.kind == CheckLine::Kind::Not ? "-NOT" : "", message);
  };
  // The first check-not of `pending_not` whose text occurs in output[from, to), as a failure.
  auto excluded = [&](std::size_t from, std::size_t to) -> std::string {
    for (const CheckLine* n : pending_not) {
      std::size_t at = output.find(n->pattern, from);
      if (at != std::string::npos && at + n->pattern.size() <= to)
        return fail(*n, fmt::format("`{}` occurs at output line {}", n->pattern,
                                    std::count(output.begin(), output.begin() + static_cast<long>(at), '\n') + 1));
    }
    pending_not.clear();
    return {};
  };
  for (const CheckLine& c : file.checks) {
    if (c.prefix != prefix) continue;
    if (c.kind == CheckLine::Kind::Not) {
      pending_not.push_back(&c);
      continue;
    }
    std::size_t at = output.find(c.pattern, pos);
    if (at == std::string::npos) return fail(c, fmt::format("`{}` not found{}", c.pattern, matched ? " after the previous match" : ""));
    if (c.kind == CheckLine::Kind::Next) {
      if (!matched) return fail(c, "a NEXT check with no match before it");
      std::size_t newlines = std::count(output.begin() + static_cast<long>(pos), output.begin() + static_cast<long>(at), '\n');
      if (newlines != 1)
        return fail(c, fmt::format("`{}` is not on the line after the previous match (it is {} lines on)", c.pattern, newlines));
    }
    if (std::string e = excluded(pos, at); !e.empty()) return e;
    pos = at + c.pattern.size();
    matched = true;
  }
  return excluded(pos, output.size());
}

}  // namespace liftc::rewrite::test
