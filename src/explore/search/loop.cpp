// The ask/evaluate/tell loop (sequential or with several candidates running at once) and its progress line.

#include "liftc/explore/search/loop.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "liftc/explore/evaluation/evaluate.hpp"

namespace liftc::explore {

namespace {

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{:02}:{:02}", s / 60, s % 60);
}

}  // namespace

std::string budget_text(const Budget& b) {
  std::string evaluations = fmt::format("{} evaluations", b.evaluations);
  if (b.seconds <= 0) return evaluations;
  std::string seconds = fmt::format("{:g} s", b.seconds);
  return b.evaluations >= kUnboundedEvaluations ? seconds : evaluations + " or " + seconds;
}

std::string stopped_text(const LoopResult& r) {
  return fmt::format("{} candidate(s) still running then were stopped and dropped", r.stopped);
}

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

std::string no_front_reason(const LoopResult& r, const CandidateSpace& space) {
  if (r.explored.empty())
    return fmt::format("no candidate was evaluated (stopped: {}{})", r.stop,
                       r.stopped ? "; " + stopped_text(r) : std::string());
  std::map<std::string, std::size_t> by_status;
  std::size_t served = 0, cut = 0;
  const Explored* first_failure = nullptr;
  for (const auto& x : r.explored) {
    ++by_status[x.evaluation.status];
    served += x.served;
    cut += valid_result(x.evaluation) && x.evaluation.status == status::Cut;
    if (!first_failure && !status_valid(x.evaluation.status) && x.evaluation.status != "missing") first_failure = &x;
  }
  std::string statuses;
  for (const auto& [s, n] : by_status) statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", n, s);
  if (served) statuses += fmt::format("; {} served from the store", served);
  if (cut)
    return fmt::format("the {} validated candidate(s) were each cut ({}): timed once, slower than a point that "
                       "dominates them, which a front does not hold",
                       cut, statuses);
  std::string first;
  if (first_failure)
    first = fmt::format("; the first failure: {} {} [{}]: {}", space.alternatives[first_failure->candidate.alternative]->label(),
                        first_failure->evaluation.point, first_failure->evaluation.status,
                        first_failure->evaluation.reason.substr(0, 500));
  return fmt::format("no candidate validated ({}){}", statuses, first);
}

LoopResult explore_loop(Search& search, const EvaluateFn& evaluate, const Budget& budget, std::FILE* progress,
                        const std::string& label) {
  StartFn start = [&](const Candidate& c) {
    Pending p;
    p.result = [&evaluate, c](bool& served) { return evaluate(c, served); };
    return p;
  };
  return explore_loop(search, start, budget, 1, progress, label);
}

namespace {

// Candidates asked and not told to the search yet, in rounds of --jobs (the comment where it
// is used).
constexpr std::size_t kWindowRounds = 8;
// How often the loop tells a waiting search how long its candidates have been running.
constexpr auto kRunningEvery = std::chrono::milliseconds(100);

using Clock = std::chrono::steady_clock;

// A candidate asked and not yet in the run's rows.
struct Slot {
  Candidate candidate;
  Pending pending;
  std::thread thread;
  std::exception_ptr error;  // what `run` threw, thrown again on the loop's thread
  Clock::time_point started;
  double seconds = 0;        // how long `run` took (set by its thread before it reports its end)
  double reported = 0;       // the longest the search was told it had been running
  bool done = false;         // `run` returned (or there was none) and `record` ran
  bool dropped = false;      // stopped as the time budget ended, or waiting for one that was: no row
  std::optional<Explored> told;  // its result, once the search was told it
};

// Runner threads report their end here; the loop's thread waits on it.
struct Ends {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Slot*> ended;
};

}  // namespace

