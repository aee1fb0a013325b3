#pragma once
// Evaluation of compiled code: the meaning of every primitive.

#include <vector>

#include "code.hpp"

namespace liftc::interp::detail {

/// Evaluates compiled nodes over one frame of slots.
class Evaluator {
 public:
  explicit Evaluator(int num_slots) : frame_(static_cast<std::size_t>(num_slots)) {}

  /// The value of a (non-lambda) node.
  Value eval(const Code& c);
  /// The value of a node of type float, without building a Value where it can.
  float eval_float(const Code& c);
  /// The slot `i` of the frame (inputs and definitions are stored here before evaluation).
  Value& slot(int i) { return frame_[static_cast<std::size_t>(i)]; }

 private:
  Value call(const Code& c);
  /// Applies a Lambda node to `n` arguments; one tuple argument to a lambda of several
  /// parameters is destructured.
  Value apply(const Code& lambda, const Value* args, int n);
  Value apply1(const Code& lambda, const Value& arg) { return apply(lambda, &arg, 1); }

  Value map(const Code& c, const Code& f, const Value& xs);
  Value reduce(const Code& c, const Code& f, Value acc, const Value& xs);
  Value vectorize(const Code& c, const Code& f, const Value& x);

  std::vector<Value> frame_;
};

}  // namespace liftc::interp::detail
