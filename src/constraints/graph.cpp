// The parameters' dependency graph (Boost.Graph) and its topological order: the order in
// which a sampler can draw each parameter once the ones its domain depends on are fixed
// (the paper's section 5.3).

#include <algorithm>
#include <set>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include "internal.hpp"

namespace liftc::constraints::detail {

namespace {

using Graph = boost::adjacency_list<boost::setS, boost::vecS, boost::directedS>;

std::vector<int> vars_of(const arith::Expr& e, const Space& space) {
  std::vector<int> out;
  for (const auto& v : arith::free_vars(e)) out.push_back(space.index(v));
  return out;
}

bool reaches(const Graph& g, std::size_t from, std::size_t to) {
  std::vector<bool> seen(boost::num_vertices(g), false);
  std::vector<std::size_t> stack = {from};
  while (!stack.empty()) {
    std::size_t v = stack.back();
    stack.pop_back();
    if (v == to) return true;
    if (seen[v]) continue;
    seen[v] = true;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) stack.push_back(boost::target(*e, g));
  }
  return false;
}

}  // namespace

void order_parameters(Space& space) {
  const std::size_t n = space.params.size();
  Graph g(n);
  auto edge = [&](int a, int b) {
    if (a < 0 || b < 0 || a == b) return;
    auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (!reaches(g, ub, ua)) boost::add_edge(ua, ub, g);
  };
  for (const auto& c : space.constraints) {
    if (c.vars.size() < 2 || c.implied) continue;
    // The side that is fixed first: the value a divisor divides, the bound of a <=.
    std::vector<int> first = vars_of(c.rhs, space);
    std::vector<int> then = vars_of(c.lhs, space);
    for (int a : first)
      for (int b : then) edge(a, b);
    // Parameters on one side (a product of work-group sizes): in declaration order.
    for (const auto* side : {&first, &then})
      for (std::size_t i = 1; i < side->size(); ++i) edge((*side)[i - 1], (*side)[i]);
  }
  // Reverse topological order from Boost; ties fall to the vertex order (declaration).
  std::vector<std::size_t> reversed;
  boost::topological_sort(g, std::back_inserter(reversed));
  std::vector<std::size_t> order(reversed.rbegin(), reversed.rend());

  for (auto [e, end] = boost::edges(g); e != end; ++e)
    space.edges.emplace_back(space.params[boost::source(*e, g)].name, space.params[boost::target(*e, g)].name);
  std::sort(space.edges.begin(), space.edges.end());
  std::vector<Param> sorted;
  for (auto v : order) sorted.push_back(space.params[v]);
  space.params = std::move(sorted);
}

}  // namespace liftc::constraints::detail