LoopResult explore_loop(Search& search, const StartFn& start, const Budget& budget, std::size_t jobs, std::FILE* progress,
                        const std::string& label) {
  jobs = std::max<std::size_t>(jobs, 1);
  LoopResult r;
  auto begin = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - begin).count(); };
  bool tty = progress && isatty(fileno(progress));
  std::size_t valid = 0, failed = 0, served = 0, running = 0, untold = 0;
  double best = std::numeric_limits<double>::infinity();
  r.stop = fmt::format("budget of {} evaluations", budget.evaluations);
  bool asking = true;
  std::deque<std::unique_ptr<Slot>> window;  // in proposal order
  Ends ends;

  // The search is told each outcome as soon as it is ready, in whatever order runs end (a
  // search that lags orders them itself: rounds.hpp), so a slow candidate holds up only the
  // rows after it, not the search. The rows and the progress line stay in proposal order.
  auto tell_search = [&] {
    for (auto& slot : window) {
      if (slot->told || slot->dropped || !slot->done || (slot->pending.ready && !slot->pending.ready())) continue;
      Explored x;
      x.candidate = slot->candidate;
      x.evaluation = slot->pending.result(x.served);
      search.tell(x.candidate, outcome_of(x.evaluation));
      slot->told = std::move(x);
      --untold;
    }
  };
  auto add_row = [&] {
    Slot& slot = *window.front();
    if (slot.thread.joinable()) slot.thread.join();
    Explored x = std::move(*slot.told);
    window.pop_front();
    if (valid_result(x.evaluation)) {
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
      double eta = t / double(n) * double(budget.evaluations - std::min(n, budget.evaluations));
      if (budget.seconds > 0) eta = std::min(eta, budget.seconds - t);
      bool counted = budget.evaluations < kUnboundedEvaluations;  // else the clock alone ends it
      fmt::print(progress,
                 "{}explore{}: {}{} evaluated, {} valid, {} failed, {} from the store, best {}, front {}, {} elapsed, "
                 "ETA {}{}",
                 tty ? "\r" : "", label.empty() ? "" : " " + label, n,
                 counted ? fmt::format("/{}", budget.evaluations) : std::string(), valid, failed, served,
                 std::isfinite(best) ? fmt::format("{:.4g} ms", best) : "-", front_of(r.explored).size(), clock_text(t),
                 clock_text(eta), tty ? "\x1b[K" : "\n");
      std::fflush(progress);
    }
  };
  auto settle = [&] {
    tell_search();
    while (!window.empty() && (window.front()->told || window.front()->dropped)) {
      if (window.front()->told) {
        add_row();
        continue;
      }
      if (window.front()->thread.joinable()) window.front()->thread.join();
      window.pop_front();
    }
  };
  // The time budget ended: nothing more is asked, and what still runs is stopped (a run
  // that cannot be stopped is waited for).
  auto out_of_time = [&] {
    r.stop = fmt::format("time budget of {:g} s", budget.seconds);
    asking = false;
    for (auto& slot : window)
      if (slot->pending.run && !slot->done && slot->pending.stop) slot->pending.stop();
  };
  auto time_is_up = [&] { return asking && budget.seconds > 0 && elapsed() >= budget.seconds; };
  // A candidate with no outcome (stopped, or waiting for one that was): no row, never told.
  auto drop = [&](Slot& slot) {
    slot.dropped = true;
    ++r.stopped;
    --untold;
  };

  // On an error, the runner threads still running are waited for before it goes on.
  auto join_all = [&] {
    for (auto& slot : window)
      if (slot->thread.joinable()) slot->thread.join();
  };
  try {
    while (true) {
      // Record what ended (the store gets rows as soon as they exist), then tell.
      {
        std::vector<Slot*> ended;
        {
          std::lock_guard<std::mutex> lock(ends.mutex);
          ended.swap(ends.ended);
        }
        for (Slot* slot : ended) {
          slot->thread.join();
          if (slot->error) std::rethrow_exception(slot->error);
          // At least what the search was told while it ran (it may have ended just before).
          slot->seconds = std::max(slot->seconds, slot->reported);
          if (slot->pending.record && !slot->pending.record(slot->seconds)) drop(*slot);
          slot->done = true;
          --running;
        }
      }
      if (time_is_up()) out_of_time();
      if (!asking && running == 0)
        // Nothing runs and nothing more is asked: a candidate still not ready waits for one
        // that was stopped (the same kernels), and goes with it.
        for (auto& slot : window) {
          bool ready = slot->done && (!slot->pending.ready || slot->pending.ready());
          if (!slot->told && !slot->dropped && !ready) drop(*slot);
        }
      settle();
      // Ask while a runner is free, the window has room and the search can answer now. The
      // window (asked, not told to the search) holds 8 rounds of `jobs`: a search that lags
      // (rounds.hpp) goes on past a slow candidate for that long.
      bool asked = false;
      while (asking && running < jobs && untold < kWindowRounds * jobs && !search.waiting()) {
        if (r.explored.size() + window.size() >= budget.evaluations) {
          asking = false;
          break;
        }
        if (time_is_up()) {
          out_of_time();
          break;
        }
        std::optional<Candidate> c = search.ask();
        if (!c) {
          r.stop = "the search has no new candidate (the space is exhausted)";
          asking = false;
          break;
        }
        auto slot = std::make_unique<Slot>();
        slot->candidate = *c;
        slot->pending = start(*c);
        ++untold;
        asked = true;
        if (slot->pending.run) {
          ++running;
          Slot* raw = slot.get();
          raw->started = Clock::now();
          raw->thread = std::thread([raw, &ends] {
            try {
              raw->pending.run();
            } catch (...) {
              raw->error = std::current_exception();
            }
            raw->seconds = std::chrono::duration<double>(Clock::now() - raw->started).count();
            std::lock_guard<std::mutex> lock(ends.mutex);
            ends.ended.push_back(raw);
            ends.changed.notify_one();
          });
        } else {
          slot->done = true;
        }
        window.push_back(std::move(slot));
        settle();  // a served candidate is told at once
      }
      if (window.empty()) {
        if (!asking || search.waiting()) break;
        continue;
      }
      if (asked) continue;
      // Nothing to do until a runner ends; a search waiting for outcomes hears, meanwhile,
      // how long each candidate has been running (and may then go on without a slow one).
      std::unique_lock<std::mutex> lock(ends.mutex);
      if (!search.waiting() || running == 0) {
        auto ended = [&] { return !ends.ended.empty(); };
        if (asking && budget.seconds > 0)  // wakes when the time budget ends, to stop what runs
          ends.changed.wait_until(
              lock, begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget.seconds)),
              ended);
        else
          ends.changed.wait(lock, ended);
        continue;
      }
      if (ends.changed.wait_for(lock, kRunningEvery, [&] { return !ends.ended.empty(); })) continue;
      lock.unlock();
      for (auto& slot : window)
        if (slot->pending.run && !slot->done) {
          slot->reported = std::chrono::duration<double>(Clock::now() - slot->started).count();
          search.running(slot->candidate, slot->reported);
        }
    }
  } catch (...) {
    join_all();
    throw;
  }
  if (progress && tty) fmt::print(progress, "\n");
  r.seconds = elapsed();
  return r;
}

}  // namespace liftc::explore
