#pragma once
// What a search sees of the parameter space: a list of alternatives (one rewritten program
// each: a strategy and one of its alternatives), each with its parameters in dependency
// order and the four operations a search needs: sample a valid point, decide validity,
// repair an invalid point to a nearby valid one, and how many valid points there are.
//
// The search stage only depends on this interface; explore adapts the constraints stage's
// Space and Sampler to it (constraint_space.hpp), and tests use small spaces of their own.

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace liftc::explore {

class CandidateAlternative;  // what evaluation asks of an alternative (evaluation/candidate.hpp)

/// A value for every parameter of one alternative, in its dependency order.
using Point = std::vector<std::int64_t>;

/// One tuning parameter as the search sees it.
struct Parameter {
  std::string name;                  // "kappa", "local_0"
  std::vector<std::int64_t> domain;  // its explicit values, ascending (non-empty)
};

/// The parameter space of one rewritten program.
class Alternative {
 public:
  virtual ~Alternative() = default;
  /// "conv-gpu #2": the strategy and the alternative's 1-based number.
  virtual std::string label() const = 0;
  /// The strategy the alternative comes from (the label up to " #").
  std::string strategy() const {
    std::string l = label();
    return l.substr(0, l.find(" #"));
  }
  /// The parameters, in dependency order (a parameter only depends on earlier ones).
  virtual const std::vector<Parameter>& parameters() const = 0;
  /// The number of valid points (an estimate where the space cannot be counted).
  virtual double count() const = 0;
  /// A valid point drawn at random (uniformly where the space can be counted).
  virtual Point sample(std::mt19937_64& rng) = 0;
  /// Whether `p` satisfies every constraint.
  virtual bool valid(const Point& p) const = 0;
  /// A valid point near `p` (the nearest where the space can be counted); nullopt when the
  /// space has none.
  virtual std::optional<Point> repair(const Point& p) = 0;
  /// Whether its kernels use local memory that the target emulates in global memory.
  virtual bool local_memory_emulated() const { return false; }
  /// Its artefacts' interface (evaluation/candidate.hpp); null for a space only a search sees.
  virtual const CandidateAlternative* as_candidate() const { return nullptr; }
};

/// The share of random draws a strategy whose alternatives use local memory emulated in
/// global memory gets, against 1 for every other strategy: offered, not favoured.
inline constexpr double kEmulatedLocalShare = 0.25;

/// The union of the alternatives of every strategy asked for.
struct CandidateSpace {
  std::vector<std::unique_ptr<Alternative>> alternatives;
};

/// What a search proposes: an alternative and a point of it.
struct Candidate {
  std::size_t alternative = 0;  // index into CandidateSpace::alternatives
  Point point;

  bool operator==(const Candidate&) const = default;
  bool operator<(const Candidate& o) const {
    return alternative != o.alternative ? alternative < o.alternative : point < o.point;
  }
};

/// "name=value,name=value" for the parameters of `alt`.
std::string format_point(const Alternative& alt, const Point& p);

}  // namespace liftc::explore
