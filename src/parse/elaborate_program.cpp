// Elaboration of declarations: sizes, inputs, function definitions (collected first and
// checked for recursion), value definitions in order.

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "elaborator.hpp"
#include "reserved_names.hpp"

namespace liftc::parse {

namespace {

std::string where(const SourceLoc& loc) {
  if (!loc.known()) return "";
  return fmt::format(" (at {}:{}:{})", loc.file->path, loc.line, loc.col);
}

// Levenshtein distance, for "did you mean".
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The function-definition names an expression refers to (not shadowed by a binder).
void references(const ast::Expr& e, std::vector<std::string>& bound, const std::set<std::string>& functions,
                std::set<std::string>& out) {
  const auto& v = peel(e).get();
  if (auto* n = boost::get<ast::Name>(&v)) {
    if (functions.count(n->text) && std::find(bound.begin(), bound.end(), n->text) == bound.end()) out.insert(n->text);
  } else if (auto* t = boost::get<x3::forward_ast<ast::Tuple>>(&v)) {
    for (const auto& el : t->get().elems) references(el, bound, functions, out);
  } else if (auto* l = boost::get<x3::forward_ast<ast::Lambda>>(&v)) {
    for (const auto& p : l->get().params) bound.push_back(p.text);
    references(l->get().body, bound, functions, out);
    bound.resize(bound.size() - l->get().params.size());
  } else if (auto* let = boost::get<x3::forward_ast<ast::Let>>(&v)) {
    references(let->get().value, bound, functions, out);
    bound.push_back(let->get().name.text);
    references(let->get().body, bound, functions, out);
    bound.pop_back();
  } else if (auto* b = boost::get<x3::forward_ast<ast::Binary>>(&v)) {
    references(b->get().first, bound, functions, out);
    for (const auto& op : b->get().rest) references(op.operand, bound, functions, out);
  } else if (auto* u = boost::get<x3::forward_ast<ast::Unary>>(&v)) {
    references(u->get().operand, bound, functions, out);
  } else if (auto* p = boost::get<x3::forward_ast<ast::Postfix>>(&v)) {
    references(p->get().primary, bound, functions, out);
    for (const auto& op : p->get().ops)
      if (auto* args = boost::get<ast::Arguments>(&op.get()))
        for (const auto& a : args->args) references(a, bound, functions, out);
  }
}

}  // namespace

void Elaborator::declare(const std::string& name, Global global, bool from_prelude) {
  if (ir::prim_from_name(name) || name == "striddenIndex")
    throw Error(fmt::format("`{}` is a primitive and cannot be redefined", name), global.loc);
  if (from_prelude) {
    LIFTC_ASSERT(prelude_functions_.count(name) == 0, "prelude functions have distinct names");
    prelude_functions_.emplace(name, global.function);
    return;
  }
  if (auto it = globals_.find(name); it != globals_.end())
    throw Error(fmt::format("`{}` is already defined{}", name, where(it->second.loc)), global.loc);
  if (global.kind == Global::Kind::Input || global.kind == Global::Kind::Value)
    if (std::optional<std::string> why = reserved_in_kernels(name))
      throw Error(fmt::format("`{}` is {}, and {} names a buffer of the generated kernels: choose another name", name,
                              *why, global.kind == Global::Kind::Input ? "an input" : "a definition"),
                  global.loc);
  globals_.emplace(name, std::move(global));
}

void Elaborator::collect_functions(const Syntax& syntax, bool from_prelude) {
  for (const auto& decl : syntax.tree().decls) {
    auto* def = boost::get<ast::Def>(&decl.get());
    if (def == nullptr || !def->params) {
      LIFTC_ASSERT(!from_prelude, "the prelude holds function definitions only");
      continue;
    }
    auto f = std::make_unique<FunctionDef>();
    f->name = def->name.text;
    for (const auto& p : *def->params) {
      if (std::find(f->params.begin(), f->params.end(), p.text) != f->params.end())
        throw Error(fmt::format("parameter `{}` appears twice", p.text), syntax.loc(p));
      f->params.push_back(p.text);
    }
    f->def = def;
    f->syntax = &syntax;
    f->loc = syntax.loc(def->name);
    f->from_prelude = from_prelude;
    declare(f->name, Global{Global::Kind::Function, f->loc, f.get()}, from_prelude);
    functions_.push_back(std::move(f));
  }
}

void Elaborator::check_recursion() {
  // Prelude bodies see prelude functions only, so a cycle stays within one origin.
  std::set<std::string> names[2];
  for (const auto& f : functions_) names[f->from_prelude].insert(f->name);
  std::map<std::string, std::set<std::string>> edges;
  std::map<std::string, SourceLoc> locs;
  for (const auto& f : functions_) {
    if (f->from_prelude && names[0].count(f->name)) continue;  // shadowed
    std::vector<std::string> bound = f->params;
    references(f->def->body, bound, names[f->from_prelude], edges[f->name]);
    locs[f->name] = f->loc;
  }
  // Depth-first search; a grey node reached again closes a cycle.
  std::map<std::string, int> colour;  // 0 white, 1 grey, 2 black
  std::vector<std::string> path;
  std::function<void(const std::string&)> visit = [&](const std::string& n) {
    colour[n] = 1;
    path.push_back(n);
    for (const auto& m : edges[n]) {
      if (colour[m] == 1) {
        auto start = std::find(path.begin(), path.end(), m);
        std::vector<std::string> cycle(start, path.end());
        cycle.push_back(m);
        throw Error(fmt::format("recursive definition: {} (functions are expanded at their uses, so they cannot "
                                "call themselves)",
                                fmt::join(cycle, " -> ")),
                    locs.at(m));
      }
      if (colour[m] == 0) visit(m);
    }
    path.pop_back();
    colour[n] = 2;
  };
  for (const auto& [name, targets] : edges)
    if (colour[name] == 0) visit(name);
}

void Elaborator::unknown_name(const std::string& name, const SourceLoc& here, const EnvPtr& env) const {
  std::vector<std::string> candidates;
  for (const Env* frame = env.get(); frame != nullptr; frame = frame->parent.get()) candidates.push_back(frame->name);
  for (const auto& [global, info] : globals_) candidates.push_back(global);
  for (const auto& [function, info] : prelude_functions_) candidates.push_back(function);
  for (const auto& sig : ir::all_signatures()) candidates.emplace_back(sig.name);
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: a name of megabytes costs nothing.
    if (std::max(name.size(), c.size()) - std::min(name.size(), c.size()) >= best_distance) continue;
    std::size_t d = distance(name, c);
    if (d < best_distance && d < std::max<std::size_t>(name.size(), 2)) {
      best = c;
      best_distance = d;
    }
  }
  // A long name is shown by its start: the caret line shows where it is.
  constexpr std::size_t kMaxShown = 60;
  std::string shown = name.size() <= kMaxShown ? name : name.substr(0, kMaxShown) + "...";
  throw Error(fmt::format("unknown name `{}`{}", shown, best.empty() ? "" : fmt::format("; did you mean `{}`?", best)),
              here);
}

