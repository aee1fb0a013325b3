// The outside references of scripts/bench_shape.sh, scripts/bench_vgg.sh and
// scripts/bench_explored.sh, timed on the same OpenCL device as liftc:
//   naive    a plain hand-written OpenCL direct convolution (one work-item per output value,
//            CHW image, OIHW weights, neighbouring work-items on neighbouring columns, bias
//            added), the best of a few work-group sizes;
//   clblast  CLBlast's Sconvgemm (no bias; CLBlast 1.5 runs its im2col kernel into a
//            temporary buffer of K*K*C x Ho*Wo floats, then a GEMM).
// Any shape: K x K kernels, stride S, padding P on every side, batch 1, fp32; the output is
// Ho x Wo with Ho = (H + 2P - K) / S + 1 (floor, as PyTorch and CLBlast). Times are
// wall-clock over RUNS back-to-back enqueues after warm-up (clFinish once), divided by RUNS:
// the queue hides launch gaps. Both outputs are checked against a reference computed here on
// the CPU (in double), each value within 1e-4 of the sum of its products' magnitudes; a
// mismatch is an error (exit 1).
// This is reference code for benchmarks only: liftc generates its own kernels.
//
// Usage: conv_refs DEVICE_NAME_PART RUNS C H W M K S P [C H W M K S P ...]
// Prints one line per shape:
//   "C H W M K S P naive_ms naive_local clblast_ms naive_bytes clblast_bytes"
// where the bytes are each one's global memory: inputs, output and (CLBlast) its im2col buffer.

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast_c.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "conv_refs: %s\n", what.c_str());
  std::exit(1);
}

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) fail(std::string(what) + " failed with OpenCL error " + std::to_string(err));
}

const char* kNaive = R"CL(
kernel void conv(global const float* in, global const float* w, global const float* bias, global float* out,
                 int C, int H, int W, int M, int K, int S, int P, int Ho, int Wo) {
  int x = get_global_id(0), y = get_global_id(1), m = get_global_id(2);
  if (x >= Wo || y >= Ho || m >= M) return;
  float acc = bias[m];
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < K; ++i) {
      int yy = y * S + i - P;
      if (yy < 0 || yy >= H) continue;
      for (int j = 0; j < K; ++j) {
        int xx = x * S + j - P;
        if (xx < 0 || xx >= W) continue;
        acc += in[(c * H + yy) * W + xx] * w[((m * C + c) * K + i) * K + j];
      }
    }
  out[(m * Ho + y) * Wo + x] = acc;
}
)CL";

// One convolution's shape.
struct Shape {
  int C, H, W, M, K, S, P;
  int Ho() const { return (H + 2 * P - K) / S + 1; }
  int Wo() const { return (W + 2 * P - K) / S + 1; }
};

cl_device_id pick_device(const std::string& part) {
  cl_uint np = 0;
  check(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
  std::vector<cl_platform_id> ps(np);
  check(clGetPlatformIDs(np, ps.data(), nullptr), "clGetPlatformIDs");
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  for (cl_platform_id p : ps) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    char pname[256] = {0};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pname - 1, pname, nullptr);
    for (cl_device_id d : ds) {
      char name[256] = {0};
      clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
      if (lower(std::string(pname) + " " + name).find(lower(part)) != std::string::npos) return d;
    }
  }
  fail("no OpenCL device matches '" + part + "'");
}

// Milliseconds per call of `enqueue`, over `runs` back-to-back calls after 3 warm-up calls.
template <typename F>
double time_ms(cl_command_queue q, int runs, F enqueue) {
  for (int i = 0; i < 3; ++i) enqueue();
  check(clFinish(q), "clFinish");
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) enqueue();
  check(clFinish(q), "clFinish");
  std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - start;
  return d.count() / runs;
}

// The convolution without bias on the CPU, in double ([M][Ho][Wo]), and for each value the
// sum of its products' magnitudes (the scale of its rounding error).
void reference(const Shape& s, const std::vector<float>& in, const std::vector<float>& w, std::vector<double>& out,
               std::vector<double>& magnitude) {
  const int Ho = s.Ho(), Wo = s.Wo();
  out.assign(std::size_t(s.M) * Ho * Wo, 0.0);
  magnitude.assign(out.size(), 0.0);
  for (int m = 0; m < s.M; ++m)
    for (int y = 0; y < Ho; ++y)
      for (int x = 0; x < Wo; ++x) {
        double acc = 0, mag = 0;
        for (int c = 0; c < s.C; ++c)
          for (int i = 0; i < s.K; ++i) {
            int yy = y * s.S + i - s.P;
            if (yy < 0 || yy >= s.H) continue;
            for (int j = 0; j < s.K; ++j) {
              int xx = x * s.S + j - s.P;
              if (xx < 0 || xx >= s.W) continue;
              double p = double(in[(std::size_t(c) * s.H + yy) * s.W + xx]) * w[((std::size_t(m) * s.C + c) * s.K + i) * s.K + j];
              acc += p;
              mag += std::fabs(p);
            }
          }
        out[(std::size_t(m) * Ho + y) * Wo + x] = acc;
        magnitude[(std::size_t(m) * Ho + y) * Wo + x] = mag;
      }
}

