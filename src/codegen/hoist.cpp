// Loop-invariant code motion on the C syntax tree (see include/liftc/codegen/hoist.hpp).
//
// Loops are handled innermost first. For one loop L: the names L changes (its variable,
// what it declares or assigns) and the buffers it stores to are collected; then every
// expression of L's body is rewritten, replacing each maximal invariant part by the name of
// a `const` local declared before L (one per distinct expression), and splitting sums into
// their invariant and variant terms. A `const` (or never reassigned) declaration directly in
// L's body whose value is invariant moves before L as a whole, so what an inner loop
// hoisted keeps climbing.

#include "liftc/codegen/hoist.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

namespace liftc::codegen {

namespace {

using c::ExprKind;
using c::StmtKind;

// Operations an arith expression costs to evaluate (0: a constant or a variable).
int cost(const arith::Expr& e) {
  switch (e.kind()) {
    case arith::Kind::Cst:
    case arith::Kind::Var: return 0;
    default: break;
  }
  int n = static_cast<int>(e.operands().size()) - 1;
  for (const auto& o : e.operands()) n += cost(o);
  return n;
}

// The arith expression of kind `k` over `ops`, rebuilt through the simplifying operators.
arith::Expr rebuild(arith::Kind k, const std::vector<arith::Expr>& ops) {
  switch (k) {
    case arith::Kind::Sum: {
      arith::Expr s = 0;
      for (const auto& o : ops) s = s + o;
      return s;
    }
    case arith::Kind::Prod: {
      arith::Expr p = 1;
      for (const auto& o : ops) p = p * o;
      return p;
    }
    case arith::Kind::Div: return ops[0] / ops[1];
    case arith::Kind::Mod: return ops[0] % ops[1];
    case arith::Kind::Min: return arith::min(ops[0], ops[1]);
    case arith::Kind::Max: return arith::max(ops[0], ops[1]);
    default: return ops.at(0);
  }
}

// A text that two expressions share exactly when they are the same expression.
std::string key(const c::Expr& e) {
  std::string k = fmt::format("({} {} {} {} {} {} {} {} {}", static_cast<int>(e->kind), ir::to_string(e->type), e->text,
                              e->float_value, arith::to_string(e->index), e->width, e->lane, static_cast<int>(e->fn),
                              e->dim);
  for (const auto& a : e->args) k += " " + key(a);
  return k + ")";
}

// Cheap enough to recompute: a name, a literal, a work-item id, a constant or variable index.
bool trivial(const c::Expr& e) {
  switch (e->kind) {
    case ExprKind::Name:
    case ExprKind::Literal:
    case ExprKind::WorkItem: return true;
    case ExprKind::Index: return cost(e->index) == 0;
    case ExprKind::Lane: return trivial(e->args[0]);
    default: return false;
  }
}

// Whether evaluating `e` where the program would not can fault: a load (its index may be
// out of bounds there) or an integer division (by zero).
bool may_fault(const c::Expr& e) {
  if (e->kind == ExprKind::Load) return true;
  if (e->kind == ExprKind::Binary && (e->text == "/" || e->text == "%") && e->type.is_scalar() &&
      e->type.scalar_kind() != ir::ScalarKind::Float)
    return true;
  for (const auto& a : e->args)
    if (may_fault(a)) return true;
  return false;
}

// Whether the loop `s` provably runs at least once (a constant start below its bound).
bool runs_at_least_once(const c::StmtNode& s) {
  return s.start && s.start->kind == ExprKind::Index && arith::provably_less(s.start->index, s.end);
}

// What a loop changes.
struct LoopEffects {
  std::set<std::string> changed;  // its variable and the names it declares or assigns
  std::set<std::string> stored;   // buffers it stores to
  bool barrier = false;           // it synchronises work-items (others' stores become visible)
};

void collect_effects(const c::Stmt& s, LoopEffects& out) {
  switch (s->kind) {
    case StmtKind::For:
    case StmtKind::Decl:
    case StmtKind::Assign: out.changed.insert(s->name); break;
    case StmtKind::Store: out.stored.insert(s->name); break;
    case StmtKind::Barrier: out.barrier = true; break;
    default: break;
  }
  for (const auto& b : s->body) collect_effects(b, out);
}

// A copy of `e` with other operands and index.
c::Expr with(const c::Expr& e, std::vector<c::Expr> args, arith::Expr index) {
  c::ExprNode n = *e;
  n.args = std::move(args);
  n.index = std::move(index);
  return std::make_shared<const c::ExprNode>(std::move(n));
}

// Hoisting in one function.
class Hoister {
 public:
  explicit Hoister(const c::Function& f) {
    for (const auto& p : f.params) used_.insert(p.name);
    for (const auto& s : f.body) scan(s);
  }

  // Values of `const` locals in scope: key of the value -> its name.
  using Known = std::map<std::string, c::Expr>;

