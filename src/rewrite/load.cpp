// Rule files -> RuleSet: parsing, lowering, and the checks across declarations
// (duplicate names, unknown or self-referring strategy names).

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "liftc/parse/parse.hpp"
#include "liftc/support/data_dir.hpp"
#include "liftc/support/file.hpp"
#include "liftc/syntax/read.hpp"

#include "liftc/rewrite/load.hpp"
#include "lower.hpp"


namespace liftc::rewrite {

namespace detail {

namespace x3 = boost::spirit::x3;

namespace {

const std::set<std::string>& combinators() {
  static const std::set<std::string> names = {"id",       "fail",       "try",      "repeat", "topdown", "bottomup",
                                              "everywhere", "anywhere", "normalize", "at",
                                              "where",    "unless",     "body",       "fallback"};
  return names;
}

std::optional<StrategyKind> unary_combinator(const std::string& name) {
  if (name == "try") return StrategyKind::Try;
  if (name == "repeat") return StrategyKind::Repeat;
  if (name == "topdown") return StrategyKind::TopDown;
  if (name == "bottomup") return StrategyKind::BottomUp;
  if (name == "everywhere") return StrategyKind::Everywhere;
  if (name == "anywhere") return StrategyKind::Anywhere;
  if (name == "normalize") return StrategyKind::Normalize;
  if (name == "where") return StrategyKind::Where;
  if (name == "unless") return StrategyKind::Unless;
  if (name == "body") return StrategyKind::Body;
  return std::nullopt;
}

Strategy lower_atom(const ast::StratAtom& a, const syntax::Positions& parsed, const NameResolver& resolve);

// `a ; b ; c` is one n-ary Seq node (built in place: no copy of what came before).
Strategy lower_seq(const ast::StratSeq& s, const syntax::Positions& parsed, const NameResolver& resolve) {
  if (s.items.size() == 1) return lower_atom(s.items.front(), parsed, resolve);
  Strategy seq;
  seq.kind = StrategyKind::Seq;
  seq.args.reserve(s.items.size());
  for (const auto& item : s.items) seq.args.push_back(lower_atom(item, parsed, resolve));
  seq.loc = seq.args.front().loc;
  return seq;
}

Strategy lower_call(const ast::StratCall& c, const syntax::Positions& parsed, const NameResolver& resolve) {
  Strategy s;
  s.loc = parsed.loc(c);
  s.name = c.name;
  std::size_t nargs = c.args.size();
  if (!c.fixed.empty() && (unary_combinator(c.name) || c.name == "id" || c.name == "fail"))
    throw Error(fmt::format("{} takes no fixed parameters", c.name), s.loc);
  if (auto k = unary_combinator(c.name)) {
    if (nargs != 1) throw Error(fmt::format("{} takes one strategy, got {}", c.name, nargs), s.loc);
    s.kind = *k;
    s.args.push_back(lower_strategy(c.args[0], parsed, resolve));
    return s;
  }
  if (c.name == "fallback") {
    if (!c.fixed.empty()) throw Error("fallback takes no fixed parameters", s.loc);
    if (nargs != 2) throw Error(fmt::format("fallback takes two strategies, got {}", nargs), s.loc);
    s.kind = StrategyKind::Fallback;
    for (const auto& a : c.args) s.args.push_back(lower_strategy(a, parsed, resolve));
    return s;
  }
  if (c.name == "id" || c.name == "fail") {
    if (nargs != 0) throw Error(fmt::format("{} takes no arguments", c.name), s.loc);
    s.kind = c.name == "id" ? StrategyKind::Id : StrategyKind::Fail;
    return s;
  }
  if (nargs != 0) throw Error(fmt::format("unknown strategy combinator `{}`", c.name), s.loc);
  auto k = resolve(c.name);
  if (!k) throw Error(fmt::format("unknown rule or strategy `{}`", c.name), s.loc);
  s.kind = *k;
  if (!c.fixed.empty()) {
    if (s.kind != StrategyKind::Rule) throw Error(fmt::format("only a rule's parameters can be fixed; `{}` is a strategy", c.name), s.loc);
    for (long long v : c.fixed) s.fixed.push_back(v);
  }
  return s;
}

Strategy lower_atom(const ast::StratAtom& a, const syntax::Positions& parsed, const NameResolver& resolve) {
  if (auto* c = boost::get<ast::StratCall>(&a)) return lower_call(*c, parsed, resolve);
  if (auto* at = boost::get<x3::forward_ast<ast::StratAt>>(&a)) {
    Strategy s;
    s.kind = StrategyKind::At;
    s.loc = parsed.loc(at->get());
    for (unsigned i : at->get().path) s.path.push_back(static_cast<int>(i));
    s.args.push_back(lower_strategy(at->get().body.get(), parsed, resolve));
    return s;
  }
  return lower_strategy(boost::get<x3::forward_ast<ast::StratExpr>>(a).get(), parsed, resolve);
}

}  // namespace

void check_fixed(const std::vector<Rule>& rules, const Strategy& s) {
  for (const auto& a : s.args) check_fixed(rules, a);
  if (s.kind != StrategyKind::Rule || s.fixed.empty()) return;
  auto it = std::find_if(rules.begin(), rules.end(), [&](const Rule& r) { return r.name == s.name; });
  LIFTC_ASSERT(it != rules.end(), "rule names in strategies are resolved");
  if (s.fixed.size() > it->params.size())
    throw Error(fmt::format("rule `{}` has {} parameter{}, {} given", s.name, it->params.size(),
                            it->params.size() == 1 ? "" : "s", s.fixed.size()),
                s.loc);
  for (std::size_t i = 0; i < s.fixed.size(); ++i) {
    const RuleParam& p = it->params[i];
    std::int64_t v = s.fixed[i];
    bool ok = p.values.empty() ? (!p.min || v >= *p.min) && (!p.max || v <= *p.max)
                               : std::find(p.values.begin(), p.values.end(), v) != p.values.end();
    if (!ok || v < 0) throw Error(fmt::format("{} is not a value of parameter `{}` of rule `{}`", v, p.name, s.name), s.loc);
  }
}

// `a <+ b <+ c` and `a | b | c` are one n-ary node each; mixed operators group to the
// left: `a <+ b | c` is `(a <+ b) | c`.
Strategy lower_strategy(const ast::StratExpr& e, const syntax::Positions& parsed, const NameResolver& resolve) {
  Strategy acc = lower_seq(e.first, parsed, resolve);
  bool open = false;  // whether acc is a choice node this loop built (so it may grow)
  for (const auto& op : e.rest) {
    StrategyKind kind = op.op == "<+" ? StrategyKind::LeftChoice : StrategyKind::AllChoice;
    if (!open || acc.kind != kind) {
      Strategy c;
      c.kind = kind;
      c.loc = parsed.loc(op);
      c.args.push_back(std::move(acc));
      acc = std::move(c);
      open = true;
    }
    acc.args.push_back(lower_seq(op.operand, parsed, resolve));
  }
  return acc;
}

}  // namespace detail

namespace {

// The first strategy name reachable from `s` that leads back to `target`, if any.
bool refers_to(const RuleSet& set, const Strategy& s, const std::string& target, std::set<std::string>& seen) {
  if (s.kind == StrategyKind::Named) {
    if (s.name == target) return true;
    if (!seen.insert(s.name).second) return false;
    const NamedStrategy* n = set.strategy(s.name);
    return n && refers_to(set, n->body, target, seen);
  }
  for (const auto& a : s.args)
    if (refers_to(set, a, target, seen)) return true;
  return false;
}

// A rule file's text: a regular file of at most the size of a program (a directory, a
// device or a huge file is a liftc::Error naming it).
std::string read_file(const std::string& path) { return read_regular_file(path, "rule file", parse::kMaxProgramBytes); }

}  // namespace

const Rule* RuleSet::rule(const std::string& name) const {
  for (const auto& r : rules)
    if (r.name == name) return &r;
  return nullptr;
}

const NamedStrategy* RuleSet::strategy(const std::string& name) const {
  for (const auto& s : strategies)
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

// A parsed file whose strategies are declared but not yet lowered.
struct PendingFile {
  std::unique_ptr<syntax::Parsed<syntax::ast::RuleFile>> parsed;
  std::vector<const syntax::ast::StrategyDecl*> strategies;
  std::size_t first = 0;  // index of its first strategy in the set
};

// Parses a file, lowers its rules and declares its strategies.
PendingFile declare(RuleSet& set, std::shared_ptr<const SourceFile> source) {
  PendingFile pending;
  pending.parsed = syntax::read_rule_file(source);
  const syntax::Positions& parsed = *pending.parsed;
  const syntax::ast::RuleFile& file = pending.parsed->tree();

  auto check_name = [&](const std::string& name, const SourceLoc& at) {
    if (detail::combinators().count(name)) throw Error(fmt::format("`{}` is a strategy combinator, not a free name", name), at);
    auto previous = [&]() -> const SourceLoc* {
      if (const Rule* r = set.rule(name)) return &r->loc;
      if (const NamedStrategy* s = set.strategy(name)) return &s->loc;
      return nullptr;
    }();
    if (previous)
      throw Error(fmt::format("duplicate name `{}` (first defined at {}:{})", name,
                              previous->file ? previous->file->path : "?", previous->line),
                  at);
  };
  // Rules first, so strategies anywhere can name them.
  pending.first = set.strategies.size();
  std::vector<const syntax::ast::StrategyDecl*>& strategies = pending.strategies;
  for (const auto& item : file.items) {
    if (auto* r = boost::get<syntax::ast::RuleDecl>(&item)) {
      check_name(r->name, parsed.loc(*r));
      set.rules.push_back(detail::lower_rule(*r, parsed));
    } else {
      const auto& s = boost::get<syntax::ast::StrategyDecl>(item);
      check_name(s.name, parsed.loc(s));
      NamedStrategy n;
      n.name = s.name;
      n.tags = s.tags.value_or(std::vector<std::string>{});
      n.description = s.description.value_or("");
      n.loc = parsed.loc(s);
      set.strategies.push_back(std::move(n));
      strategies.push_back(&s);
    }
  }
  set.files.push_back(source->path);
  return pending;
}

// Lowers the strategies of declared files, once every rule and strategy name is known.
void define(RuleSet& set, std::vector<PendingFile>& files) {
  auto resolve = [&](const std::string& name) -> std::optional<StrategyKind> {
    if (set.rule(name)) return StrategyKind::Rule;
    if (set.strategy(name)) return StrategyKind::Named;
    return std::nullopt;
  };
  for (auto& f : files)
    for (std::size_t i = 0; i < f.strategies.size(); ++i)
      set.strategies[f.first + i].body = detail::lower_strategy(f.strategies[i]->body, *f.parsed, resolve);
  std::size_t first = files.empty() ? set.strategies.size() : files.front().first;
  for (std::size_t i = first; i < set.strategies.size(); ++i) {
    detail::check_fixed(set.rules, set.strategies[i].body);
    std::set<std::string> seen;
    if (refers_to(set, set.strategies[i].body, set.strategies[i].name, seen))
      throw Error(fmt::format("strategy `{}` refers to itself (use repeat or normalize)", set.strategies[i].name),
                  set.strategies[i].loc);
  }
}

}  // namespace

void add_rules(RuleSet& set, std::shared_ptr<const SourceFile> source) {
  std::vector<PendingFile> files;
  files.push_back(declare(set, std::move(source)));
  define(set, files);
}

RuleSet load_rule_files(const std::vector<std::string>& paths) {
  RuleSet set;
  std::vector<PendingFile> files;
  for (const auto& p : paths) files.push_back(declare(set, std::make_shared<const SourceFile>(SourceFile{p, read_file(p)})));
  define(set, files);
  return set;
}

RuleSet load_rules_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(fmt::format("rule folder {} does not exist", dir));
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".rules") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) throw Error(fmt::format("no .rules files in {}", dir));
  return load_rule_files(paths);
}

std::string default_rules_dir() { return liftc::default_rules_dir(); }

std::vector<std::string> default_strategies(const RuleSet& rules) {
  std::vector<std::string> out;
  const std::string suffix = "strategies.rules";
  for (const auto& s : rules.strategies) {
    const std::string& path = s.loc.file ? s.loc.file->path : std::string();
    if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(s.name);
  }
  return out;
}

std::vector<std::string> expand_strategy_tags(const RuleSet& rules, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& name : names) {
    if (name.empty() || name[0] != '@') {
      add(name);
      continue;
    }
    std::string tag = name.substr(1);
    std::set<std::string> known;
    bool any = false;
    for (const auto& s : rules.strategies) {
      known.insert(s.tags.begin(), s.tags.end());
      if (std::find(s.tags.begin(), s.tags.end(), tag) != s.tags.end()) {
        add(s.name);
        any = true;
      }
    }
    if (!any)
      throw Error(fmt::format("strategy tag '{}': no strategy of the rules carries it (their tags: {})", name,
                              known.empty() ? std::string("none") : fmt::format("@{}", fmt::join(known, ", @"))));
  }
  return out;
}

}  // namespace liftc::rewrite
