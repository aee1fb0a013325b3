#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "code.hpp"
#include "view.hpp"

namespace liftc::interp::detail {

namespace {

// The value of a constant array (type checked: its values are constants) in `layout`.
Value constant_array(const ir::Expr& e, const Layout* layout) {
  std::optional<std::vector<double>> values = ir::constant_array_values(e);
  LIFTC_ASSERT(values && static_cast<std::int64_t>(values->size()) == layout->words,
               "type checking admits only constant arrays whose values fill their type");
  const Layout* leaf = layout;
  while (leaf->is_array()) leaf = leaf->elem;
  auto words = std::make_shared<std::vector<Word>>();
  for (double v : *values)
    words->push_back(leaf->scalar == ir::ScalarKind::Float ? std::bit_cast<Word>(static_cast<float>(v))
                                                           : static_cast<Word>(static_cast<std::int32_t>(v)));
  return Value::ref(std::make_shared<DenseView>(std::move(words), layout), layout);
}

bool is_float_scalar(const Layout* l) { return l->kind == ir::TypeKind::Scalar && l->scalar == ir::ScalarKind::Float; }

// A Call of + - * / on two float scalars.
bool is_float_arith(const Code& c) {
  bool arith = c.prim == ir::Prim::Add || c.prim == ir::Prim::Sub || c.prim == ir::Prim::Mul || c.prim == ir::Prim::Div;
  return arith && c.args.size() == 2 && is_float_scalar(c.args[0]->layout) && is_float_scalar(c.args[1]->layout);
}

// Counts the Var nodes of `slot` under c (`all`) and those that a Get projects (`projected`).
void count_uses(const Code& c, int slot, int& all, int& projected) {
  if (c.op == Op::Var && c.slot == slot) ++all;
  if (c.op == Op::Get && c.args[0]->op == Op::Var && c.args[0]->slot == slot) ++projected;
  for (const auto& a : c.args) count_uses(*a, slot, all, projected);
}

// Turns every projection `slot.k` under c into a read of comps[k].
void project_to_slots(Code& c, int slot, const std::vector<int>& comps) {
  if (c.op == Op::Get && c.args[0]->op == Op::Var && c.args[0]->slot == slot) {
    c.op = Op::Var;
    c.slot = comps[static_cast<std::size_t>(c.index)];
    c.args.clear();
    return;
  }
  for (auto& a : c.args) project_to_slots(*a, slot, comps);
}

// Appends c as postfix float arithmetic to `out`; false when c is anything else. `depth`
// tracks the stack (the deepest it gets in `max_depth`).
bool flatten_float(const Code& c, std::vector<FloatInstr>& out, int depth, int& max_depth) {
  max_depth = std::max(max_depth, depth + 1);
  switch (c.op) {
    case Op::Var:
      if (!is_float_scalar(c.layout)) return false;
      out.push_back({FloatInstr::Kind::Slot, c.slot, 0.f});
      return true;
    case Op::Literal:
      if (!is_float_scalar(c.layout)) return false;
      out.push_back({FloatInstr::Kind::Const, -1, c.literal.as_float()});
      return true;
    case Op::FloatArith: {
      if (!flatten_float(*c.args[0], out, depth, max_depth) || !flatten_float(*c.args[1], out, depth + 1, max_depth))
        return false;
      FloatInstr::Kind k = c.prim == ir::Prim::Add   ? FloatInstr::Kind::Add
                           : c.prim == ir::Prim::Sub ? FloatInstr::Kind::Sub
                           : c.prim == ir::Prim::Mul ? FloatInstr::Kind::Mul
                                                     : FloatInstr::Kind::Div;
      out.push_back({k, -1, 0.f});
      return true;
    }
    default:
      return false;
  }
}

// Resolves names to slots while walking the IR.
class Compiler {
 public:
  explicit Compiler(CompiledProgram& out) : out_(out) {}

  int bind(const std::string& name) {
    int slot = out_.num_slots++;
    scope_.emplace_back(name, slot);
    return slot;
  }

  void unbind(std::size_t count) { scope_.resize(scope_.size() - count); }

