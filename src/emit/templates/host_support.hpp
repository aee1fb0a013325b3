#define CL_TARGET_OPENCL_VERSION 120
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif
#ifdef LIFTC_HOST_CLBLAST
#include <clblast_c.h>
#endif
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// IEEE half conversion (liftc/support/half.hpp, as liftc rounds): a buffer stored as halves
// is converted from the float32 of its .npy file when it is written to the device, and
// back to float32 when it is read.
//@default half: #include "liftc/support/half.hpp"
@{code:half}

// liftc_host: the plan types liftc fills from generated code, and what every host built
// on them does (read and write .npy files, check outputs, choose a device, build and run
// a plan). Errors are liftc_host::Failure, one line each.
namespace liftc_host {

// One global buffer: inputs are uploaded, outputs read back, scratch only used by kernels.
struct BufferInfo {
  const char* name;
  size_t elements;
  bool is_float;
  int role;  // 0 input, 1 output, 2 scratch
  std::vector<long> shape;
  bool half = false;  // a float buffer stored as IEEE halves on the device (its host data and files stay float32)

  // The bytes of the buffer on the device.
  size_t device_bytes() const { return elements * (half ? 2 : 4); }
};
// A kernel argument: a buffer of the plan, or an int value.
struct ArgInfo {
  int buffer;  // index into PlanInfo::buffers, or -1 for an int value
  int value;
};
// A tuning parameter a library call sets first: its library kernel, its name, its value.
struct ParamInfo {
  const char* kernel;
  const char* name;
  size_t value;
};
// One kernel launch; or, with `library` set, a library routine's call (liftc-runner's
// `library` step: CLBlast's routine with the point's tuning parameters), whose buffers are
// `args` in the routine's order and which has no NDRange.
struct KernelInfo {
  const char* name;
  cl_uint dims;
  size_t global[3];
  size_t local[3];
  bool has_local;
  std::vector<ArgInfo> args;
  const char* library;              // nullptr for a kernel; else "clblast-convgemm", "clblast-gemm"
  std::vector<size_t> sizes;        // the routine's size arguments, in its order
  std::vector<ParamInfo> params;    // set through CLBlastOverrideParameters before it runs
};
// One OpenCL program and the kernels enqueued from it, in order.
struct StageInfo {
  const char* source;
  const char* build_options;  // the OpenCL compiler options liftc chose (-cl-mad-enable: the mad parameter)
  std::vector<KernelInfo> kernels;
};
// Generated code: its buffers and its stages, run in order.
struct PlanInfo {
  std::vector<BufferInfo> buffers;
  std::vector<StageInfo> stages;
};

// A failure with a one-line message (a host prints "error: " and the message, and exits 1).
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& what) { throw Failure(what); }

inline void check(cl_int err, const std::string& what) {
  if (err != CL_SUCCESS) fail(what + " failed with OpenCL error " + std::to_string(err));
}

// The poison every output and scratch buffer holds before a run (a quiet NaN payload no
// arithmetic produces; the same word as liftc's own runtime uses).
const uint32_t kPoison = 0x7FC0DEADu;
// The poison of a buffer stored as halves (a quiet NaN payload of its own).
const uint16_t kPoisonHalf = 0x7EADu;

// Where the value of the header dictionary's `key` starts ('key' or "key", then a colon),
// or npos when the header has no such key.
inline size_t header_value_at(const std::string& header, const std::string& key) {
  for (char quote : {'\'', '"'}) {
    size_t at = header.find(quote + key + quote);
    if (at == std::string::npos) continue;
    size_t colon = header.find_first_not_of(" \t", at + key.size() + 2);
    if (colon == std::string::npos || header[colon] != ':') return std::string::npos;
    return header.find_first_not_of(" \t", colon + 1);
  }
  return std::string::npos;
}

// The header's value of `key` when it is a quoted string or a bare word (True, False).
inline std::string header_word(const std::string& header, const std::string& key, const std::string& path) {
  size_t at = header_value_at(header, key);
  if (at == std::string::npos) fail(path + ": the header has no '" + key + "'");
  if (header[at] == '\'' || header[at] == '"') {
    size_t end = header.find(header[at], at + 1);
    if (end == std::string::npos) fail(path + ": the header's '" + key + "' is not closed");
    return header.substr(at + 1, end - at - 1);
  }
  size_t end = at;
  while (end < header.size() && std::isalnum(static_cast<unsigned char>(header[end]))) ++end;
  return header.substr(at, end - at);
}

