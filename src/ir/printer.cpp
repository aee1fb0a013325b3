// Prints IR in .sr syntax with minimal parentheses. The output parses back to an
// alpha-equal program (tests/parse round-trips it).

#include "liftc/ir/printer.hpp"

#include <charconv>
#include <cmath>
#include <functional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace liftc::ir {

namespace {

// Precedence levels, lowest first, as in the grammar (src/syntax/grammar_def.hpp).
enum Prec { kLambda, kOr, kAnd, kEq, kRel, kAdd, kMul, kUnary, kPostfix, kAtom };

// The precedence of a binary operator's primitive, or -1 for any other primitive.
int binary_precedence(Prim p) {
  static constexpr std::pair<std::string_view, Prec> levels[] = {
      {"||", kOr}, {"&&", kAnd}, {"==", kEq}, {"!=", kEq},  {"<", kRel}, {"<=", kRel}, {">", kRel},
      {">=", kRel}, {"+", kAdd}, {"-", kAdd}, {"*", kMul}, {"/", kMul},  {"%", kMul},
  };
  if (signature(p).operands.size() != 2) return -1;  // `-` is also unary
  const std::string_view op = operator_spelling(p);
  for (const auto& [spelling, level] : levels)
    if (spelling == op) return level;
  return -1;
}

// The shortest text that reads back as exactly `v`, always recognisable as a float.
std::string float_text(double v) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  std::string s(buffer, result.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string sizes_text(const std::vector<arith::Expr>& sizes) {
  std::string out;
  for (const auto& s : sizes) out += arith::to_string(s) + ", ";
  return out;
}

class Printer {
 public:
  std::string print(const Expr& e, int context) {
    auto [text, prec] = render(e);
    return prec < context ? "(" + text + ")" : text;
  }

 private:
  std::string list(const std::vector<Expr>& es, std::size_t from = 0) {
    std::string out;
    for (std::size_t i = from; i < es.size(); ++i) out += (i > from ? ", " : "") + print(es[i], kLambda);
    return out;
  }

  std::pair<std::string, int> render(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::Var:
        return {e->name, kAtom};
      case ExprKind::Literal: {
        const auto& l = e->literal;
        if (l.kind == ScalarKind::Float) return {float_text(l.f), l.f < 0 || std::signbit(l.f) ? kUnary : kAtom};
        return {std::to_string(l.i), l.i < 0 ? kUnary : kAtom};
      }
      case ExprKind::Lambda: {
        std::string params = e->params.size() == 1 ? e->params[0] : fmt::format("({})", fmt::join(e->params, ", "));
        return {fmt::format("{} -> {}", params, print(lambda_body(e), kLambda)), kLambda};
      }
      case ExprKind::Let:
        return {fmt::format("let {} = {} in {}", e->name, print(let_value(e), kLambda), print(let_body(e), kLambda)),
                kLambda};
      case ExprKind::Apply:
        return {fmt::format("{}({})", print(e->args[0], kAtom), list(e->args, 1)), kPostfix};
      case ExprKind::Tuple:
        return {fmt::format("({})", list(e->args)), kAtom};
      case ExprKind::Get: {
        // `1.0` would read as a float: a literal operand is parenthesised.
        const Expr& t = get_tuple(e);
        std::string operand = t.kind() == ExprKind::Literal ? "(" + print(t, kLambda) + ")" : print(t, kPostfix);
        return {fmt::format("{}.{}", operand, e->index), kPostfix};
      }
      case ExprKind::Call:
        return render_call(e);
    }
    return {"?", kAtom};
  }

  std::pair<std::string, int> render_call(const Expr& e) {
    const Prim p = e->prim;
    if (int prec = binary_precedence(p); prec >= 0)
      return {fmt::format("{} {} {}", print(e->args[0], prec), operator_spelling(p), print(e->args[1], prec + 1)),
              prec};
    if (p == Prim::Neg || p == Prim::Not) {
      const Expr& operand = e->args[0];
      // `-2` reads as a negative literal, so the negation of a literal keeps parentheses.
      std::string text = operand.kind() == ExprKind::Literal ? "(" + print(operand, kLambda) + ")"
                                                              : print(operand, kUnary);
      return {fmt::format("{}{}", operator_spelling(p), text), kUnary};
    }
    if (p == Prim::SizeValue) {
      const arith::Expr& s = e->sizes[0];
      if (s.kind() == arith::Kind::Var) return {s.name(), kAtom};
      return {fmt::format("sizeValue({})", arith::to_string(s)), kPostfix};
    }
    if (signature(p).index_function)
      return {fmt::format("{}(striddenIndex({}), {})", signature(p).name, arith::to_string(e->sizes[0]), list(e->args)),
              kPostfix};
    std::string sizes = sizes_text(e->sizes);
    if (e->args.empty() && !sizes.empty()) sizes.resize(sizes.size() - 2);
    return {fmt::format("{}({}{})", signature(p).name, sizes, list(e->args)), kPostfix};
  }
};

// The precedence of e's text, as render() gives it.
int precedence(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::Var: case ExprKind::Tuple: return kAtom;
    case ExprKind::Literal: {
      const auto& l = e->literal;
      bool negative = l.kind == ScalarKind::Float ? (l.f < 0 || std::signbit(l.f)) : l.i < 0;
      return negative ? kUnary : kAtom;
    }
    case ExprKind::Lambda: case ExprKind::Let: return kLambda;
    case ExprKind::Apply: case ExprKind::Get: return kPostfix;
    case ExprKind::Call: {
      if (int prec = binary_precedence(e->prim); prec >= 0) return prec;
      if (e->prim == Prim::Neg || e->prim == Prim::Not) return kUnary;
      if (e->prim == Prim::SizeValue && e->sizes[0].kind() == arith::Kind::Var) return kAtom;
      return kPostfix;
    }
  }
  return kAtom;
}