ir::Program Elaborator::run(const Syntax& program, const Syntax* prelude) {
  prelude_ = prelude;
  if (prelude != nullptr) collect_functions(*prelude, true);
  collect_functions(program, false);
  check_recursion();

  ir::Program out;
  out.source = program.map().file();
  for (const auto& f : functions_) out.functions.push_back(ir::FunctionInfo{f->name, f->params, f->loc, f->from_prelude});
  for (const auto& decl : program.tree().decls) {
    const auto& v = decl.get();
    if (auto* sizes = boost::get<ast::SizeDecl>(&v)) {
      for (const auto& item : sizes->items) {
        SourceLoc here = program.loc(item.name);
        ir::SizeDecl decl{item.name.text, item.value, here};
        if (item.range) {
          if (item.range->lo > item.range->hi)
            throw Error(fmt::format("size {}: empty range {}..{}", item.name.text, item.range->lo, item.range->hi),
                        program.loc(*item.range));
          decl.min = item.range->lo;
          decl.max = item.range->hi;
        }
        if (item.value && !decl.admits(*item.value))
          throw Error(decl.min ? fmt::format("size {} must be in {}..{}", item.name.text, *decl.min, *decl.max)
                               : fmt::format("size {} must be at least 1", item.name.text),
                      here);
        declare(item.name.text, Global{Global::Kind::Size, here, nullptr, decl.variable()}, false);
        out.sizes.push_back(decl);
      }
    } else if (auto* input = boost::get<ast::InputDecl>(&v)) {
      SourceLoc here = program.loc(input->name);
      ir::Type type = elab_type(input->type, program);
      declare(input->name.text, Global{Global::Kind::Input, here, nullptr}, false);
      out.inputs.push_back(ir::InputDecl{input->name.text, type, here});
    } else {
      const auto& def = boost::get<ast::Def>(v);
      if (def.params) continue;  // a function: expanded at its uses
      SourceLoc here = program.loc(def.name);
      // The body is elaborated before the name is declared: a definition cannot use itself.
      Value body = elab(def.body, nullptr, &program);
      if (body.function)
        throw Error(fmt::format("definition `{}` is a function; give it parameters to define a function: "
                                "def {}(x) = ...",
                                def.name.text, def.name.text),
                    here);
      declare(def.name.text, Global{Global::Kind::Value, here, nullptr}, false);
      out.defs.push_back(ir::Definition{def.name.text, body.data, here});
    }
  }
  return out;
}

}  // namespace liftc::parse