// The integers of the header's 'shape' tuple, e.g. "(4, 3)" -> {4, 3}.
inline std::vector<long> header_shape(const std::string& header, const std::string& path) {
  size_t key = header_value_at(header, "shape");
  size_t open = key == std::string::npos ? key : header.find('(', key);
  size_t close = open == std::string::npos ? open : header.find(')', open);
  if (close == std::string::npos) fail(path + ": the header has no shape");
  std::vector<long> shape;
  std::string inner = header.substr(open + 1, close - open - 1);
  std::stringstream items(inner);
  std::string item;
  while (std::getline(items, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(item.c_str() + first, &end, 10);
    if (errno != 0 || end == item.c_str() + first || item.find_first_not_of(' ', size_t(end - item.c_str())) != std::string::npos || v < 0)
      fail(path + ": bad shape (" + inner + ")");
    shape.push_back(v);
  }
  return shape;
}

inline std::string shape_text(const std::vector<long>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += std::to_string(shape[i]) + (i + 1 < shape.size() ? ", " : "");
  return text + (shape.size() == 1 ? ",)" : ")");
}

// What a path that is not a regular file is, for an error.
inline std::string file_kind(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::directory: return "a directory";
    case std::filesystem::file_type::fifo: return "a pipe";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

// Reads a little-endian float32/int32 C-order .npy file (format 1.0-3.0) of b's shape.
// Only a regular file is read, as liftc eval --input reads: opening a pipe would wait
// for a writer forever.
inline std::vector<char> read_npy(const std::string& path, const BufferInfo& b) {
  std::error_code ec;
  std::filesystem::file_type type = std::filesystem::status(path, ec).type();
  if (type != std::filesystem::file_type::regular && type != std::filesystem::file_type::not_found && !ec)
    fail(path + " is " + file_kind(type) + ", not a .npy file (give a regular file)");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open " + path);
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path + " is not a .npy file");
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char l[2];
    in.read(reinterpret_cast<char*>(l), 2);
    header_len = l[0] | (l[1] << 8);
  } else {
    unsigned char l[4];
    in.read(reinterpret_cast<char*>(l), 4);
    header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (uint32_t(l[3]) << 24);
  }
  if (!in || header_len > (1u << 20)) fail(path + ": bad .npy header");
  std::string header(header_len, ' ');
  in.read(&header[0], header_len);
  if (!in) fail(path + ": truncated .npy header");
  // The dictionary's values, not a search of the text: a big-endian '>f4' header may hold
  // "<f4" elsewhere, and 'fortran_order':True may be written without a space.
  const char* want = b.is_float ? "<f4" : "<i4";
  std::string descr = header_word(header, "descr", path);
  if (descr != want) fail(path + ": dtype '" + descr + "', expected '" + want + "' (little-endian " + (b.is_float ? "float32" : "int32") + ")");
  std::string fortran = header_word(header, "fortran_order", path);
  if (fortran == "True") fail(path + ": Fortran order is not supported");
  if (fortran != "False") fail(path + ": the header's 'fortran_order' is '" + fortran + "', not True or False");
  std::vector<long> shape = header_shape(header, path);
  if (shape != b.shape) fail(path + ": shape " + shape_text(shape) + ", expected " + shape_text(b.shape) + " for " + b.name);
  std::vector<char> data(b.elements * 4);
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (!in) fail(path + ": expected " + std::to_string(b.elements) + " elements");
  if (in.peek() != std::char_traits<char>::eof()) fail(path + ": more data than its shape " + shape_text(shape) + " holds");
  return data;
}

// The value of element i of a float32 or int32 buffer, as a double.
inline double element(const std::vector<char>& data, size_t i, bool is_float) {
  if (is_float) {
    float f;
    std::memcpy(&f, &data[i * 4], 4);
    return f;
  }
  int32_t v;
  std::memcpy(&v, &data[i * 4], 4);
  return v;
}

// One output against what it should hold: the elements that still hold the poison, and
// (with `expected`) those beyond the tolerance, an output stored as halves within one half ulp
// more (rtol + 2^-10, as liftc run and explore compare it: runtime::Tolerance::for_half).
struct Comparison {
  size_t unwritten = 0, first_unwritten = 0;
  size_t differ = 0, first = 0;
  bool ok() const { return unwritten == 0 && differ == 0; }
};