  // The statements with every loop in them (innermost first) relieved of its invariants.
  // `known`: the `const` locals declared before them, which a hoisted value reuses (two
  // sibling loops needing 2*g share one local).
  std::vector<c::Stmt> block(const std::vector<c::Stmt>& stmts, Known known) {
    std::vector<c::Stmt> out;
    for (const auto& s : stmts) {
      std::size_t first = out.size();
      if (s->kind == StmtKind::For) {
        c::StmtNode loop = *s;
        loop.body = block(s->body, known);
        out_of(std::make_shared<const c::StmtNode>(std::move(loop)), known, out);
      } else if (s->kind == StmtKind::If || s->kind == StmtKind::Block) {
        c::StmtNode n = *s;
        n.body = block(s->body, known);
        out.push_back(std::make_shared<const c::StmtNode>(std::move(n)));
      } else {
        out.push_back(s);
      }
      for (std::size_t k = first; k < out.size(); ++k)
        if (out[k]->kind == StmtKind::Decl && out[k]->is_const && out[k]->value && stable(out[k]->value))
          known.emplace(key(out[k]->value), c::name(out[k]->name, out[k]->type));
    }
    return out;
  }

 private:
  // Hoisting out of one loop: what it changes and what has been hoisted so far.
  struct Motion {
    LoopEffects effects;
    std::vector<c::Stmt> before;          // declarations to put before the loop
    std::map<std::string, c::Expr> made;  // key of a value in a const local before the loop -> its name
  };

  void scan(const c::Stmt& s) {
    auto on_expr = [&](const c::Expr& e, auto&& self) -> void {
      if (!e) return;
      if (e->kind == ExprKind::Name || e->kind == ExprKind::Load) used_.insert(e->text);
      for (const auto& v : arith::free_vars(e->index)) used_.insert(v);
      for (const auto& a : e->args) self(a, self);
    };
    on_expr(s->value, on_expr);
    on_expr(s->start, on_expr);
    on_expr(s->step, on_expr);
    used_.insert(s->name);
    if (s->kind == StmtKind::Decl && s->length && s->space == AddressSpace::Private) private_arrays_.insert(s->name);
    if (s->kind == StmtKind::Assign) assigned_.insert(s->name);
    if (s->kind == StmtKind::Store) stored_.insert(s->name);
    for (const auto& b : s->body) scan(b);
  }

  // Appends to `out` the declarations hoisted out of `loop`, then the loop.
  void out_of(const c::Stmt& loop, const Known& known, std::vector<c::Stmt>& out) {
    Motion m;
    m.made = known;
    m.effects.changed.insert(loop->name);
    for (const auto& b : loop->body) collect_effects(b, m.effects);
    bool once = runs_at_least_once(*loop);
    std::vector<c::Stmt> body;
    for (const auto& s : loop->body)
      if (c::Stmt t = walk(s, m, once, true)) body.push_back(t);
    out.insert(out.end(), m.before.begin(), m.before.end());
    c::StmtNode n = *loop;
    n.body = std::move(body);
    out.push_back(std::make_shared<const c::StmtNode>(std::move(n)));
  }

  // `s` with its invariants hoisted into m.before; null when `s` itself moved there.
  // `safe`: `s` runs in every iteration of a loop that runs at least once, so what it
  // evaluates may be evaluated before the loop. `top`: `s` is directly in the loop's body.
  c::Stmt walk(const c::Stmt& s, Motion& m, bool safe, bool top) {
    c::StmtNode n = *s;
    switch (s->kind) {
      case StmtKind::Decl:
        if (!s->value || s->length) return s;
        if (top && (s->is_const || !assigned_.count(s->name)) && invariant(s->value, m) &&
            (safe || !may_fault(s->value))) {
          m.before.push_back(s);
          m.effects.changed.erase(s->name);
          return nullptr;
        }
        n.value = rewrite(s->value, m, safe);
        break;
      case StmtKind::Assign: n.value = rewrite(s->value, m, safe); break;
      case StmtKind::Store:
        if (!private_arrays_.count(s->name)) n.offset = rewrite_index(s->offset, m, s->width);
        n.value = rewrite(s->value, m, safe);
        break;
      case StmtKind::If:
        n.value = rewrite(s->value, m, safe);
        n.body = walk_all(s->body, m, false);
        break;
      case StmtKind::For: n.body = walk_all(s->body, m, safe && runs_at_least_once(*s)); break;
      case StmtKind::Block: n.body = walk_all(s->body, m, safe); break;
      default: return s;
    }
    return std::make_shared<const c::StmtNode>(std::move(n));
  }

  std::vector<c::Stmt> walk_all(const std::vector<c::Stmt>& stmts, Motion& m, bool safe) {
    std::vector<c::Stmt> out;
    for (const auto& s : stmts)
      if (c::Stmt t = walk(s, m, safe, false)) out.push_back(t);
    return out;
  }

  // Whether `e` keeps its value for as long as a local holding it is in scope: no loads
  // (a store in between may change them) and no variable that is ever reassigned.
  bool stable(const c::Expr& e) const {
    if (e->kind == ExprKind::Load || (e->kind == ExprKind::Name && assigned_.count(e->text))) return false;
    for (const auto& v : arith::free_vars(e->index))
      if (assigned_.count(v)) return false;
    for (const auto& a : e->args)
      if (!stable(a)) return false;
    return true;
  }