// The nesting of e's own text inside `at`, parentheses included (not its children's).
int own_nesting(const Expr& e, PrintContext at) {
  int inner = at.nesting + (precedence(e) < at.precedence ? 1 : 0);
  if (e.kind() == ExprKind::Literal && precedence(e) == kUnary) return inner + 1;  // `-2`: a unary minus
  if (e.kind() != ExprKind::Call || e->sizes.empty()) return inner;
  // A size argument is an argument (one level) whose arith text nests at most as deep as
  // its expression tree is high, less one (a parenthesis or a unary minus per level below
  // the top); reorder's sits inside striddenIndex(...) (one more).
  std::function<int(const arith::Expr&)> depth = [&](const arith::Expr& a) {
    int d = 0;
    for (const auto& o : a.operands()) d = std::max(d, depth(o) + 1);
    return d + (a.constant() && *a.constant() < 0 ? 1 : 0);
  };
  int deepest = 0;
  for (const auto& z : e->sizes) deepest = std::max(deepest, depth(z));
  if (e->prim == Prim::SizeValue && e->sizes[0].kind() == arith::Kind::Var) return inner;
  return inner + 1 + deepest + (signature(e->prim).index_function ? 1 : 0);
}

}  // namespace

PrintContext child_context(const Expr& e, std::size_t i, PrintContext at) {
  const int inner = at.nesting + (precedence(e) < at.precedence ? 1 : 0);
  switch (e.kind()) {
    case ExprKind::Lambda: case ExprKind::Let: case ExprKind::Tuple: return {inner + 1, kLambda};
    case ExprKind::Apply: return i == 0 ? PrintContext{inner, kAtom} : PrintContext{inner + 1, kLambda};
    case ExprKind::Get:
      // A literal operand is parenthesised (`(1.0).0`).
      return get_tuple(e).kind() == ExprKind::Literal ? PrintContext{inner + 1, kLambda} : PrintContext{inner, kPostfix};
    case ExprKind::Call: {
      if (int prec = binary_precedence(e->prim); prec >= 0) return {inner, i == 0 ? prec : prec + 1};
      if (e->prim == Prim::Neg || e->prim == Prim::Not)
        // The operand of a unary operator is one level deeper; a literal one is parenthesised.
        return e->args[0].kind() == ExprKind::Literal ? PrintContext{inner + 2, kLambda} : PrintContext{inner + 1, kUnary};
      return {inner + 1, kLambda};
    }
    case ExprKind::Var: case ExprKind::Literal: break;
  }
  return {inner, kLambda};
}

int nesting_depth(const Expr& e, PrintContext at) {
  int deepest = own_nesting(e, at);
  for (std::size_t i = 0; i < e->args.size(); ++i)
    deepest = std::max(deepest, nesting_depth(e->args[i], child_context(e, i, at)));
  return deepest;
}

std::string to_string(const Expr& e) { return Printer().print(e, kLambda); }

std::string to_string(const SizeDecl& s) {
  std::string out = s.name;
  if (s.value) out += fmt::format(" = {}", *s.value);
  if (s.min) out += fmt::format(" in {}..{}", *s.min, *s.max);
  return out;
}

std::string to_string(const Program& p) {
  std::string out;
  for (const auto& s : p.sizes) out += "size " + to_string(s) + "\n";
  for (const auto& in : p.inputs) out += fmt::format("input {} : {}\n", in.name, to_string(in.type));
  for (const auto& d : p.defs) out += fmt::format("def {} = {}\n", d.name, to_string(d.body));
  return out;
}

}  // namespace liftc::ir
