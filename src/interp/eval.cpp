#include "eval.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "builtins.hpp"
#include "view.hpp"

namespace liftc::interp::detail {

using ir::Prim;

namespace {

bool is_float_scalar(const Value& v) { return v.is_scalar() && v.scalar_kind() == ir::ScalarKind::Float; }

}  // namespace

Value Evaluator::eval(const Code& c) {
  switch (c.op) {
    case Op::Var:
      return frame_[static_cast<std::size_t>(c.slot)];
    case Op::Literal:
      return c.literal;
    case Op::Call:
      return call(c);
    case Op::Get: {
      const Code& t = *c.args[0];
      if (t.op == Op::Var) return component(frame_[static_cast<std::size_t>(t.slot)], c.index);
      return component(eval(t), c.index);
    }
    case Op::Let: {
      auto s = static_cast<std::size_t>(c.slot);
      frame_[s] = eval(*c.args[0]);
      Value result = eval(*c.args[1]);
      frame_[s] = Value();  // let the bound value go as soon as its scope ends
      return result;
    }
    case Op::Apply: {
      std::vector<Value> args;
      for (std::size_t i = 1; i < c.args.size(); ++i) args.push_back(eval(*c.args[i]));
      return apply(*c.args[0], args.data(), static_cast<int>(args.size()));
    }
    case Op::Tuple: {
      std::vector<Value> comps;
      comps.reserve(c.args.size());
      for (const auto& a : c.args) comps.push_back(eval(*a));
      return Value::ref(std::make_shared<TupleView>(std::move(comps)), c.layout);
    }
    case Op::FloatArith:
      return Value::of_float(eval_float(c));
    case Op::Lambda:
      break;
  }
  LIFTC_ASSERT(false, "lambdas are applied by primitives, never evaluated as values");
  return {};
}

float Evaluator::eval_float(const Code& c) {
  switch (c.op) {
    case Op::FloatArith: {
      float a = eval_float(*c.args[0]);
      float b = eval_float(*c.args[1]);
      switch (c.prim) {
        case Prim::Add: return a + b;
        case Prim::Sub: return a - b;
        case Prim::Mul: return a * b;
        case Prim::Div: return a / b;
        LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_COMPARISON_CASES LIFTC_FLOAT_MATH_CASES case Prim::Mod:
        case Prim::Neg: case Prim::And: case Prim::Or: case Prim::Not: case Prim::Select: case Prim::Min:
        case Prim::Max: case Prim::Abs: case Prim::ToFloat: case Prim::SizeValue:
          break;
      }
      LIFTC_ASSERT(false, "float arithmetic is +, -, * or / (compile.cpp)");
      return 0.f;
    }
    case Op::Var:
      return frame_[static_cast<std::size_t>(c.slot)].as_float();
    case Op::Literal:
      return c.literal.as_float();
    default:
      return eval(c).as_float();
  }
}

void Evaluator::bind(const Code& lambda, std::size_t k, const Value& v) {
  const std::vector<int>& comps = lambda.param_comps[k];
  if (comps.empty()) {
    frame_[static_cast<std::size_t>(lambda.params[k])] = v;
    return;
  }
  for (std::size_t j = 0; j < comps.size(); ++j)
    frame_[static_cast<std::size_t>(comps[j])] = component(v, static_cast<int>(j));
}

void Evaluator::release(const Code& lambda) {
  for (int p : lambda.params) frame_[static_cast<std::size_t>(p)] = Value();
  for (const std::vector<int>& comps : lambda.param_comps)
    for (int s : comps) frame_[static_cast<std::size_t>(s)] = Value();
}

Value Evaluator::apply(const Code& lambda, const Value* args, int n) {
  LIFTC_ASSERT(lambda.op == Op::Lambda, "only lambdas are applied");
  const std::vector<int>& ps = lambda.params;
  if (static_cast<int>(ps.size()) == n) {
    for (int i = 0; i < n; ++i) bind(lambda, static_cast<std::size_t>(i), args[i]);
  } else {
    LIFTC_ASSERT(n == 1 && args[0].is_ref() && args[0].layout()->is_tuple() &&
                     args[0].layout()->comps.size() == ps.size(),
                 "a lambda of several parameters applied to one argument destructures a tuple of that many components");
    for (std::size_t k = 0; k < ps.size(); ++k) bind(lambda, k, component(args[0], static_cast<int>(k)));
  }
  return eval(*lambda.args[0]);
}

Value Evaluator::map(const Code& c, const Code& f, const Value& xs) {
  const Layout* out = c.layout;
  const Layout* elem = out->elem;
  LIFTC_ASSERT(xs.is_ref() && xs.layout()->is_array() && xs.layout()->length == out->length,
               "map's result is as long as its input");
  check_allocation(out->words, "the result of this map", c.loc);
  auto words = std::make_shared<std::vector<Word>>(static_cast<std::size_t>(out->words));
  Word* dst = words->data();
  if (threads_ > 1 && out->length > 1) {
    map_parallel(f, xs, elem, out->length, dst);
  } else {
    for (std::int64_t i = 0; i < out->length; ++i) store(apply1(f, element(xs, i)), elem, dst + i * elem->words);
  }
  release(f);
  return Value::ref(std::make_shared<DenseView>(std::move(words), out), out);
}

void Evaluator::map_parallel(const Code& f, const Value& xs, const Layout* elem, std::int64_t length, Word* dst) {
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    Evaluator local(*this);  // a frame of its own; nested maps inside run sequentially
    local.threads_ = 1;
    try {
      // Elements are taken one at a time: rows of a convolution cost alike, but padding
      // and tiles make some cheaper, and one element is far more work than the counter.
      for (std::int64_t i = next++; i < length; i = next++)
        store(local.apply1(f, element(xs, i)), elem, dst + i * elem->words);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = length;  // the others stop at their next element
    }
  };
  auto n = static_cast<unsigned>(std::min<std::int64_t>(threads_, length));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

Value Evaluator::reduce(const Code& c, const Code& f, Value acc, const Value& xs) {
  LIFTC_ASSERT(xs.is_ref() && xs.layout()->is_array(), "reduce folds an array");
  std::int64_t n = xs.layout()->length;
  if (float folded = is_float_scalar(acc) ? acc.as_float() : 0.f;
      is_float_scalar(acc) && reduce_strided(f, folded, n, &xs, nullptr)) {
    acc = Value::of_float(folded);
  } else if (f.params.size() == 2) {  // the usual (acc, x) -> ...: bind the slots directly
    const Code& body = *f.args[0];
    for (std::int64_t i = 0; i < n; ++i) {
      bind(f, 0, acc);
      bind(f, 1, element(xs, i));
      acc = eval(body);
    }
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      Value args[2] = {std::move(acc), element(xs, i)};
      acc = apply(f, args, 2);
    }
  }
  release(f);
  return Value::ref(std::make_shared<SingletonView>(std::move(acc)), c.layout);
}