  bool invariant(const arith::Expr& e, const Motion& m) const {
    for (const auto& v : arith::free_vars(e))
      if (m.effects.changed.count(v)) return false;
    return true;
  }

  // Whether `e` has the same value in every iteration of the loop.
  bool invariant(const c::Expr& e, const Motion& m) const {
    switch (e->kind) {
      case ExprKind::Name: return !m.effects.changed.count(e->text);
      case ExprKind::Index: return invariant(e->index, m);
      case ExprKind::Load:
        // Stores of other work-items become visible only at a barrier.
        if (m.effects.changed.count(e->text) || m.effects.stored.count(e->text) ||
            (m.effects.barrier && stored_.count(e->text)))
          return false;
        return invariant(e->index, m);
      default:
        for (const auto& a : e->args)
          if (!invariant(a, m)) return false;
        return true;
    }
  }

  // `e` with its maximal invariant parts replaced by hoisted names. `safe` as in walk().
  c::Expr rewrite(const c::Expr& e, Motion& m, bool safe) {
    if (trivial(e)) return e;
    if (e->kind == ExprKind::Index) {
      arith::Expr i = rewrite_index(e->index, m, 1);
      return i == e->index ? e : c::index(i);
    }
    if (invariant(e, m) && (safe || !may_fault(e))) return hoist(e, m);
    std::vector<c::Expr> args;
    for (std::size_t k = 0; k < e->args.size(); ++k) {
      // Only the condition of `?:` and the left side of `&&`/`||` always run.
      bool conditional = (e->kind == ExprKind::Ternary && k > 0) ||
                         (e->kind == ExprKind::Binary && (e->text == "&&" || e->text == "||") && k > 0);
      args.push_back(rewrite(e->args[k], m, safe && !conditional));
    }
    arith::Expr index = e->index;
    if (e->kind == ExprKind::Load && !private_arrays_.count(e->text)) index = rewrite_index(e->index, m, e->width);
    bool same = index == e->index;
    for (std::size_t k = 0; k < args.size(); ++k) same = same && args[k] == e->args[k];
    return same ? e : with(e, std::move(args), std::move(index));
  }

  // The index `e` (of an access `width` scalars wide) with its invariant part precomputed:
  // the invariant terms of a sum become one hoisted offset; other operations are rewritten
  // operand by operand.
  arith::Expr rewrite_index(const arith::Expr& e, Motion& m, int width) {
    if (cost(e) == 0) return e;
    if (invariant(e, m)) return hoist_index(e, m, width);
    if (e.kind() == arith::Kind::Sum) {
      arith::Expr fixed = 0, moving = 0;
      for (const auto& t : e.operands()) {
        if (invariant(t, m))
          fixed = fixed + t;
        else
          moving = moving + rewrite_index(t, m, 1);
      }
      return hoist_index(fixed, m, width) + moving;
    }
    std::vector<arith::Expr> ops;
    for (const auto& o : e.operands()) ops.push_back(rewrite_index(o, m, 1));
    return rebuild(e.kind(), ops);
  }

  // A variable holding the invariant index `e`, declared before the loop. For a vector
  // access, an offset that is a multiple of the width is kept as `width * name`, so the
  // printer still sees the whole offset is a multiple (vloadN(i, p) rather than vloadN(0, p + i)).
  arith::Expr hoist_index(const arith::Expr& e, Motion& m, int width) {
    if (cost(e) == 0) return e;
    if (width > 1 && arith::provably_divisible(e, width)) {
      arith::Expr q = e / width;
      return width * (cost(q) == 0 ? q : hoist_index(q, m, 1));
    }
    c::Expr name = hoist(c::index(e), m);
    return arith::var(name->text, arith::lower_bound(e), arith::upper_bound(e));
  }

  // The name of a `const` local, declared before the loop, holding `e`.
  c::Expr hoist(const c::Expr& e, Motion& m) {
    std::string k = key(e);
    auto it = m.made.find(k);
    if (it != m.made.end()) return it->second;
    std::string name;
    do name = fmt::format("inv_{}", counter_++);
    while (used_.count(name));
    used_.insert(name);
    m.before.push_back(c::const_decl(name, e->type, e));
    c::Expr ref = c::name(name, e->type);
    m.made[k] = ref;
    return ref;
  }

  std::set<std::string> used_;            // every name in the function
  std::set<std::string> private_arrays_;  // private arrays (registers once unrolled)
  std::set<std::string> assigned_;        // variables assigned somewhere
  std::set<std::string> stored_;          // buffers the function stores to
  int counter_ = 0;
};

}  // namespace

c::Function hoist_invariants(const c::Function& f) {
  c::Function out = f;
  out.body = Hoister(f).block(f.body, {});
  return out;
}

}  // namespace liftc::codegen
