// Index simplification: the reads that layout compositions generate, as OpenCL C text.
// One line a case: a view over memory, indexed by loop variables with known ranges.

#include <functional>

#include <gtest/gtest.h>

#include "liftc/codegen/printer.hpp"
#include "liftc/codegen/view.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen {
namespace {

using arith::Expr;

View buffer(const std::string& name, ir::Type t) {
  return mem_view(std::make_shared<Memory>(Memory{name, AddressSpace::Global, std::move(t), false}));
}

ir::Type array(ir::Type t, std::initializer_list<std::int64_t> dims) {
  std::vector<std::int64_t> d(dims);
  for (auto it = d.rbegin(); it != d.rend(); ++it) t = ir::Type::array(t, *it);
  return t;
}

// Indexes `v` with one loop variable per dimension (i over the outermost, then j, k)
// ranging over that dimension, and prints the read.
std::string read_all(View v) {
  const char* names[] = {"i", "j", "k"};
  int d = 0;
  while (v.type().is_array()) {
    v = access(v, arith::var(names[d++], 0, v.type().length() - 1));
  }
  return OpenCLPrinter().print(read(v));
}

struct Case {
  const char* what;
  std::function<View()> view;
  const char* expected;
};

TEST(Views, IndexExpressionsAreSimplified) {
  ir::Type f = ir::Type::float_();
  auto x = [&] { return buffer("x", array(f, {64})); };
  auto m = [&] { return buffer("m", array(f, {8, 16})); };
  auto img = [&] { return buffer("img", array(f, {6, 6})); };
  const Case cases[] = {
      {"split", [&] { return split(4, x()); }, "x[4*i + j]"},
      {"join of split", [&] { return join(split(4, x())); }, "x[i]"},
      {"join", [&] { return join(m()); }, "m[i]"},
      {"split of join", [&] { return split(16, join(m())); }, "m[16*i + j]"},
      {"transpose", [&] { return transpose(m()); }, "m[i + 16*j]"},
      {"transpose twice", [&] { return transpose(transpose(m())); }, "m[16*i + j]"},
      {"slide", [&] { return slide(3, 1, x()); }, "x[i + j]"},
      {"slide step 2", [&] { return slide(4, 2, x()); }, "x[2*i + j]"},
      {"join of slide", [&] { return join(slide(4, 4, x())); }, "x[i]"},
      {"pad", [&] { return pad(1, 1, c::float_lit(0), x()); }, "(i - 1 >= 0 && i - 1 < 64) ? x[i - 1] : 0.0f"},
      {"pad left only", [&] { return pad(2, 0, c::float_lit(0), x()); }, "(i - 2 >= 0) ? x[i - 2] : 0.0f"},
      {"crop", [&] { return pad(-1, -1, c::float_lit(0), x()); }, "x[i + 1]"},
      {"reorder", [&] { return reorder(4, x()); }, "x[4*i - 63*(i/16)]"},
      {"split of reorder", [&] { return split(16, reorder(4, x())); }, "x[i + 4*j]"},
      {"slide of pad 2D rows",
       [&] { return slide(3, 1, pad(1, 1, c::float_lit(0), img())); },
       "(i + j - 1 >= 0 && i + j - 1 < 6) ? img[6*i + 6*j + k - 6] : 0.0f"},
      {"asVector", [&] { return as_vector(4, x()); }, "vload4(i, x)"},
      {"asScalar of asVector", [&] { return as_scalar(as_vector(4, x())); }, "x[i]"},
      {"map(join) of split", [&] { return map_view(split(2, m()), ir::Type::array(f, 32), [](const View& e) { return join(e); }); },
       "m[32*i + j]"},
  };
  for (const auto& c : cases) EXPECT_EQ(read_all(c.view()), c.expected) << c.what;
}

// concat (issue 38, item 5): a bounds check selects the operand read, and none is left where
// the loop's range lies in one operand; one-element operands (nearest upsampling, the
// prelude's upsample) read one place.
TEST(Views, ConcatSelectsItsOperandByTheIndex) {
  ir::Type f = ir::Type::float_();
  auto x = [&] { return buffer("x", array(f, {64})); };
  auto y = [&] { return buffer("y", array(f, {16})); };
  auto z = [&] { return buffer("z", array(f, {8})); };
  auto read_at = [](View v, Expr i) { return OpenCLPrinter().print(read(access(std::move(v), std::move(i)))); };
  EXPECT_EQ(read_all(concat({x(), y()})), "(i < 64) ? x[i] : y[i - 64]");
  EXPECT_EQ(read_all(concat({x(), y(), z()})), "(i < 64) ? x[i] : ((i < 80) ? y[i - 64] : z[i - 80])");
  EXPECT_EQ(read_at(concat({x(), y()}), arith::var("i", 0, 63)), "x[i]");
  EXPECT_EQ(read_at(concat({x(), y()}), arith::var("i", 64, 79)), "y[i - 64]");
  EXPECT_EQ(read_at(concat({x(), y(), z()}), arith::var("i", 70, 87)), "(i < 80) ? y[i - 64] : z[i - 80]");
  View pairs = map_view(split(1, x()), array(f, {2}), [](const View& e) { return concat({e, e}); });
  EXPECT_EQ(read_all(join(pairs)), "x[i/2]");
}

TEST(Views, ConcatCannotBeWritten) {
  View x = buffer("x", array(ir::Type::float_(), {4}));
  View dest = access(concat({x, x}), arith::var("i", 0, 7));
  EXPECT_THROW(write(dest, c::float_lit(1)), liftc::Error);
}

TEST(Views, WritesGoThroughJoinSplitTranspose) {
  ir::Type f = ir::Type::float_();
  View m = buffer("m", array(f, {8, 16}));
  View dest = access(access(split(8, join(transpose(m))), arith::var("i", 0, 15)), arith::var("j", 0, 7));
  EXPECT_EQ(CPrinter().print(write(dest, c::float_lit(1))), "m[i + 16*j] = 1.0f;\n");
}

TEST(Views, WritesGoThroughReorder) {
  View x = buffer("x", array(ir::Type::float_(), {64}));
  View dest = access(reorder(4, x), arith::var("i", 0, 63));
  EXPECT_EQ(CPrinter().print(write(dest, c::float_lit(1))), "x[4*i - 63*(i/16)] = 1.0f;\n");
}

TEST(Views, PadCannotBeWritten) {
  View x = buffer("x", array(ir::Type::float_(), {4}));
  View dest = access(pad(1, 1, c::float_lit(0), x), arith::var("i", 0, 5));
  EXPECT_THROW(write(dest, c::float_lit(1)), liftc::Error);
}

}  // namespace
}  // namespace liftc::codegen
