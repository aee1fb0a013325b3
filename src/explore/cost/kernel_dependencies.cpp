// Which kernels each tuning parameter reaches (kernel_dependencies.hpp).

#include "liftc/explore/cost/kernel_dependencies.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "liftc/arith/expr.hpp"
#include "liftc/explore/evaluation/candidate.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::cost {

namespace {

// Each kernel's OpenCL C and NDRange, as one text a kernel; nullopt when the point does not generate.
std::optional<std::vector<std::string>> kernel_texts(const ConstraintAlternative& alt, const Point& p,
                                                     const std::string& build_options) {
  try {
    Generated g = generate_candidate(alt, p, build_options);
    std::vector<std::string> out;
    for (const auto& k : g.module.kernels) {
      std::string text = k.source;
      for (const auto& e : k.launch.global) text += "\nglobal " + arith::to_string(e);
      for (const auto& e : k.launch.local) text += "\nlocal " + arith::to_string(e);
      out.push_back(std::move(text));
    }
    return out;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<std::vector<std::size_t>> kernel_dependencies(const Candidate& c, const FeatureContext& ctx) {
  LIFTC_ASSERT(ctx.space && c.alternative < ctx.space->alternatives.size(),
               "a candidate's alternative is one of its context's space");
  Alternative& alt = *ctx.space->alternatives[c.alternative];
  const ConstraintAlternative* constraint = candidate_of(alt).constraint_space();
  if (!constraint) return {};
  std::optional<std::vector<std::string>> at = kernel_texts(*constraint, c.point, ctx.build_options);
  if (!at) return {};
  std::vector<std::size_t> every(at->size());
  for (std::size_t k = 0; k < every.size(); ++k) every[k] = k;
  const auto& params = alt.parameters();
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < params.size() && i < c.point.size(); ++i) {
    std::vector<bool> reached(at->size(), false);
    bool stepped = false;
    const auto& domain = params[i].domain;
    auto here = std::lower_bound(domain.begin(), domain.end(), c.point[i]);
    std::vector<std::int64_t> steps;
    if (here != domain.begin()) steps.push_back(*std::prev(here));
    if (here != domain.end() && std::next(here) != domain.end()) steps.push_back(*std::next(here));
    for (std::int64_t v : steps) {
      Point q = c.point;
      q[i] = v;
      if (!alt.valid(q)) continue;
      std::optional<std::vector<std::string>> there = kernel_texts(*constraint, q, ctx.build_options);
      if (!there || there->size() != at->size()) continue;  // another kernel plan: not one parameter's reach
      stepped = true;
      for (std::size_t k = 0; k < at->size(); ++k) reached[k] = reached[k] || (*there)[k] != (*at)[k];
    }
    std::vector<std::size_t> kernels;
    for (std::size_t k = 0; k < reached.size(); ++k)
      if (reached[k]) kernels.push_back(k);
    out.push_back(stepped && !kernels.empty() ? kernels : every);
  }
  return out;
}

}  // namespace liftc::explore::cost
