// The ask/evaluate/tell loop and its progress line.

#include "liftc/explore/explore.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "liftc/explore/evaluate.hpp"

namespace liftc::explore {

namespace {

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{:02}:{:02}", s / 60, s % 60);
}

}  // namespace

std::vector<std::size_t> front_of(const std::vector<Explored>& explored) {
  std::vector<Objectives> points;
  std::vector<std::size_t> index;
  std::set<std::string> keys;  // points that generate the same kernels are one point of the front
  for (std::size_t i = 0; i < explored.size(); ++i) {
    Outcome o = outcome_of(explored[i].evaluation);
    if (!o.ok || explored[i].evaluation.status != status::Ok) continue;  // cut points were timed once: no spread
    if (!keys.insert(explored[i].evaluation.key).second) continue;
    points.push_back(o.objectives);
    index.push_back(i);
  }
  std::vector<std::size_t> out;
  for (std::size_t f : pareto_front(points)) out.push_back(index[f]);
  return out;
}

LoopResult explore_loop(Search& search, const EvaluateFn& evaluate, const Budget& budget, std::FILE* progress) {
  LoopResult r;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool tty = progress && isatty(fileno(progress));
  std::size_t valid = 0, failed = 0, served = 0;
  double best = std::numeric_limits<double>::infinity();
  r.stop = fmt::format("budget of {} evaluations", budget.evaluations);
  while (r.explored.size() < budget.evaluations) {
    if (budget.seconds > 0 && elapsed() >= budget.seconds) {
      r.stop = fmt::format("time budget of {:g} s", budget.seconds);
      break;
    }
    std::optional<Candidate> c = search.ask();
    if (!c) {
      r.stop = "the search has no new candidate (the space is exhausted)";
      break;
    }
    Explored x;
    x.candidate = *c;
    x.evaluation = evaluate(*c, x.served);
    search.tell(*c, outcome_of(x.evaluation));
    if (status_valid(x.evaluation.status)) {
      ++valid;
      best = std::min(best, x.evaluation.time_ms);
    } else {
      ++failed;
    }
    served += x.served;
    r.explored.push_back(std::move(x));
    if (progress) {
      double t = elapsed();
      std::size_t n = r.explored.size();
      double eta = t / double(n) * double(budget.evaluations - n);
      if (budget.seconds > 0) eta = std::min(eta, budget.seconds - t);
      fmt::print(progress, "{}explore: {}/{} evaluated, {} valid, {} failed, {} from the store, best {}, front {}, {} elapsed, ETA {}{}",
                 tty ? "\r" : "", n, budget.evaluations, valid, failed, served,
                 std::isfinite(best) ? fmt::format("{:.4g} ms", best) : "-", front_of(r.explored).size(),
                 clock_text(t), clock_text(eta), tty ? "\x1b[K" : "\n");
      std::fflush(progress);
    }
  }
  if (progress && tty) fmt::print(progress, "\n");
  r.seconds = elapsed();
  return r;
}

}  // namespace liftc::explore
