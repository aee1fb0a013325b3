#pragma once
// Independent reference loop nests for the program tests: written directly from the
// mathematical definitions (not from the IR), accumulating in double.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "liftc/io/tensor.hpp"

namespace liftc::interp::testing {

/// Shape of a direct convolution: image [H][W][C], weights [M][K][K][C], biases [M].
struct ConvShape {
  int H, W, C, M, K, stride, pad;
  int out_h() const { return (H + 2 * pad - K) / stride + 1; }
  int out_w() const { return (W + 2 * pad - K) / stride + 1; }
};

/// out[y][x][m] = bias[m] + sum over ky, kx, c of image[y*s + ky - p][x*s + kx - p][c] *
/// weights[m][ky][kx][c], zero outside the image. Row-major [out_h][out_w][M].
inline std::vector<double> naive_conv(const ConvShape& s, const io::Tensor& image, const io::Tensor& weights,
                                      const io::Tensor& biases) {
  std::vector<double> out;
  for (int y = 0; y < s.out_h(); ++y)
    for (int x = 0; x < s.out_w(); ++x)
      for (int m = 0; m < s.M; ++m) {
        double acc = biases.f32[m];
        for (int ky = 0; ky < s.K; ++ky)
          for (int kx = 0; kx < s.K; ++kx) {
            int iy = y * s.stride + ky - s.pad, ix = x * s.stride + kx - s.pad;
            if (iy < 0 || iy >= s.H || ix < 0 || ix >= s.W) continue;
            for (int c = 0; c < s.C; ++c)
              acc += double(image.f32[(std::size_t(iy) * s.W + ix) * s.C + c]) *
                     double(weights.f32[((std::size_t(m) * s.K + ky) * s.K + kx) * s.C + c]);
          }
        out.push_back(acc);
      }
  return out;
}

/// The sum of each point's 3x3 neighbourhood of an N x M grid, zero outside.
inline std::vector<double> naive_stencil_sum(int N, int M, const io::Tensor& grid) {
  std::vector<double> out;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j) {
      double acc = 0;
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj)
          if (i + di >= 0 && i + di < N && j + dj >= 0 && j + dj < M) acc += grid.f32[std::size_t(i + di) * M + j + dj];
      out.push_back(acc);
    }
  return out;
}

/// C = A x B for A [rows][inner], B [inner][cols].
inline std::vector<double> naive_matmul(int rows, int inner, int cols, const io::Tensor& a, const io::Tensor& b) {
  std::vector<double> out;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double acc = 0;
      for (int k = 0; k < inner; ++k) acc += double(a.f32[std::size_t(i) * inner + k]) * double(b.f32[std::size_t(k) * cols + j]);
      out.push_back(acc);
    }
  return out;
}

/// Checks a float tensor against reference values: shape first, then each element within
/// `atol` (fp32 reductions of n terms of magnitude <= 1 drift by about n * 2^-24 each).
inline void expect_close(const io::Tensor& actual, const std::vector<std::int64_t>& shape,
                         const std::vector<double>& expected, double atol) {
  ASSERT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.f32.size(), expected.size());
  int reported = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::abs(double(actual.f32[i]) - expected[i]) <= atol) continue;
    ADD_FAILURE() << "element " << i << ": " << actual.f32[i] << " vs " << expected[i] << " (atol " << atol << ")";
    if (++reported == 5) return;
  }
}

}  // namespace liftc::interp::testing