// With `allowance` (one float per element: what a program through constant arrays, Winograd's
// transforms, may differ by beyond the tolerance, as liftc explore validated it), element i may
// also differ by allowance[i].
inline Comparison compare_output(const BufferInfo& b, const std::vector<char>& got, const std::vector<char>* expected,
                                 double rtol, double atol, const std::vector<char>* allowance = nullptr) {
  if (b.half) rtol += 1.0 / 1024.0;
  Comparison c;
  for (size_t i = 0; i < b.elements; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &got[i * 4], 4);
    if (bits == kPoison && c.unwritten++ == 0) c.first_unwritten = i;
  }
  if (c.unwritten > 0 || !expected) return c;
  for (size_t i = 0; i < b.elements; ++i) {
    double a = element(got, i, b.is_float), w = element(*expected, i, b.is_float);
    bool ok = std::isnan(a) || std::isnan(w) ? std::isnan(a) && std::isnan(w)
              : std::isinf(a) || std::isinf(w)
                  ? a == w
                  : std::fabs(a - w) <= atol + rtol * std::fabs(w) +
                                            (allowance && !allowance->empty() ? element(*allowance, i, true) : 0.0);
    if (!ok && c.differ++ == 0) c.first = i;
  }
  return c;
}

// Prints compare_output's verdict on one output in one line; returns whether it passed.
inline bool report_output(const BufferInfo& b, const Comparison& c, const std::vector<char>& got,
                          const std::vector<char>* expected) {
  if (c.unwritten > 0) {
    std::printf("%s: %zu of %zu elements were never written (the first at [%zu])\n", b.name, c.unwritten, b.elements,
                c.first_unwritten);
    return false;
  }
  if (!expected) return true;
  if (c.differ == 0) {
    std::printf("%s: matches the expected values (%zu values)\n", b.name, b.elements);
    return true;
  }
  std::printf("%s: DIFFERS: %zu of %zu values differ, the first at [%zu]: got %.9g expected %.9g\n", b.name, c.differ,
              b.elements, c.first, element(got, c.first, b.is_float), element(*expected, c.first, b.is_float));
  return false;
}

// A non-negative finite number from a flag's value, or fail naming the flag.
inline double number_flag(const char* flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !std::isfinite(v) || v < 0)
    fail(std::string(flag) + " takes a non-negative number, not '" + text + "'");
  return v;
}

// A device index from --device's value, or fail.
inline int device_flag(const char* text) {
  char* end = nullptr;
  errno = 0;
  long d = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || d < 0 || d > 1000000)
    fail(std::string("--device takes a device index (0, 1, ...), not '") + text + "'");
  return static_cast<int>(d);
}

inline void write_npy(const std::string& path, const BufferInfo& b, const std::vector<char>& data) {
  std::ostringstream shape;
  shape << "(";
  for (size_t i = 0; i < b.shape.size(); ++i) shape << b.shape[i] << (b.shape.size() == 1 ? "," : i + 1 < b.shape.size() ? ", " : "");
  shape << ")";
  std::string header = std::string("{'descr': '") + (b.is_float ? "<f4" : "<i4") +
                       "', 'fortran_order': False, 'shape': " + shape.str() + ", }";
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (!out) fail("cannot write " + path + ": " + std::strerror(errno));
  unsigned char l[2] = {static_cast<unsigned char>(header.size() & 0xff), static_cast<unsigned char>(header.size() >> 8)};
  // Every write and the close are checked: a full disk or a file-size limit is an error
  // (exit 1), never a short file reported as written.
  bool ok = std::fwrite("\x93NUMPY\x01\x00", 1, 8, out) == 8 && std::fwrite(l, 1, 2, out) == 2 &&
            std::fwrite(header.data(), 1, header.size(), out) == header.size() &&
            std::fwrite(data.data(), 1, data.size(), out) == data.size();
  int error = errno;
  if (std::fclose(out) != 0 && ok) ok = false, error = errno;
  if (!ok) {
    std::remove(path.c_str());
    fail("cannot write " + path + ": " + std::strerror(error));
  }
}

// The device with index `wanted` among all platforms' devices; -1: the first GPU, else the
// first device.
inline cl_device_id choose_device(int wanted) {
  cl_uint num_platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &num_platforms), "clGetPlatformIDs");
  if (num_platforms == 0) fail("no OpenCL platform");
  std::vector<cl_platform_id> platforms(num_platforms);
  check(clGetPlatformIDs(num_platforms, platforms.data(), nullptr), "clGetPlatformIDs");
  std::vector<cl_device_id> devices, gpus;
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> ds(n);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ds.data(), nullptr);
    for (cl_device_id d : ds) {
      cl_device_type type;
      clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(type), &type, nullptr);
      devices.push_back(d);
      if (type & CL_DEVICE_TYPE_GPU) gpus.push_back(d);
    }
  }
  if (devices.empty()) fail("no OpenCL device");
  if (wanted >= static_cast<int>(devices.size())) fail("no device with index " + std::to_string(wanted));
  return wanted >= 0 ? devices[wanted] : !gpus.empty() ? gpus[0] : devices[0];
}