namespace {

// Lane l of a vectorize operand: a scalar of a vector (a scalar broadcasts).
Value lane_of(const Value& v, int l) {
  if (v.is_vector()) return Value::scalar(v.scalar_kind(), v.lane(l));
  LIFTC_ASSERT(v.is_scalar(), "vectorize's operand holds vectors (or a tuple of them)");
  return v;
}

}  // namespace

Value Evaluator::vectorize(const Code& c, const Code& f, const Value& x) {
  auto w = static_cast<int>(c.sizes[0]);
  const Layout* out = c.layout;
  std::vector<Value> lanes;  // f's result for each lane
  lanes.reserve(static_cast<std::size_t>(w));
  for (int l = 0; l < w; ++l) {
    if (!x.is_ref()) {
      lanes.push_back(apply1(f, lane_of(x, l)));
      continue;
    }
    // A tuple of vectors: lane l is the tuple of the components' lanes.
    std::vector<Value> comps;
    for (std::size_t k = 0; k < x.layout()->comps.size(); ++k) comps.push_back(lane_of(component(x, static_cast<int>(k)), l));
    if (f.params.size() == comps.size()) {
      lanes.push_back(apply(f, comps.data(), static_cast<int>(comps.size())));
    } else {
      LIFTC_ASSERT(f.params.size() == 1 && f.param_layouts[0]->is_tuple(), "vectorize's function takes the lane tuple");
      lanes.push_back(apply1(f, Value::ref(std::make_shared<TupleView>(std::move(comps)), f.param_layouts[0])));
    }
  }
  // Lanes of a scalar result make a vector; lanes of a tuple of scalars a tuple of vectors.
  auto gather = [&](const Layout* vec, auto&& scalar_of_lane) {
    LIFTC_ASSERT(vec->kind == ir::TypeKind::Vector && vec->width == w, "vectorize widens scalars to its width");
    Value v = Value::vector(vec->scalar, w);
    for (int l = 0; l < w; ++l) v.set_lane(l, scalar_of_lane(l).lane(0));
    return v;
  };
  if (!out->is_tuple()) return gather(out, [&](int l) { return lanes[static_cast<std::size_t>(l)]; });
  std::vector<Value> comps;
  for (std::size_t k = 0; k < out->comps.size(); ++k)
    comps.push_back(gather(out->comps[k], [&](int l) { return component(lanes[static_cast<std::size_t>(l)], static_cast<int>(k)); }));
  return Value::ref(std::make_shared<TupleView>(std::move(comps)), out);
}

