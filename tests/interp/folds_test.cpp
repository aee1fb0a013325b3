// Reductions give the same bits as fp32 loop nests that fold in the program's order,
// whichever way the interpreter folds them: over leaves it finds strided in dense
// storage (joins of a materialized window, a zip's component, a transposed column, a
// slide's window, a pad read only inside the data) or loading element by element (a pad
// whose fill the fold reads, a reorder), with the float body as a plain loop (acc + x * y,
// acc + x) or as a postfix program (any other float arithmetic, variables bound outside
// the fold included).

#include <bit>
#include <cstring>
#include <functional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/parse/parse.hpp"
#include "test_util.hpp"

namespace liftc::interp {
namespace {

using namespace testing;

// The expected output from the inputs, computed in fp32 in the program's order.
using LoopNest = std::function<std::vector<float>(const Tensors&)>;

struct FoldCase {
  std::string name;
  std::string program;  // .sr text; the output is the definition `out`
  LoopNest expected;
};

const std::vector<float>& f(const Tensors& in, const char* name) { return in.at(name).f32; }

// conv with H=5, W=7, C=4, M=3, K=3, the given stride and padding (Listing 3).
FoldCase conv_case(int stride, int pad) {
  const int H = 5, W = 7, C = 4, M = 3, K = 3;
  std::string text = fmt::format(R"(
size C = {}, H = {}, W = {}, M = {}, K = {}
input weights : [[[[float]C]K]K]M
input biases  : [float]M
input image   : [[[float]C]W]H
def out = map2D(window -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(window)), join(join(w)))),
                              zip(weights, biases)),
                slide2D(K, K, {}, {}, pad2D({}, {}, {}, {}, 0.0, image)))
)",
                                 C, H, W, M, K, stride, stride, pad, pad, pad, pad);
  LoopNest nest = [=](const Tensors& in) {
    const auto &img = f(in, "image"), &wt = f(in, "weights"), &bias = f(in, "biases");
    int oh = (H + 2 * pad - K) / stride + 1, ow = (W + 2 * pad - K) / stride + 1;
    std::vector<float> out;
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        for (int m = 0; m < M; ++m) {
          float acc = bias[m];
          for (int ky = 0; ky < K; ++ky)
            for (int kx = 0; kx < K; ++kx)
              for (int c = 0; c < C; ++c) {
                int iy = y * stride + ky - pad, ix = x * stride + kx - pad;
                float v = iy >= 0 && iy < H && ix >= 0 && ix < W ? img[(iy * W + ix) * C + c] : 0.f;
                acc = acc + v * wt[((m * K + ky) * K + kx) * C + c];
              }
          out.push_back(acc);
        }
    return out;
  };
  return {fmt::format("conv stride {} pad {}: joins of a dense window, a zip's weights", stride, pad), text, nest};
}

