// The memo of bound queries and of the `/` and `%` rules that ask for them.
//
// A bound query simplifies the expressions it builds, and the `/` and `%` rules ask for
// bounds in turn, so one question about `N % 17 % 16 % ... % 11` asks the same questions
// about its subexpressions again and again: without the memo the cost grew about tenfold
// with each level of nesting (seven levels took minutes). With it, each distinct question
// is answered once per query depth.
//
// The memo changes no answer. Answers may depend on the query depth only through the
// depth limit (bounds.cpp): an answer found without any query under it reaching the limit
// is the same at every depth and is kept for all depths; one that reached it is kept for
// the depth it was found at, where recomputing it would repeat exactly the same steps.
// Variables of one name with different ranges are different keys (bounds read the ranges,
// and the memo outlives one program). The memo is per thread and is emptied when full.

#include <map>
#include <tuple>

#include "internal.hpp"

namespace liftc::arith::detail {

namespace {

// detail::compare, also telling apart variables of one name with different ranges.
int compare_with_ranges(const Expr& a, const Expr& b) {
  if (a.node() == b.node()) return 0;
  if (int c = compare(a, b); c != 0) return c;
  if (a.kind() == Kind::Var) {
    for (auto end : {&Expr::var_min, &Expr::var_max}) {
      const std::optional<Expr>& x = (a.*end)();
      const std::optional<Expr>& y = (b.*end)();
      if (x.has_value() != y.has_value()) return x.has_value() ? 1 : -1;
      if (x)
        if (int c = compare_with_ranges(*x, *y); c != 0) return c;
    }
    return 0;
  }
  const auto& xs = a.operands();
  const auto& ys = b.operands();
  for (std::size_t i = 0; i < xs.size(); ++i)  // as many: compare() found them equal
    if (int c = compare_with_ranges(xs[i], ys[i]); c != 0) return c;
  return 0;
}

struct Key {
  Memoized what;
  int depth;  // -1: valid at every depth
  Expr a, b;
};

struct KeyLess {
  bool operator()(const Key& x, const Key& y) const {
    if (std::tie(x.what, x.depth) != std::tie(y.what, y.depth)) return std::tie(x.what, x.depth) < std::tie(y.what, y.depth);
    if (int c = compare_with_ranges(x.a, y.a); c != 0) return c < 0;
    return compare_with_ranges(x.b, y.b) < 0;
  }
};

struct Entry {
  std::optional<Expr> value;
  bool complete;  // no query under it reached the depth limit
};

constexpr std::size_t kMaxEntries = 1 << 16;

thread_local std::map<Key, Entry, KeyLess> g_memo;
thread_local long g_gave_up = 0;  // queries that reached the depth limit so far

}  // namespace

void gave_up_at_depth_limit() { ++g_gave_up; }

std::optional<Expr> remember(Memoized what, const Expr& a, const Expr& b,
                             const std::function<std::optional<Expr>()>& compute) {
  const int depth = query_depth();
  for (int d : {-1, depth}) {
    auto it = g_memo.find(Key{what, d, a, b});
    if (it == g_memo.end()) continue;
    if (!it->second.complete) ++g_gave_up;  // as the computation it stands for did
    return it->second.value;
  }
  const long gave_up_before = g_gave_up;
  std::optional<Expr> value = compute();  // an exception (overflow, division by zero) is not stored
  const bool complete = g_gave_up == gave_up_before;
  if (g_memo.size() >= kMaxEntries) g_memo.clear();  // forgets; never answers differently
  g_memo.emplace(Key{what, complete ? -1 : depth, a, b}, Entry{value, complete});
  return value;
}

}  // namespace liftc::arith::detail
