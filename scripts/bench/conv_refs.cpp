// The outside references of scripts/bench_vgg.sh, timed on the same OpenCL device as liftc:
//   naive    a plain hand-written OpenCL direct convolution (one work-item per output value,
//            CHW image, neighbouring work-items on neighbouring columns, bias added), the
//            best of a few work-group sizes;
//   clblast  CLBlast's Sconvgemm (im2col fused into a GEMM; no bias).
// Both are 3x3, pad 1, stride 1, batch 1, fp32. Times are wall-clock over RUNS back-to-back
// enqueues after warm-up (clFinish once), divided by RUNS: the queue hides launch gaps.
// This is reference code for benchmarks only: liftc generates its own kernels.
//
// Usage: conv_refs DEVICE_NAME_PART RUNS C H W M [C H W M ...]
// Prints one line per layer: "C H W M naive_ms naive_local clblast_ms".

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast_c.h>

#include <algorithm>
#include <cctype>
#include <chrono>
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
                 int C, int H, int W, int M) {
  int x = get_global_id(0), y = get_global_id(1), m = get_global_id(2);
  if (x >= W || y >= H || m >= M) return;
  float acc = bias[m];
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i) {
      int yy = y + i - 1;
      if (yy < 0 || yy >= H) continue;
      for (int j = 0; j < 3; ++j) {
        int xx = x + j - 1;
        if (xx < 0 || xx >= W) continue;
        acc += in[(c * H + yy) * W + xx] * w[((m * C + c) * 3 + i) * 3 + j];
      }
    }
  out[(m * H + y) * W + x] = acc;
}
)CL";

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7 || (argc - 3) % 4 != 0) fail("usage: conv_refs DEVICE_NAME_PART RUNS C H W M [C H W M ...]");
  cl_device_id device = pick_device(argv[1]);
  int runs = std::atoi(argv[2]);
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

  for (int a = 3; a + 3 < argc; a += 4) {
    int C = std::atoi(argv[a]), H = std::atoi(argv[a + 1]), W = std::atoi(argv[a + 2]), M = std::atoi(argv[a + 3]);
    auto buffer = [&](size_t n) {
      std::vector<float> host(n);
      for (auto& v : host) v = dist(rng);
      cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, host.data(), &err);
      check(err, "clCreateBuffer");
      return m;
    };
    cl_mem in = buffer(size_t(C) * H * W), w = buffer(size_t(M) * C * 9), bias = buffer(M), out = buffer(size_t(M) * H * W);
    cl_mem args[] = {in, w, bias, out};
    for (cl_uint i = 0; i < 4; ++i) check(clSetKernelArg(naive, i, sizeof(cl_mem), &args[i]), "clSetKernelArg");
    int dims[] = {C, H, W, M};
    for (cl_uint i = 0; i < 4; ++i) check(clSetKernelArg(naive, 4 + i, sizeof(int), &dims[i]), "clSetKernelArg");

    const size_t locals[][3] = {{0, 0, 0}, {32, 4, 1}, {64, 2, 1}, {16, 16, 1}, {128, 1, 1}, {32, 8, 1}};
    double best = 0;
    std::string best_local;
    for (const auto& l : locals) {
      size_t global[3];
      for (int d = 0; d < 3; ++d) {
        size_t n = d == 0 ? W : d == 1 ? H : M;
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
    double clblast = time_ms(q, runs, [&] {
      CLBlastStatusCode s = CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, C, H, W, 3, 3, 1, 1, 1, 1, 1, 1, M, 1,
                                             in, 0, w, 0, out, 0, &q, nullptr);
      if (s != CLBlastSuccess) fail("CLBlastSconvgemm failed with status " + std::to_string(s));
    });
    std::printf("%d %d %d %d %.4f %s %.4f\n", C, H, W, M, best, best_local.c_str(), clblast);
    std::fflush(stdout);
    for (cl_mem m : args) clReleaseMemObject(m);
  }
  return 0;
}