  std::unique_ptr<Code> compile(const ir::Expr& e) {
    auto c = std::make_unique<Code>();
    c->loc = e.loc();
    if (e.kind() != ir::ExprKind::Lambda) c->layout = out_.layouts->of(e.type(), e.loc());
    switch (e.kind()) {
      case ir::ExprKind::Var:
        c->op = Op::Var;
        c->slot = lookup(e->name);
        break;
      case ir::ExprKind::Literal:
        c->op = Op::Literal;
        c->literal = e->literal.kind == ir::ScalarKind::Float ? Value::of_float(static_cast<float>(e->literal.f))
                                                               : Value::of_int(static_cast<std::int32_t>(e->literal.i));
        break;
      case ir::ExprKind::Lambda:
        c->op = Op::Lambda;
        LIFTC_ASSERT(e->param_types.size() == e->params.size(), "type checking sets every lambda's parameter types");
        for (const std::string& p : e->params) c->params.push_back(bind(p));
        for (const ir::Type& t : e->param_types) c->param_layouts.push_back(out_.layouts->of(t, e.loc()));
        c->args.push_back(compile(ir::lambda_body(e)));
        unbind(e->params.size());
        specialize_lambda(*c);
        break;
      case ir::ExprKind::Apply:
        c->op = Op::Apply;
        compile_children(e, *c);
        break;
      case ir::ExprKind::Call:
        c->op = Op::Call;
        c->prim = e->prim;
        for (const arith::Expr& s : e->sizes) {
          std::optional<std::int64_t> v = s.constant();
          LIFTC_ASSERT(v.has_value(), fmt::format("the interpreter needs bound sizes, but {} has size argument {}",
                                                  ir::signature(e->prim).name, arith::to_string(s)));
          c->sizes.push_back(*v);
        }
        if (e->prim == ir::Prim::SizeValue) {
          // Type checking refused a size value that does not fit in an int where it is one.
          LIFTC_ASSERT(c->sizes[0] >= std::numeric_limits<std::int32_t>::min() &&
                           c->sizes[0] <= std::numeric_limits<std::int32_t>::max(),
                       fmt::format("an int size value fits in 32 bits, but is {}", c->sizes[0]));
          c->op = Op::Literal;
          c->literal = Value::of_int(static_cast<std::int32_t>(c->sizes[0]));
        }
        if (e->prim == ir::Prim::ToFloat && e->args[0].kind() == ir::ExprKind::Call &&
            e->args[0]->prim == ir::Prim::SizeValue) {
          // float(N * N): the size's exact 64-bit value, rounded once to float, as the
          // kernels' (float)4294967296 is.
          std::optional<std::int64_t> v = e->args[0]->sizes[0].constant();
          LIFTC_ASSERT(v.has_value(), "the interpreter needs bound sizes");
          c->op = Op::Literal;
          c->literal = Value::of_float(static_cast<float>(*v));
          break;
        }
        if (e->prim == ir::Prim::Array) {
          // A constant array: its values are stored once, read like an input's.
          c->op = Op::Literal;
          c->literal = constant_array(e, c->layout);
          break;
        }
        compile_children(e, *c);
        if (is_float_arith(*c)) c->op = Op::FloatArith;
        break;
      case ir::ExprKind::Tuple:
        c->op = Op::Tuple;
        compile_children(e, *c);
        break;
      case ir::ExprKind::Get:
        c->op = Op::Get;
        c->index = e->index;
        compile_children(e, *c);
        break;
      case ir::ExprKind::Let:
        c->op = Op::Let;
        c->args.push_back(compile(ir::let_value(e)));
        c->slot = bind(e->name);
        c->args.push_back(compile(ir::let_body(e)));
        unbind(1);
        break;
    }
    return c;
  }

 private:
  // Gives a tuple parameter that the body only projects a slot per component, and
  // compiles a float-arithmetic body to postfix (see Code::param_comps, float_body).
  void specialize_lambda(Code& lambda) {
    Code& body = *lambda.args[0];
    for (std::size_t k = 0; k < lambda.params.size(); ++k) {
      std::vector<int> comps;
      const Layout* l = lambda.param_layouts[k];
      int all = 0, projected = 0;
      count_uses(body, lambda.params[k], all, projected);
      if (l->is_tuple() && all == projected) {
        for (std::size_t j = 0; j < l->comps.size(); ++j) comps.push_back(out_.num_slots++);
        project_to_slots(body, lambda.params[k], comps);
      }
      lambda.param_comps.push_back(std::move(comps));
    }
    flatten_body(lambda);
    // Lambdas inside were flattened before their reads of this lambda's components
    // became slot reads (`acc + x * q.0` for an outer q): try those again.
    if (std::any_of(lambda.param_comps.begin(), lambda.param_comps.end(), [](const auto& c) { return !c.empty(); }))
      reflatten_lambdas(body);
  }

