#pragma once
// Evaluation of compiled code: the meaning of every primitive.

#include <vector>

#include "code.hpp"

namespace liftc::interp::detail {

/// Evaluates compiled nodes over one frame of slots.
class Evaluator {
 public:
  /// `threads`: how many threads the outermost maps may use (1: sequential).
  explicit Evaluator(int num_slots, unsigned threads = 1) : frame_(static_cast<std::size_t>(num_slots)), threads_(threads) {}

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
  /// Binds parameter k of a Lambda node to v (or v's components to the parameter's
  /// component slots).
  void bind(const Code& lambda, std::size_t k, const Value& v);
  /// Lets go of what a Lambda node's parameter slots hold.
  void release(const Code& lambda);

  Value map(const Code& c, const Code& f, const Value& xs);
  /// map's loop over elements [0, length) spread over threads_ threads, each with its own
  /// copy of the frame (values are immutable and shared; each element's words are written
  /// by one thread only). Used for the outermost map only: nested maps run sequentially.
  void map_parallel(const Code& f, const Value& xs, const Layout* elem, std::int64_t length, Word* dst);
  Value reduce(const Code& c, const Code& f, Value acc, const Value& xs);
  /// reduce's fold when f's body is float arithmetic (Code::float_body), the accumulator a
  /// float, and the leaves of the n elements of xs lie strided in dense storage: reads
  /// words and runs the postfix body, in the same order of operations as evaluating it.
  /// xs is a value, or (`xs_code`, when `xs` is null) an expression resolved without
  /// building its views (strided_code). False (nothing done) when any of that does not hold.
  bool reduce_strided(const Code& f, float& acc, std::int64_t n, const Value* xs, const Code* xs_code);
  /// strided() of the value of `c` without evaluating it: variables, and zip, join, split,
  /// slide, pad, transpose and id of them (the operands of a reduction); false otherwise.
  bool strided_code(const Code& c, AffinePath& path, Strided& out);
  /// contiguous() of the value of `c` without evaluating it: variables, and join, split
  /// and id of them; nullptr otherwise.
  const Word* contiguous_code(const Code& c, Path& path);
  Value vectorize(const Code& c, const Code& f, const Value& x);

  /// reduce_strided's body with its operands resolved: the accumulator, a column of
  /// leaves, or a constant (a literal or a variable bound outside the fold).
  struct FoldInstr {
    enum class Kind : std::uint8_t { Acc, Col, Const, Add, Sub, Mul, Div };
    Kind kind;
    int col;
    float value;
  };

  std::vector<Value> frame_;
  std::vector<FoldInstr> fold_program_;  // reduce_strided's scratch (its body evaluates no reduce)
  unsigned threads_ = 1;  // threads the next map may use (1 inside a parallel map)
};

}  // namespace liftc::interp::detail