std::vector<FoldCase> cases() {
  return {
      conv_case(1, 1),
      conv_case(2, 2),
      {"matmul: a transposed column (stride N)",
       "size M = 3, K = 7, N = 5\ninput A : [[float]K]M\ninput B : [[float]N]K\n"
       "def out = map(row -> join(map(col -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(row, col)), transpose(B))), A)",
       [](const Tensors& in) {
         std::vector<float> out;
         for (int i = 0; i < 3; ++i)
           for (int j = 0; j < 5; ++j) {
             float acc = 0.f;
             for (int k = 0; k < 7; ++k) acc = acc + f(in, "A")[i * 7 + k] * f(in, "B")[k * 5 + j];
             out.push_back(acc);
           }
         return out;
       }},
      {"stencil: acc + x over a join of a window",
       "size N = 4, M = 5\ninput grid : [[float]M]N\n"
       "def out = map2D(nbh -> reduce(0.0, (acc, x) -> acc + x, join(nbh)), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, grid)))",
       [](const Tensors& in) {
         std::vector<float> out;
         for (int y = 0; y < 4; ++y)
           for (int x = 0; x < 5; ++x) {
             float acc = 0.f;
             for (int dy = -1; dy <= 1; ++dy)
               for (int dx = -1; dx <= 1; ++dx) {
                 int yy = y + dy, xx = x + dx;
                 acc = acc + (yy >= 0 && yy < 4 && xx >= 0 && xx < 5 ? f(in, "grid")[yy * 5 + xx] : 0.f);
               }
             out.push_back(acc);
           }
         return out;
       }},
      {"slide: windows that are views, not materialized",
       "size N = 9\ninput xs : [float]N\ndef out = join(map(w -> reduce(0.5, (acc, x) -> acc + x * x, w), slide(3, 2, xs)))",
       [](const Tensors& in) {
         std::vector<float> out;
         for (int i = 0; i < 4; ++i) {
           float acc = 0.5f;
           for (int j = 0; j < 3; ++j) acc = acc + f(in, "xs")[2 * i + j] * f(in, "xs")[2 * i + j];
           out.push_back(acc);
         }
         return out;
       }},
      {"pad: a fold that reads the fill loads element by element",
       "size N = 6\ninput xs : [float]N\ndef out = reduce(0.0, (acc, x) -> acc + x * x, pad(2, 1, 0.75, xs))",
       [](const Tensors& in) {
         float acc = 0.f;
         for (int i = -2; i < 7; ++i) {
           float v = i >= 0 && i < 6 ? f(in, "xs")[i] : 0.75f;
           acc = acc + v * v;
         }
         return std::vector<float>{acc};
       }},
      {"pad: a fold inside the data reads it strided",
       "size N = 6\ninput xs : [[float]N]3\n"
       "def out = join(map(r -> reduce(0.0, (acc, x) -> acc + x, r), pad(0, 0, 0.0, map(r -> pad(1, 1, 0.0, r), xs))))",
       [](const Tensors& in) {
         std::vector<float> out;
         for (int r = 0; r < 3; ++r) {
           float acc = 0.f;
           for (int i = -1; i < 7; ++i) acc = acc + (i >= 0 && i < 6 ? f(in, "xs")[r * 6 + i] : 0.f);
           out.push_back(acc);
         }
         return out;
       }},
      {"postfix body: any float arithmetic, a variable bound outside the fold",
       "size N = 8\ninput xs : [float]N\ninput ys : [float]N\ninput ss : [float]3\n"
       "def out = join(map(s -> reduce(1.0, (acc, p) -> acc * s - p.0 / (p.1 + 2.0), zip(xs, ys)), ss))",
       [](const Tensors& in) {
         std::vector<float> out;
         for (float s : f(in, "ss")) {
           float acc = 1.f;
           for (int i = 0; i < 8; ++i) acc = acc * s - f(in, "xs")[i] / (f(in, "ys")[i] + 2.f);
           out.push_back(acc);
         }
         return out;
       }},
      {"postfix body: components of an outer tuple parameter",
       "size N = 6\ninput xs : [float]N\ninput ss : [float]2\ninput ts : [float]2\n"
       "def out = join(map(q -> reduce(0.25, (acc, x) -> acc * q.0 + x * q.1, xs), zip(ss, ts)))",
       [](const Tensors& in) {
         std::vector<float> out;
         for (int k = 0; k < 2; ++k) {
           float acc = 0.25f;
           for (float x : f(in, "xs")) acc = acc * f(in, "ss")[k] + x * f(in, "ts")[k];
           out.push_back(acc);
         }
         return out;
       }},
  };
}

TEST(InterpFolds, SameBitsAsFp32LoopNests) {
  for (const FoldCase& c : cases()) {
    SCOPED_TRACE(c.name);
    ir::Program p = check(parse::parse_program(std::make_shared<SourceFile>(SourceFile{"fold.sr", c.program})));
    for (std::uint64_t seed : {1u, 2u}) {
      Tensors in = random_inputs(p, seed);
      std::vector<float> expected = c.expected(in);
      Tensors outputs = evaluate(p, in);
      const io::Tensor& out = outputs.at("out");
      ASSERT_EQ(out.f32.size(), expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(out.f32[i]), std::bit_cast<std::uint32_t>(expected[i]))
            << "element " << i << ": " << out.f32[i] << " vs " << expected[i];
    }
  }
}

}  // namespace
}  // namespace liftc::interp