Value Evaluator::call(const Code& c) {
  const auto& a = c.args;
  if (is_builtin(c.prim)) {
    Value vs[3];
    int n = static_cast<int>(a.size());
    LIFTC_ASSERT(n <= 3, "builtins take at most three operands");
    for (int i = 0; i < n; ++i) vs[i] = eval(*a[static_cast<std::size_t>(i)]);
    try {
      return apply_builtin(c.prim, vs, n);
    } catch (const Error& e) {
      if (e.loc().known() || !c.loc.known()) throw;
      throw Error(e.message(), c.loc);
    }
  }
  auto ref = [&](std::shared_ptr<const View> v) { return Value::ref(std::move(v), c.layout); };
  switch (c.prim) {
    case Prim::Map: case Prim::MapWrg: case Prim::MapLcl: case Prim::MapGlb: case Prim::MapSeq:
      return map(c, *a[0], eval(*a[1]));
    case Prim::Reduce: case Prim::ReduceSeq: {
      Value acc = eval(*a[0]);
      // First without building xs's views: resolved from its expression when it can be.
      if (float folded = is_float_scalar(acc) ? acc.as_float() : 0.f;
          is_float_scalar(acc) && reduce_strided(*a[1], folded, a[2]->layout->length, nullptr, a[2].get()))
        return ref(std::make_shared<SingletonView>(Value::of_float(folded)));
      return reduce(c, *a[1], std::move(acc), eval(*a[2]));
    }
    LIFTC_LAYOUT_PRIM_CASES {
      // On the stack but for a zip of more than two: views are built per element.
      Value few[2];
      std::vector<Value> many;
      std::span<Value> operands(few, a.size());
      if (a.size() > 2) {
        many.resize(a.size());
        operands = many;
      }
      for (std::size_t i = 0; i < a.size(); ++i) operands[i] = eval(*a[i]);
      return ref(layout_view(c.prim, c.sizes, operands));
    }
    case Prim::Id:
      return eval(*a[0]);
    case Prim::ToGlobal: case Prim::ToLocal: case Prim::ToPrivate:
      return apply1(*a[0], eval(*a[1]));
    case Prim::Vectorize:
      return vectorize(c, *a[0], eval(*a[1]));
    case Prim::Array:  // compiled to a literal (compile.cpp)
    case Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      break;
  }
  LIFTC_ASSERT(false, fmt::format("the interpreter evaluates primitive '{}'", ir::signature(c.prim).name));
  return {};
}

}  // namespace liftc::interp::detail