  // Compiles a lambda's body to postfix (Code::float_body) when it is float arithmetic.
  static void flatten_body(Code& lambda) {
    int max_depth = 0;
    lambda.float_body.clear();
    if (!flatten_float(*lambda.args[0], lambda.float_body, 0, max_depth) || max_depth > kFloatStackDepth)
      lambda.float_body.clear();
  }

  // flatten_body again for the lambdas under c that are not postfix yet.
  static void reflatten_lambdas(Code& c) {
    for (auto& a : c.args) {
      if (a->op == Op::Lambda && a->float_body.empty()) flatten_body(*a);
      reflatten_lambdas(*a);
    }
  }

  void compile_children(const ir::Expr& e, Code& c) {
    for (const ir::Expr& a : e->args) c.args.push_back(compile(a));
  }

  int lookup(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == name) return it->second;
    LIFTC_ASSERT(false, fmt::format("variable '{}' is bound (type checking resolves every name)", name));
    return -1;
  }

  CompiledProgram& out_;
  std::vector<std::pair<std::string, int>> scope_;
};

// Whether every variable c reads is bound inside c or is one of `outer` (inputs, earlier
// definitions); `bound` holds the slots of the functions and lets around the node.
bool reads_only(const Code& c, const std::set<int>& outer, std::set<int>& bound) {
  if (c.op == Op::Var) return outer.count(c.slot) || bound.count(c.slot);
  std::vector<int> binds;  // what this node binds for its children
  if (c.op == Op::Lambda) {
    binds = c.params;
    for (const auto& comps : c.param_comps) binds.insert(binds.end(), comps.begin(), comps.end());
  }
  if (c.op == Op::Let) binds.push_back(c.slot);
  std::vector<int> added;
  for (int s : binds)
    if (bound.insert(s).second) added.push_back(s);
  bool ok = std::all_of(c.args.begin(), c.args.end(), [&](const auto& a) { return reads_only(*a, outer, bound); });
  for (int s : added) bound.erase(s);
  return ok;
}

bool contains_loop(const Code& c) {
  if (c.op == Op::Call && (ir::is_map(c.prim) || c.prim == ir::Prim::Reduce || c.prim == ir::Prim::ReduceSeq))
    return true;
  return std::any_of(c.args.begin(), c.args.end(), [](const auto& a) { return contains_loop(*a); });
}

// Moves each largest subterm of c that lies inside a function, loops, and reads only
// `outer` into `invariants` (a slot of its own each), leaving a read of that slot. The IR is
// pure, so evaluating it once gives what every application of the function would; without
// this the interpreter recomputed such a subterm per application (a Winograd program's
// weight transform once per tile: minutes for a VGG layer, where code generation makes it
// a kernel of its own, run once).
void hoist_invariants(std::unique_ptr<Code>& c, bool in_function, const std::set<int>& outer,
                      std::vector<std::pair<int, std::unique_ptr<Code>>>& invariants, int& num_slots) {
  std::set<int> bound;
  if (in_function && c->op == Op::Call && contains_loop(*c) && reads_only(*c, outer, bound)) {
    auto read = std::make_unique<Code>();
    read->op = Op::Var;
    read->layout = c->layout;
    read->slot = num_slots++;
    read->loc = c->loc;
    invariants.emplace_back(read->slot, std::move(c));
    c = std::move(read);
    return;
  }
  for (auto& a : c->args) hoist_invariants(a, in_function || c->op == Op::Lambda, outer, invariants, num_slots);
}

}  // namespace

CompiledProgram compile(const ir::Program& checked) {
  CompiledProgram out;
  Compiler compiler(out);
  for (const ir::InputDecl& in : checked.inputs)
    out.inputs.push_back({in.name, in.type, compiler.bind(in.name), out.layouts->of(in.type, in.loc)});
  std::set<int> outer;  // the slots of the inputs and of the definitions so far
  for (const auto& in : out.inputs) outer.insert(in.slot);
  for (const ir::Definition& d : checked.defs) {
    LIFTC_ASSERT(d.body.defined(), "definitions have bodies");
    if (d.body.kind() == ir::ExprKind::Lambda) continue;  // a function (partial application): no value
    std::unique_ptr<Code> body = compiler.compile(d.body);
    std::vector<std::pair<int, std::unique_ptr<Code>>> invariants;
    hoist_invariants(body, false, outer, invariants, out.num_slots);
    const Layout* layout = body->layout;
    out.defs.push_back({d.name, compiler.bind(d.name), std::move(body), layout, d.body.type(), std::move(invariants)});
    outer.insert(out.defs.back().slot);
  }
  return out;
}

}  // namespace liftc::interp::detail
