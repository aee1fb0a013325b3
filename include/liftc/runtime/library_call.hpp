#pragma once
// What a library call of a launch plan may ask for (CLBlast's Sconvgemm and Sgemm): its
// size arguments against the buffers it is given, and the tuning parameters liftc gives
// CLBlast's kernels against their domains and CLBlast's tuner's constraints. One table for
// the three that read such calls: explore's search (src/explore/candidates/library.cpp enumerates its
// points from it), deploy's check of the plans it reads, and liftc-runner's check of a
// bundle (src/runner/bundle_reader.cpp). CLBlast checks neither: Convgemm reads past an
// image smaller than its sizes say (the runner segfaulted), WGD = 0 divides by zero and
// KWID = 0 never ends.
//
// Standard C++17 only, header-only: liftc-runner includes it and builds on its own (for a
// phone, with the Android NDK).

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace liftc::library_call {

/// A routine a library call may name, and how many size arguments and buffers it takes.
struct Routine {
  const char* name;
  std::size_t sizes, buffers;
};

/// Every routine, in the order of src/runner/README.md's table: Convgemm's sizes are C H W
/// KH KW PAD_H PAD_W STRIDE_H STRIDE_W DILATION_H DILATION_W M BATCH on the buffers image,
/// kernels, result; Gemm's are M N K on A, B, C (row-major).
inline constexpr Routine kRoutines[] = {{"clblast-convgemm", 13, 3}, {"clblast-gemm", 3, 3}};

/// The routine named `name`, or nullptr.
inline const Routine* find_routine(const std::string& name) {
  for (const Routine& r : kRoutines)
    if (name == r.name) return &r;
  return nullptr;
}

namespace detail {

// a * b, or UINT64_MAX when that does not fit (no size of a real buffer is near it).
inline std::uint64_t times(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

// "" when `buffer` (of `has` elements) holds the `needs` the call reads or writes; else why not.
inline std::string holds(const char* buffer, std::uint64_t needs, std::uint64_t has) {
  if (needs <= has) return "";
  return std::string("its ") + buffer + " needs " +
         (needs == UINT64_MAX ? std::string("2^64 or more") : std::to_string(needs)) + " elements, the buffer has " +
         std::to_string(has);
}

}  // namespace detail

/// Why a call of `routine` with `sizes` (as many as it takes) on buffers of `elements`
/// 4-byte elements each (as many as it takes, in its order) would read or write outside
/// them, or take a size no call can have (a stride, dilation or count of 0; a kernel
/// larger than the padded image); "" when it stays inside.
inline std::string check_sizes(const std::string& routine, const std::vector<std::uint64_t>& sizes,
                               const std::vector<std::uint64_t>& elements) {
  const Routine* r = find_routine(routine);
  if (!r || sizes.size() != r->sizes || elements.size() != r->buffers) return "not a call of " + routine;
  using detail::times;
  for (std::uint64_t size : sizes)
    if (size > 0xFFFFFFFFu) return "a size of " + std::to_string(size) + ", past 2^32 - 1";
  if (r->name == std::string("clblast-gemm")) {
    const std::uint64_t m = sizes[0], n = sizes[1], k = sizes[2];
    if (m == 0 || n == 0 || k == 0) return "M, N and K must be at least 1";
    for (const std::string& why : {detail::holds("A", times(m, k), elements[0]), detail::holds("B", times(k, n), elements[1]),
                                   detail::holds("C", times(m, n), elements[2])})
      if (!why.empty()) return why;
    return "";
  }
  const std::uint64_t c = sizes[0], h = sizes[1], w = sizes[2], kh = sizes[3], kw = sizes[4], pad_h = sizes[5],
                      pad_w = sizes[6], stride_h = sizes[7], stride_w = sizes[8], dilation_h = sizes[9],
                      dilation_w = sizes[10], m = sizes[11], batch = sizes[12];
  if (c == 0 || h == 0 || w == 0 || kh == 0 || kw == 0 || m == 0 || batch == 0)
    return "C, H, W, KH, KW, M and BATCH must be at least 1";
  if (stride_h == 0 || stride_w == 0 || dilation_h == 0 || dilation_w == 0)
    return "the strides and dilations must be at least 1";
  // Every size is below 2^32, so these sums and products of two fit.
  const std::uint64_t span_h = dilation_h * (kh - 1) + 1, span_w = dilation_w * (kw - 1) + 1;
  if (h + 2 * pad_h < span_h || w + 2 * pad_w < span_w) return "the kernel is larger than the padded image";
  const std::uint64_t oh = (h + 2 * pad_h - span_h) / stride_h + 1, ow = (w + 2 * pad_w - span_w) / stride_w + 1;
  for (const std::string& why :
       {detail::holds("image", times(times(batch, c), times(h, w)), elements[0]),
        detail::holds("kernels", times(times(m, c), times(kh, kw)), elements[1]),
        detail::holds("result", times(times(batch, m), times(oh, ow)), elements[2])})
    if (!why.empty()) return why;
  return "";
}

/// One tuning parameter of a CLBlast kernel: the values liftc may give it (CLBlast's
/// tuner's domain, as liftc searches it: the first `count` of `values`), or, with `equals`,
/// the parameter whose value it must take (MDIMAD = MDIMCD: not searched).
struct Param {
  const char* name;
  std::array<std::int64_t, 4> values;
  std::size_t count;
  const char* equals;
};

/// A constraint of CLBlast's tuner between parameters: `multiple` % (`factor` * `by`) == 0
/// (`by` may be null: 1).
struct Divides {
  const char* multiple;
  const char* factor;
  const char* by;
};

/// A kernel CLBlast lets a call tune, its parameters (in the order liftc searches them) and
/// their constraints. The local-memory and work-group limits are the device's (explore
/// checks them against the target, the device refuses them itself).
struct Kernel {
  const char* name;
  const Param* params;
  std::size_t param_count;
  const Divides* constraints;
  std::size_t constraint_count;
};

/// XgemmDirect's parameters, also those of Convgemm's kernel Xconvgemm (CLBlast's tuner's
/// variation 1: MDIMAD = MDIMCD, NDIMBD = NDIMCD; PADA = PADB = 1).
inline constexpr Param kDirectParams[] = {
    {"WGD", {8, 16, 32, 64}, 4, nullptr}, {"MDIMCD", {8, 16, 32}, 3, nullptr}, {"NDIMCD", {8, 16, 32}, 3, nullptr},
    {"MDIMAD", {}, 0, "MDIMCD"},          {"NDIMBD", {}, 0, "NDIMCD"},         {"KWID", {2, 8}, 2, nullptr},
    {"VWMD", {1, 2, 4}, 3, nullptr},      {"VWND", {1, 2, 4}, 3, nullptr},     {"PADA", {1}, 1, nullptr},
    {"PADB", {1}, 1, nullptr}};
inline constexpr Divides kDirectConstraints[] = {{"WGD", "KWID", nullptr},
                                                 {"WGD", "MDIMCD", "VWMD"},
                                                 {"WGD", "NDIMCD", "VWND"},
                                                 {"WGD", "MDIMCD", nullptr},
                                                 {"WGD", "NDIMCD", nullptr}};

/// The indirect Xgemm's parameters (a subset of its tuner's domains; the rest fixed:
/// GEMMK 0, KREG 1, KWI 2, MDIMA = MDIMC, NDIMB = NDIMC, STRM = STRN = 0).
inline constexpr Param kIndirectParams[] = {
    {"MWG", {16, 32, 64}, 3, nullptr}, {"NWG", {16, 32, 64}, 3, nullptr}, {"KWG", {16, 32}, 2, nullptr},
    {"MDIMC", {8, 16}, 2, nullptr},    {"NDIMC", {8, 16}, 2, nullptr},    {"VWM", {1, 2, 4}, 3, nullptr},
    {"VWN", {1, 2, 4}, 3, nullptr},    {"SA", {0, 1}, 2, nullptr},        {"SB", {0, 1}, 2, nullptr},
    {"MDIMA", {}, 0, "MDIMC"},         {"NDIMB", {}, 0, "NDIMC"},         {"GEMMK", {0}, 1, nullptr},
    {"KREG", {1}, 1, nullptr},         {"KWI", {2}, 1, nullptr},          {"STRM", {0}, 1, nullptr},
    {"STRN", {0}, 1, nullptr}};
// KWG % (MDIMC * NDIMC / MDIMA) and KWG % (MDIMC * NDIMC / NDIMB) with MDIMA = MDIMC, NDIMB = NDIMC.
inline constexpr Divides kIndirectConstraints[] = {{"KWG", "KWI", nullptr},
                                                   {"MWG", "MDIMC", "VWM"},
                                                   {"NWG", "NDIMC", "VWN"},
                                                   {"KWG", "NDIMC", nullptr},
                                                   {"KWG", "MDIMC", nullptr}};

/// Gemm's choice between its direct and indirect kernel: the size from which it goes
/// indirect; liftc sets it so that the alternative's kernel is taken.
inline constexpr Param kRoutineParams[] = {{"XGEMM_MIN_INDIRECT_SIZE", {0, 1048576}, 2, nullptr}};

/// Every kernel a call may tune, by its name in CLBlastOverrideParameters.
inline constexpr Kernel kKernels[] = {
    {"Xconvgemm", kDirectParams, std::size(kDirectParams), kDirectConstraints, std::size(kDirectConstraints)},
    {"XgemmDirect", kDirectParams, std::size(kDirectParams), kDirectConstraints, std::size(kDirectConstraints)},
    {"Xgemm", kIndirectParams, std::size(kIndirectParams), kIndirectConstraints, std::size(kIndirectConstraints)},
    {"GemmRoutine", kRoutineParams, std::size(kRoutineParams), nullptr, 0}};

/// The kernels `routine` lets a call tune: Convgemm's Xconvgemm; Gemm's XgemmDirect, Xgemm
/// and its routine's choice.
inline bool tunes(const std::string& routine, const std::string& kernel) {
  if (routine == "clblast-convgemm") return kernel == "Xconvgemm";
  return routine == "clblast-gemm" && (kernel == "XgemmDirect" || kernel == "Xgemm" || kernel == "GemmRoutine");
}

/// The kernel named `name`, or nullptr.
inline const Kernel* find_kernel(const std::string& name) {
  for (const Kernel& k : kKernels)
    if (name == k.name) return &k;
  return nullptr;
}

/// One kernel's parameter values, by name.
using Values = std::map<std::string, std::int64_t>;

/// Whether `v` meets `kernel`'s constraints (a constraint whose parameters are not all in
/// `v` is not checked: CLBlast refuses an override that misses one).
inline bool constraints_hold(const Kernel& kernel, const Values& v) {
  for (std::size_t i = 0; i < kernel.constraint_count; ++i) {
    const Divides& d = kernel.constraints[i];
    auto multiple = v.find(d.multiple), factor = v.find(d.factor), by = d.by ? v.find(d.by) : v.end();
    if (multiple == v.end() || factor == v.end() || (d.by && by == v.end())) continue;
    const std::int64_t divisor = factor->second * (d.by ? by->second : 1);
    if (divisor <= 0 || multiple->second % divisor != 0) return false;
  }
  return true;
}

/// The text of a constraint, as its messages and `liftc space` show it ("WGD % (MDIMCD * VWMD) == 0").
inline std::string constraint_text(const Divides& d) {
  return std::string(d.multiple) + " % " +
         (d.by ? "(" + std::string(d.factor) + " * " + d.by + ")" : std::string(d.factor)) + " == 0";
}

/// One tuning parameter a call sets: CLBlast's kernel, the parameter, its value.
struct Setting {
  std::string kernel, name;
  std::int64_t value = 0;
};

/// Why the tuning parameters of a `routine` call are refused, or "": each names a kernel the
/// routine tunes and one of that kernel's parameters, at most once, with a value of its
/// domain (or the value of the parameter it equals); each kernel's constraints hold.
inline std::string check_parameters(const std::string& routine, const std::vector<Setting>& settings) {
  std::map<std::string, Values> by_kernel;
  for (const Setting& s : settings) {
    const Kernel* kernel = tunes(routine, s.kernel) ? find_kernel(s.kernel) : nullptr;
    if (!kernel) return routine + " tunes no kernel " + s.kernel;
    const Param* param = nullptr;
    for (std::size_t i = 0; i < kernel->param_count; ++i)
      if (s.name == kernel->params[i].name) param = &kernel->params[i];
    if (!param) return s.kernel + " has no parameter " + s.name;
    if (!by_kernel[s.kernel].emplace(s.name, s.value).second) return s.kernel + "." + s.name + " is given twice";
    if (param->equals) continue;  // checked below, against the parameter it equals
    bool in_domain = false;
    std::string domain;
    for (std::size_t i = 0; i < param->count; ++i) {
      in_domain = in_domain || param->values[i] == s.value;
      domain += (i ? ", " : "") + std::to_string(param->values[i]);
    }
    if (!in_domain) return s.kernel + "." + s.name + " = " + std::to_string(s.value) + " is not one of " + domain;
  }
  for (const auto& [name, values] : by_kernel) {
    const Kernel& kernel = *find_kernel(name);
    for (std::size_t i = 0; i < kernel.param_count; ++i) {
      const Param& p = kernel.params[i];
      auto it = values.find(p.name), source = p.equals ? values.find(p.equals) : values.end();
      if (p.equals && it != values.end() && (source == values.end() || source->second != it->second))
        return name + "." + p.name + " = " + std::to_string(it->second) + " must equal " + p.equals;
    }
    for (std::size_t i = 0; i < kernel.constraint_count; ++i)
      if (!constraints_hold({kernel.name, nullptr, 0, &kernel.constraints[i], 1}, values))
        return name + ": " + constraint_text(kernel.constraints[i]) + " does not hold";
  }
  return "";
}

}  // namespace liftc::library_call