// Reads `out` back and compares it with the reference plus `bias` (when given) per kernel.
void expect_matches(cl_command_queue q, cl_mem out, const Shape& s, const std::vector<double>& want,
                    const std::vector<double>& magnitude, const std::vector<float>* bias, const char* who) {
  std::vector<float> got(want.size());
  check(clEnqueueReadBuffer(q, out, CL_TRUE, 0, got.size() * 4, got.data(), 0, nullptr, nullptr), "reading an output");
  const std::size_t plane = std::size_t(s.Ho()) * s.Wo();
  for (std::size_t i = 0; i < got.size(); ++i) {
    double expected = want[i] + (bias ? (*bias)[i / plane] : 0.0);
    if (!(std::fabs(got[i] - expected) <= 1e-4 * magnitude[i] + 1e-5))
      fail(std::string(who) + " output[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", the reference " +
           std::to_string(expected) + " (shape C H W M K S P = " + std::to_string(s.C) + " " + std::to_string(s.H) + " " +
           std::to_string(s.W) + " " + std::to_string(s.M) + " " + std::to_string(s.K) + " " + std::to_string(s.S) + " " +
           std::to_string(s.P) + ")");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 10 || (argc - 3) % 7 != 0) fail("usage: conv_refs DEVICE_NAME_PART RUNS C H W M K S P [C H W M K S P ...]");
  cl_device_id device = pick_device(argv[1]);
  int runs = std::atoi(argv[2]);
  if (runs < 1) fail("RUNS must be a positive integer");
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  check(err, "clCreateCommandQueue");
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kNaive, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  check(clBuildProgram(prog, 1, &device, "", nullptr, nullptr), "building the naive kernel");
  cl_kernel naive = clCreateKernel(prog, "conv", &err);
  check(err, "clCreateKernel");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);

  for (int a = 3; a + 6 < argc; a += 7) {
    Shape s{std::atoi(argv[a]),     std::atoi(argv[a + 1]), std::atoi(argv[a + 2]), std::atoi(argv[a + 3]),
            std::atoi(argv[a + 4]), std::atoi(argv[a + 5]), std::atoi(argv[a + 6])};
    if (s.C < 1 || s.H < 1 || s.W < 1 || s.M < 1 || s.K < 1 || s.S < 1 || s.P < 0 || s.H + 2 * s.P < s.K ||
        s.W + 2 * s.P < s.K)
      fail("not a convolution shape: C H W M K S P = " + std::string(argv[a]) + " " + argv[a + 1] + " " + argv[a + 2] +
           " " + argv[a + 3] + " " + argv[a + 4] + " " + argv[a + 5] + " " + argv[a + 6]);
    const int Ho = s.Ho(), Wo = s.Wo();
    auto values = [&](std::size_t n) {
      std::vector<float> host(n);
      for (auto& v : host) v = dist(rng);
      return host;
    };
    auto buffer = [&](const std::vector<float>& host) {
      cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * 4,
                                const_cast<float*>(host.data()), &err);
      check(err, "clCreateBuffer");
      return m;
    };
    std::vector<float> in_host = values(std::size_t(s.C) * s.H * s.W), w_host = values(std::size_t(s.M) * s.C * s.K * s.K),
                       bias_host = values(s.M), out_host = values(std::size_t(s.M) * Ho * Wo);
    cl_mem in = buffer(in_host), w = buffer(w_host), bias = buffer(bias_host), out = buffer(out_host);
    std::vector<double> want, magnitude;
    reference(s, in_host, w_host, want, magnitude);

    cl_mem args[] = {in, w, bias, out};
    for (cl_uint i = 0; i < 4; ++i) check(clSetKernelArg(naive, i, sizeof(cl_mem), &args[i]), "clSetKernelArg");
    int dims[] = {s.C, s.H, s.W, s.M, s.K, s.S, s.P, Ho, Wo};
    for (cl_uint i = 0; i < 9; ++i) check(clSetKernelArg(naive, 4 + i, sizeof(int), &dims[i]), "clSetKernelArg");

    const size_t locals[][3] = {{0, 0, 0}, {32, 4, 1}, {64, 2, 1}, {16, 16, 1}, {128, 1, 1}, {32, 8, 1}};
    double best = 0;
    std::string best_local;
    for (const auto& l : locals) {
      size_t global[3];
      for (int d = 0; d < 3; ++d) {
        size_t n = d == 0 ? Wo : d == 1 ? Ho : s.M;
        global[d] = l[0] == 0 ? n : (n + l[d] - 1) / l[d] * l[d];
      }
      double ms = time_ms(q, runs, [&] {
        check(clEnqueueNDRangeKernel(q, naive, 3, nullptr, global, l[0] == 0 ? nullptr : l, 0, nullptr, nullptr),
              "enqueueing the naive kernel");
      });
      if (best == 0 || ms < best) {
        best = ms;
        best_local = l[0] == 0 ? "auto" : std::to_string(l[0]) + "," + std::to_string(l[1]) + "," + std::to_string(l[2]);
      }
    }
    expect_matches(q, out, s, want, magnitude, &bias_host, "the hand-written kernel's");
    double clblast = time_ms(q, runs, [&] {
      CLBlastStatusCode st = CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, s.C, s.H, s.W, s.K, s.K, s.P, s.P, s.S, s.S,
                                              1, 1, s.M, 1, in, 0, w, 0, out, 0, &q, nullptr);
      if (st != CLBlastSuccess) fail("CLBlastSconvgemm failed with status " + std::to_string(st));
    });
    expect_matches(q, out, s, want, magnitude, nullptr, "CLBlast's Sconvgemm");
    const std::size_t inputs = in_host.size() + w_host.size(), output = want.size();
    const std::size_t naive_bytes = 4 * (inputs + bias_host.size() + output);
    const std::size_t clblast_bytes = 4 * (inputs + output + std::size_t(s.K) * s.K * s.C * Ho * Wo);
    std::printf("%d %d %d %d %d %d %d %.4f %s %.4f %zu %zu\n", s.C, s.H, s.W, s.M, s.K, s.S, s.P, best, best_local.c_str(),
                clblast, naive_bytes, clblast_bytes);
    std::fflush(stdout);
    for (cl_mem m : args) clReleaseMemObject(m);
  }
  return 0;
}
