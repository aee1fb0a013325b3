// The outermost maps run on several threads: the values are the same, bit for bit, as a
// sequential evaluation (each element is computed by one thread, in the same order).

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::interp {
namespace {

Tensors evaluate_with_threads(const std::string& file, const char* threads) {
  setenv("LIFTC_THREADS", threads, 1);
  ir::Program p = parse::load_program(std::string(LIFTC_EXAMPLES_DIR) + "/" + file);
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(typecheck::typecheck(p).program, {})).program;
  Tensors out = evaluate(checked, random_inputs(checked, 3));
  unsetenv("LIFTC_THREADS");
  return out;
}

TEST(ParallelMaps, SameBitsAsSequential) {
  for (const char* file : {"conv/conv_small.sr", "conv/conv_k5_stride2_pad2.sr", "stencil2d.sr", "matmul.sr"}) {
    Tensors one = evaluate_with_threads(file, "1");
    for (const char* threads : {"2", "5"}) {
      Tensors many = evaluate_with_threads(file, threads);
      ASSERT_EQ(one.size(), many.size()) << file;
      for (const auto& [name, t] : one) {
        const io::Tensor& u = many.at(name);
        ASSERT_EQ(t.shape, u.shape) << file;
        EXPECT_EQ(std::memcmp(t.f32.data(), u.f32.data(), 4 * t.f32.size()), 0) << file << " " << name << " " << threads;
      }
    }
  }
}

}  // namespace
}  // namespace liftc::interp
