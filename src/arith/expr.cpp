// The Expr handle: construction of constants and variables, accessors, structural
// equality and the canonical total order; checked integer helpers shared by the rules.

#include <algorithm>

#include <fmt/format.h>

#include "internal.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {

namespace detail {

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw Error(fmt::format("integer overflow in size expression: {} + {} does not fit in 64 bits", a, b));
  return r;
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error(fmt::format("integer overflow in size expression: {} * {} does not fit in 64 bits", a, b));
  return r;
}

int compare(const Expr& a, const Expr& b) {
  if (a.node() == b.node()) return 0;
  if (a.kind() != b.kind()) return static_cast<int>(a.kind()) < static_cast<int>(b.kind()) ? -1 : 1;
  switch (a.kind()) {
    case Kind::Cst:
      return a.value() < b.value() ? -1 : (a.value() > b.value() ? 1 : 0);
    case Kind::Var:
      return a.name().compare(b.name()) < 0 ? -1 : (a.name() == b.name() ? 0 : 1);
    default: {
      const auto& x = a.operands();
      const auto& y = b.operands();
      for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
        if (int c = compare(x[i], y[i]); c != 0) return c;
      return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    }
  }
}

Expr make_cst(std::int64_t v) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Cst;
  n->value = v;
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

Expr make_node(Kind kind, std::vector<Expr> operands) {
  LIFTC_ASSERT(kind != Kind::Cst && kind != Kind::Var, "make_node builds operator nodes only");
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->operands = std::move(operands);
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

}  // namespace detail

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  LIFTC_ASSERT(b != 0, "floor_div callers reject a zero divisor");
  if (b == -1) return detail::checked_mul(a, -1);  // INT64_MIN / -1 overflows
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;  // C truncates toward zero; round down
  return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  LIFTC_ASSERT(b != 0, "floor_mod callers reject a zero divisor");
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Expr::Expr() : Expr(std::int64_t{0}) {}

Expr::Expr(std::int64_t value) : node_(detail::make_cst(value).node_) {}

Kind Expr::kind() const { return node_->kind; }

std::int64_t Expr::value() const {
  LIFTC_ASSERT(kind() == Kind::Cst, "Expr::value() is only defined on constants");
  return node_->value;
}

std::optional<std::int64_t> Expr::constant() const {
  if (kind() == Kind::Cst) return node_->value;
  return std::nullopt;
}

const std::string& Expr::name() const {
  LIFTC_ASSERT(kind() == Kind::Var, "Expr::name() is only defined on variables");
  return node_->name;
}

const std::optional<Expr>& Expr::var_min() const { return node_->min; }
const std::optional<Expr>& Expr::var_max() const { return node_->max; }
const std::vector<Expr>& Expr::operands() const { return node_->operands; }

bool operator==(const Expr& a, const Expr& b) { return detail::compare(a, b) == 0; }
bool operator<(const Expr& a, const Expr& b) { return detail::compare(a, b) < 0; }

Expr var(const std::string& name, std::optional<Expr> min, std::optional<Expr> max) {
  if (name.empty()) throw Error("a size variable needs a name");
  auto n = std::make_shared<Node>();
  n->kind = Kind::Var;
  n->name = name;
  n->min = std::move(min);
  n->max = std::move(max);
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

Expr size_var(const std::string& name) { return var(name, Expr(1), std::nullopt); }

}  // namespace liftc::arith