inline std::string device_name(cl_device_id device) {
  char name[256] = {0};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name, nullptr);
  return name;
}

inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A plan's programs built for one device, and their kernels (one list per stage).
struct BuiltPlan {
  std::vector<cl_program> programs;
  std::vector<std::vector<cl_kernel>> kernels;
};

inline void release(BuiltPlan& built) {
  for (auto& ks : built.kernels)
    for (cl_kernel k : ks)
      if (k) clReleaseKernel(k);
  for (cl_program p : built.programs) clReleaseProgram(p);
  built = BuiltPlan();
}

// Builds every stage's program and creates its kernels; on a failure releases what it
// made and fails with the build log.
inline BuiltPlan build_plan(cl_context context, cl_device_id device, const PlanInfo& plan) {
  BuiltPlan built;
  try {
    for (const StageInfo& stage : plan.stages) {
      built.kernels.emplace_back(stage.kernels.size(), nullptr);  // a library call's stays null
      bool any_kernel = std::any_of(stage.kernels.begin(), stage.kernels.end(),
                                    [](const KernelInfo& k) { return k.library == nullptr; });
      if (!any_kernel) continue;  // library calls only: no program to build
      cl_int err;
      const char* source = stage.source;
      cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
      check(err, "clCreateProgramWithSource");
      built.programs.push_back(program);
      if (clBuildProgram(program, 1, &device, stage.build_options, nullptr, nullptr) != CL_SUCCESS) {
        size_t size = 0;
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
        std::string log(size, '\0');
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr);
        fail("building the kernels failed:\n" + log);
      }
      for (size_t i = 0; i < stage.kernels.size(); ++i) {
        if (stage.kernels[i].library) continue;
        cl_kernel kernel = clCreateKernel(program, stage.kernels[i].name, &err);
        check(err, std::string("clCreateKernel ") + stage.kernels[i].name);
        built.kernels.back()[i] = kernel;
      }
    }
  } catch (...) {
    release(built);
    throw;
  }
  return built;
}

inline void release(std::vector<cl_mem>& mems) {
  for (cl_mem m : mems) clReleaseMemObject(m);
  mems.clear();
}

// A device buffer for `b`: an input holding `data`, any other buffer the poison, so an
// element a run never writes shows.
// What a buffer holds on the device for float32 values `data`: the values, or for a half
// buffer each rounded to a half.
inline std::vector<char> device_values(const BufferInfo& b, const std::vector<char>& data) {
  if (!b.half) return data;
  std::vector<char> halves(b.device_bytes());
  for (size_t e = 0; e < b.elements; ++e) {
    float f;
    std::memcpy(&f, &data[e * 4], 4);
    uint16_t h = liftc::half::from_float(f);
    std::memcpy(&halves[e * 2], &h, 2);
  }
  return halves;
}

inline cl_mem make_buffer(cl_context context, cl_command_queue queue, const BufferInfo& b, const std::vector<char>& data) {
  cl_int err;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, b.device_bytes(), nullptr, &err);
  check(err, std::string("allocating buffer ") + b.name);
  std::vector<char> values = b.role == 0 ? device_values(b, data) : std::vector<char>();
  const void* upload = values.data();
  err = b.role == 0 ? clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, b.device_bytes(), upload, 0, nullptr, nullptr)
        : b.half    ? clEnqueueFillBuffer(queue, m, &kPoisonHalf, 2, 0, b.device_bytes(), 0, nullptr, nullptr)
                    : clEnqueueFillBuffer(queue, m, &kPoison, 4, 0, b.device_bytes(), 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clFinish(queue);
  if (err != CL_SUCCESS) {
    clReleaseMemObject(m);
    check(err, std::string(b.role == 0 ? "writing " : "poisoning ") + b.name);
  }
  return m;
}

// When a run needs each buffer: the first and the last step (a kernel or a library call,
// counted over every stage in order) whose arguments name it. A buffer no step names is
// needed by the first step only.
struct Span {
  size_t first = 0, last = 0;
};

inline std::vector<Span> buffer_spans(const PlanInfo& plan) {
  std::vector<Span> spans(plan.buffers.size());
  std::vector<bool> named(plan.buffers.size(), false);
  size_t step = 0;
  for (const StageInfo& stage : plan.stages)
    for (const KernelInfo& k : stage.kernels) {
      for (const ArgInfo& a : k.args) {
        if (a.buffer < 0) continue;
        size_t b = static_cast<size_t>(a.buffer);
        if (!named[b]) spans[b].first = step, named[b] = true;
        spans[b].last = step;
      }
      ++step;
    }
  return spans;
}

#ifdef LIFTC_HOST_CLBLAST
inline std::string clblast_failure(const std::string& what, CLBlastStatusCode s) {
  return "CLBlast " + what + " failed with status " + std::to_string(static_cast<int>(s)) +
         (s == CLBlastOpenCLBuildProgramFailure ? " (its kernel does not compile with the point's parameters)"
          : s == CLBlastInvalidLocalThreadsDim || s == CLBlastInvalidLocalThreadsTotal
              ? " (the work-group the point's parameters ask for is invalid on this device)"
          : s == CLBlastInvalidLocalMemUsage ? " (the point's parameters need more local memory than the device has)"
                                             : "");
}
#endif

// Gives CLBlast the tuning parameters of every library call of `plan` (one
// CLBlastOverrideParameters per library kernel). CLBlast keeps one set per device and kernel
// for the whole process and recompiles its kernel at the next call after a change, so a set
// already given for the device is not given again. Returns whether one was given (CLBlast
// then compiles at the next call).
inline bool set_library_parameters(cl_device_id device, const PlanInfo& plan) {
  bool given_now = false;
  for (const StageInfo& stage : plan.stages)
    for (const KernelInfo& k : stage.kernels) {
      if (!k.library) continue;
#ifdef LIFTC_HOST_CLBLAST
      static std::map<std::pair<cl_device_id, std::string>, std::vector<std::pair<std::string, size_t>>> given;
      std::map<std::string, std::vector<std::pair<std::string, size_t>>> by_kernel;
      for (const ParamInfo& p : k.params) by_kernel[p.kernel].emplace_back(p.name, p.value);
      for (const auto& [kernel, values] : by_kernel) {
        auto& last = given[{device, kernel}];
        if (last == values) continue;
        std::vector<const char*> names;
        std::vector<size_t> numbers;
        for (const auto& v : values) names.push_back(v.first.c_str()), numbers.push_back(v.second);
        CLBlastStatusCode s = CLBlastOverrideParameters(device, kernel.c_str(), CLBlastPrecisionSingle, names.size(),
                                                        names.data(), numbers.data());
        if (s != CLBlastSuccess) fail(clblast_failure("OverrideParameters(" + kernel + ")", s));
        last = values;
        given_now = true;
      }
#else
      (void)device;
      fail(std::string("this program was built without CLBlast: it cannot call ") + k.library);
#endif
    }
  return given_now;
}

// Enqueues library call `k` on `mems` (its buffers are its args), `event` its last kernel's.
inline void call_library(cl_command_queue queue, const KernelInfo& k, const std::vector<cl_mem>& mems, cl_event* event) {
#ifdef LIFTC_HOST_CLBLAST
  cl_mem a = mems[static_cast<size_t>(k.args[0].buffer)], b = mems[static_cast<size_t>(k.args[1].buffer)],
         c = mems[static_cast<size_t>(k.args[2].buffer)];
  const std::vector<size_t>& s = k.sizes;
  CLBlastStatusCode status;
  if (std::string(k.library) == "clblast-convgemm")  // liftc's convolutions: a window times a kernel as written
    status = CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8],
                              s[9], s[10], s[11], s[12], a, 0, b, 0, c, 0, &queue, event);
  else
    status = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, s[0], s[1], s[2], 1.0f, a, 0,
                          s[2], b, 0, s[1], 0.0f, c, 0, s[1], &queue, event);
  if (status != CLBlastSuccess) fail(clblast_failure(k.library, status));
#else
  (void)queue, (void)mems, (void)event;
  fail(std::string("this program was built without CLBlast: it cannot call ") + k.library);
#endif
}

// Makes every library call of `plan` once and waits, each on buffers of its own made for
// it and released after it (no more than that step holds in a run): CLBlast compiles a
// routine's kernels at its first call after its parameters change, which this pays for.
inline void prime_library_calls(cl_context context, cl_command_queue queue, const PlanInfo& plan) {
  for (const StageInfo& stage : plan.stages)
    for (const KernelInfo& k : stage.kernels) {
      if (!k.library) continue;
      std::vector<cl_mem> mems(plan.buffers.size(), nullptr);
      cl_int err = CL_SUCCESS;
      try {
        for (const ArgInfo& a : k.args) {
          size_t b = static_cast<size_t>(a.buffer);
          if (a.buffer < 0 || mems[b]) continue;
          mems[b] = clCreateBuffer(context, CL_MEM_READ_WRITE, plan.buffers[b].device_bytes(), nullptr, &err);
          check(err, std::string("allocating buffer ") + plan.buffers[b].name);
        }
        cl_event event = nullptr;
        call_library(queue, k, mems, &event);
        if (event) clReleaseEvent(event);
        err = clFinish(queue);
      } catch (...) {
        for (cl_mem m : mems)
          if (m) clReleaseMemObject(m);
        throw;
      }
      for (cl_mem m : mems)
        if (m) clReleaseMemObject(m);
      check(err, "running the library calls once");
    }
}

// What a launch refused for its resources can say of why: the compiled kernel's own
// work-group limit on the device (CL_KERNEL_WORK_GROUP_SIZE, lowered by its registers and
// local memory) beside the work-group asked for; "" for another failure.
inline std::string work_group_note(cl_command_queue queue, const KernelInfo& k, cl_kernel kernel, cl_int err) {
  if (!k.has_local || (err != CL_OUT_OF_RESOURCES && err != CL_INVALID_WORK_GROUP_SIZE)) return "";
  cl_device_id device = nullptr;
  size_t limit = 0, asked = 1;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device, nullptr) != CL_SUCCESS ||
      clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit, nullptr) != CL_SUCCESS)
    return "";
  for (cl_uint d = 0; d < k.dims; ++d) asked *= k.local[d];
  return " (work-groups of " + std::to_string(asked) + " work-items; compiled for this device the kernel reports a " +
         "limit of " + std::to_string(limit) + ", CL_KERNEL_WORK_GROUP_SIZE: its registers and local memory; a " +
         "smaller work-group may run)";
}

// Sets the arguments of kernel `kernel` of step `k` to `mems` and the step's sizes.
inline void set_step_args(const KernelInfo& k, cl_kernel kernel, const std::vector<cl_mem>& mems) {
  for (size_t a = 0; a < k.args.size(); ++a) {
    const ArgInfo& arg = k.args[a];
    cl_int err = arg.buffer >= 0
                     ? clSetKernelArg(kernel, static_cast<cl_uint>(a), sizeof(cl_mem), &mems[static_cast<size_t>(arg.buffer)])
                     : clSetKernelArg(kernel, static_cast<cl_uint>(a), sizeof(int), &arg.value);
    check(err, std::string("setting argument of ") + k.name);
  }
}

// Runs one step (kernel `kernel`, or a library call) on `mems` and waits for it; returns
// its time (OpenCL event profiling, ms). A library call may enqueue several kernels and
// gives the event of its last one only: it is timed from a marker enqueued before it.
inline double run_step(cl_command_queue queue, const KernelInfo& k, cl_kernel kernel, const std::vector<cl_mem>& mems) {
  if (k.library) {
    cl_event before, event = nullptr;
    check(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &before), "enqueueing a marker");
    try {
      call_library(queue, k, mems, &event);
    } catch (...) {
      clReleaseEvent(before);
      throw;
    }
    cl_int waited = clFinish(queue);
    cl_ulong start = 0, end = 0;
    clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof(start), &start, nullptr);
    if (event) clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
    clReleaseEvent(before);
    if (event) clReleaseEvent(event);
    check(waited, std::string("running ") + k.library);
    return end > start ? double(end - start) * 1e-6 : 0.0;
  }
  set_step_args(k, kernel, mems);
  cl_event event;
  cl_int launched =
      clEnqueueNDRangeKernel(queue, kernel, k.dims, nullptr, k.global, k.has_local ? k.local : nullptr, 0, nullptr, &event);
  check(launched, std::string("launching ") + k.name + work_group_note(queue, k, kernel, launched));
  cl_int waited = clWaitForEvents(1, &event);
  cl_ulong start = 0, end = 0;
  clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
  clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
  clReleaseEvent(event);
  check(waited, std::string("running ") + k.name);
  return double(end - start) * 1e-6;
}

// Reads a whole buffer back, as float32 or int32 (a half buffer's values converted exactly;
// its poison becomes kPoison, so an element never written still shows).
inline std::vector<char> read_buffer(cl_command_queue queue, cl_mem mem, const BufferInfo& b) {
  std::vector<char> data(b.device_bytes());
  check(clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, data.size(), data.data(), 0, nullptr, nullptr),
        std::string("reading ") + b.name);
  if (!b.half) return data;
  std::vector<char> floats(b.elements * 4);
  for (size_t e = 0; e < b.elements; ++e) {
    uint16_t h;
    std::memcpy(&h, &data[e * 2], 2);
    float f = liftc::half::to_float(h);
    if (h == kPoisonHalf) std::memcpy(&f, &kPoison, 4);
    std::memcpy(&floats[e * 4], &f, 4);
  }
  return floats;
}

// What a run gives: each output's data (by buffer index; empty for the other buffers), each
// step's time in order (ms), and the most bytes of device buffers it held at once.
struct RunResult {
  std::vector<std::vector<char>> outputs;
  std::vector<double> times;
  size_t peak_bytes = 0;
};

// Runs every step of every stage in order, holding each buffer only while the run needs it
// (buffer_spans): it is made before its first step (an input holding `inputs[i]`, any other
// buffer the poison), and after its last step an output is read back, then it is released.
// The device then holds at once the buffers of the step that runs and those alive across
// it, as liftc's memory objective counts them (a network: each buffer freed after its last
// reader), and the most it held is RunResult::peak_bytes.
//
// With `layer_inputs` (the expected values of the outputs, by buffer index), each step reads
// the outputs that earlier steps made as those values: before it, each output an earlier
// step made is read back, once (what the steps before gave it: its result), and written with
// its expected values. Each layer then runs on the values the interpreter gave the layers it
// reads, as liftc explore validated it, so a difference an earlier layer left within the
// tolerance (half storage's rounding) is not carried into its result. An output that several
// steps write is read back after the first: its result then holds the poison where the later
// ones write, and does not pass.
inline RunResult run_plan(cl_context context, cl_command_queue queue, const PlanInfo& plan, const BuiltPlan& built,
                          const std::vector<std::vector<char>>& inputs,
                          const std::vector<std::vector<char>>* layer_inputs = nullptr) {
  std::vector<Span> spans = buffer_spans(plan);
  std::vector<cl_mem> mems(plan.buffers.size(), nullptr);
  std::vector<bool> read_back(plan.buffers.size(), false);
  RunResult result;
  result.outputs.resize(plan.buffers.size());
  size_t held = 0, step = 0;
  try {
    for (size_t s = 0; s < plan.stages.size(); ++s)
      for (size_t i = 0; i < plan.stages[s].kernels.size(); ++i, ++step) {
        for (size_t b = 0; layer_inputs && step > 0 && b < plan.buffers.size(); ++b) {
          const BufferInfo& info = plan.buffers[b];
          if (info.role != 1 || !mems[b] || (*layer_inputs)[b].empty()) continue;
          if (!read_back[b]) result.outputs[b] = read_buffer(queue, mems[b], info);
          read_back[b] = true;
          std::vector<char> values = device_values(info, (*layer_inputs)[b]);
          check(
              clEnqueueWriteBuffer(queue, mems[b], CL_TRUE, 0, info.device_bytes(), values.data(), 0, nullptr, nullptr),
              std::string("writing the expected values of ") + info.name);
        }
        for (size_t b = 0; b < plan.buffers.size(); ++b) {
          if (spans[b].first != step) continue;
          mems[b] = make_buffer(context, queue, plan.buffers[b], inputs[b]);
          held += plan.buffers[b].device_bytes();
        }
        result.peak_bytes = std::max(result.peak_bytes, held);
        result.times.push_back(run_step(queue, plan.stages[s].kernels[i], built.kernels[s][i], mems));
        for (size_t b = 0; b < plan.buffers.size(); ++b) {
          if (spans[b].last != step) continue;
          if (plan.buffers[b].role == 1 && !read_back[b])
            result.outputs[b] = read_buffer(queue, mems[b], plan.buffers[b]);
          clReleaseMemObject(mems[b]);
          mems[b] = nullptr;
          held -= plan.buffers[b].device_bytes();
        }
      }
  } catch (...) {
    for (cl_mem m : mems)
      if (m) clReleaseMemObject(m);
    throw;
  }
  // A plan without steps writes nothing: its outputs hold the poison.
  for (size_t b = 0; b < plan.buffers.size(); ++b)
    if (plan.buffers[b].role == 1 && step == 0)
      for (size_t e = 0; e < plan.buffers[b].elements; ++e)
        result.outputs[b].insert(result.outputs[b].end(), reinterpret_cast<const char*>(&kPoison),
                                 reinterpret_cast<const char*>(&kPoison) + 4);
  return result;
}

// A whole-number flag's value of at least 1 (--repeat), or fail.
inline int count_flag(const char* flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || n < 1 || n > 1000000)
    fail(std::string(flag) + " takes a whole number from 1 to 1000000, not '" + text + "'");
  return static_cast<int>(n);
}

// Two times of `repeats` runs of the plan each (ms each, in order), as a deployed program
// runs it: every buffer made once (the inputs uploaded, the others the poison) and held
// through all runs, each run's steps enqueued back to back without waiting.
// - wall: the host's clock, read before the first step is enqueued and after clFinish;
//   these runs ask for no event;
// - span: then as many runs again, timed on the device's clock (event profiling) from the
//   first step's start to the last step's end, as CUDA events recorded around a run (a CUDA
//   graph's replay) measure it: the kernels and the gaps between them, without the host's
//   wait for clFinish. Only the first and last steps ask for an event, and no marker is
//   enqueued unless the first step is a library call (whose own event is its last kernel's):
//   on an H200 a marker before each run doubled the wall time of MobileNetV2's blocks.
// Unlike run_plan's event times of each step, both count the gaps between kernels.
struct PlanRunTimes {
  std::vector<double> wall, span;
};

inline PlanRunTimes time_plan_runs(cl_context context, cl_command_queue queue, const PlanInfo& plan,
                                   const BuiltPlan& built, const std::vector<std::vector<char>>& inputs, int repeats) {
  std::vector<cl_mem> mems(plan.buffers.size(), nullptr);
  PlanRunTimes times;
  cl_event first = nullptr, last = nullptr;
  bool first_is_marker = false;
  auto release_events = [&] {
    if (first) clReleaseEvent(first);
    if (last && last != first) clReleaseEvent(last);
    first = last = nullptr;
  };
  auto release_all = [&] {
    release_events();
    for (cl_mem& m : mems) {
      if (m) clReleaseMemObject(m);
      m = nullptr;
    }
  };
  // One run enqueued; with `timed`, `first` and `last` get the span's ends (`first` a
  // marker's when the first step is a library call, read at its end, else the kernel's, read
  // at its start).
  auto enqueue_run = [&](bool timed) {
    size_t step = 0, steps = 0;
    for (const StageInfo& stage : plan.stages) steps += stage.kernels.size();
    for (size_t s = 0; s < plan.stages.size(); ++s)
      for (size_t i = 0; i < plan.stages[s].kernels.size(); ++i, ++step) {
        const KernelInfo& k = plan.stages[s].kernels[i];
        bool ends = timed && step + 1 == steps;
        if (k.library) {
          if (timed && step == 0) {
            check(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &first), "enqueueing a marker");
            first_is_marker = true;
          }
          cl_event event = nullptr;
          call_library(queue, k, mems, &event);
          if (ends) last = event;
          else if (event) clReleaseEvent(event);
          continue;
        }
        cl_kernel kernel = built.kernels[s][i];
        set_step_args(k, kernel, mems);
        cl_event event = nullptr;
        bool wanted = timed && (step == 0 || ends);
        cl_int launched = clEnqueueNDRangeKernel(queue, kernel, k.dims, nullptr, k.global,
                                                 k.has_local ? k.local : nullptr, 0, nullptr, wanted ? &event : nullptr);
        check(launched, std::string("launching ") + k.name + work_group_note(queue, k, kernel, launched));
        if (step == 0 && wanted) first = event;
        if (ends) last = event;
      }
  };
  try {
    for (size_t b = 0; b < plan.buffers.size(); ++b) mems[b] = make_buffer(context, queue, plan.buffers[b], inputs[b]);
    check(clFinish(queue), "uploading the inputs");
    for (int r = 0; r < repeats; ++r) {
      auto start = std::chrono::steady_clock::now();
      enqueue_run(false);
      check(clFinish(queue), "running the kernels");
      times.wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    for (int r = 0; r < repeats; ++r) {
      enqueue_run(true);
      check(clFinish(queue), "running the kernels");
      cl_ulong from = 0, to = 0;
      if (first)
        clGetEventProfilingInfo(first, first_is_marker ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START, sizeof(from),
                                &from, nullptr);
      if (last) clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(to), &to, nullptr);
      times.span.push_back(to > from ? double(to - from) * 1e-6 : 0.0);
      release_events();
    }
  } catch (...) {
    release_all();
    throw;
  }
  release_all();
  return times;
}

// A host's main: runs `run` with SIGXFSZ ignored (a write over a file-size limit then fails
// with EFBIG and is reported, instead of a kill); a failure is "error: " and its one-line
// message on stderr, and exit code 1.
inline int host_main(int (*run)(int, char**), int argc, char** argv) {
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // Failure, and a library's own errors
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace liftc_host
