// liftc-runner's bundle reader (src/runner/bundle_reader.cpp) on its own: a well-formed
// bundle.txt reads into what it says; every malformed one, and every file that is not a
// small regular file, is a Failure with status "runner" and the exact one-line reason.
// Rows marked "issue 20" are the hostile-user test's inputs; fuzz_bundle's findings would go
// here too (its 300 s run found none: tests/fuzz/README.md).

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "bundle_reader.hpp"
#include "test_folder.hpp"

namespace liftc_runner {
namespace {

namespace fs = std::filesystem;

const char* const kWhere = "b/bundle.txt";

TEST(BundleReader, AWellFormedBundleReadsAsWritten) {
  Bundle b = parse_bundle(
      "# written by hand\n"
      "liftc-bundle 1\r\n"
      "device  NVIDIA H100 \n"
      "lock /tmp/x y.lock\n"
      "warmup 0\nruns 7\ncutoff_ms 2.5\ntolerance 1e-4 0\ncanary 64\n"
      "live_cutoff 5 12650496 /tmp/explore x/validated-points\n"
      "options -cl-mad-enable -DX=1\n"
      "buffer a f32 64 input\nbuffer idx i32 3 output\nbuffer tmp0 f32 1 scratch\n"
      "kernel k 2 64 8 1 16 4 1\n"
      "arg buffer 2\narg int -2147483648\narg float -1.5e3\narg local 4096\n"
      "kernel k2 1 5 1 1 0 0 0\n",
      kWhere);
  EXPECT_EQ(b.device, "NVIDIA H100 ");
  EXPECT_EQ(b.lock, "/tmp/x y.lock");
  EXPECT_EQ(b.build_options, "-cl-mad-enable -DX=1");
  EXPECT_EQ(b.warmup, 0);
  EXPECT_EQ(b.runs, 7);
  EXPECT_EQ(b.cutoff_ms, 2.5);
  EXPECT_EQ(b.live_factor, 5);
  EXPECT_EQ(b.live_memory, 12650496u);
  EXPECT_EQ(b.live_path, "/tmp/explore x/validated-points");
  EXPECT_EQ(b.rtol, 1e-4);
  EXPECT_EQ(b.atol, 0);
  EXPECT_EQ(b.canary, 64u);
  ASSERT_EQ(b.buffers.size(), 3u);
  EXPECT_FALSE(b.buffers[1].is_float);
  EXPECT_EQ(b.buffers[1].count, 3u);
  EXPECT_EQ(b.buffers[1].role, "output");
  ASSERT_EQ(b.kernels.size(), 2u);
  const KernelDesc& k = b.kernels[0];
  EXPECT_EQ(k.dims, 2u);
  EXPECT_EQ(k.global[1], 8u);
  EXPECT_EQ(k.local[0], 16u);
  ASSERT_EQ(k.args.size(), 4u);
  EXPECT_EQ(k.args[0].kind, ArgDesc::Kind::Buffer);
  EXPECT_EQ(k.args[0].buffer, 2u);
  EXPECT_EQ(k.args[1].int_value, -2147483647 - 1);
  EXPECT_EQ(k.args[2].float_value, -1500.0f);
  EXPECT_EQ(k.args[3].local_bytes, 4096u);
  EXPECT_EQ(b.kernels[1].local[0], 0u);
  EXPECT_FALSE(b.buffers[1].allowance);
}

// Issue 36 item 2: an `allowance` line marks its output as compared with allowance/NAME.bin.
TEST(BundleReader, AnAllowanceLineMarksItsOutput) {
  Bundle b = parse_bundle("liftc-bundle 1\nbuffer in f32 4 input\nbuffer out f32 4 output\nallowance out\n", kWhere);
  ASSERT_EQ(b.buffers.size(), 2u);
  EXPECT_FALSE(b.buffers[0].allowance);
  EXPECT_TRUE(b.buffers[1].allowance);
}

TEST(BundleReader, ALibraryCallReadsWithItsSizesParametersAndBuffers) {
  Bundle b = parse_bundle(std::string("liftc-bundle 1\n") +
                              "buffer a f32 6 input\nbuffer b f32 12 input\nbuffer c f32 8 output\n"
                              "library clblast-gemm 2 4 3\narg buffer 0\narg buffer 1\narg buffer 2\n"
                              "param GemmRoutine XGEMM_MIN_INDIRECT_SIZE 0\nparam Xgemm MWG 16\n",
                          kWhere);
  ASSERT_EQ(b.kernels.size(), 1u);
  const KernelDesc& k = b.kernels[0];
  EXPECT_EQ(k.library, "clblast-gemm");
  EXPECT_EQ(k.sizes, (std::vector<std::uint64_t>{2, 4, 3}));
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[1].kernel, "Xgemm");
  EXPECT_EQ(k.params[1].name, "MWG");
  EXPECT_EQ(k.params[1].value, 16u);
  EXPECT_EQ(k.args.size(), 3u);
}

struct MalformedCase {
  const char* what;
  std::string text;  // bundle.txt
  const char* reason;
};

const std::string kHead = "liftc-bundle 1\n";
const std::string kKernel = kHead + "buffer a f32 4 input\nkernel k 1 4 1 1 0 0 0\n";

TEST(BundleReader, MalformedBundlesAreRunnerFailuresNamingTheLine) {
  const MalformedCase cases[] = {
      {"empty", "", "b/bundle.txt has no 'liftc-bundle 1' line: not a bundle"},
      {"comments only", "# nothing\n\n", "b/bundle.txt has no 'liftc-bundle 1' line: not a bundle"},
      {"no header (issue 20)", "device x\nruns 3\n", "b/bundle.txt:1: expected 'liftc-bundle 1' first"},
      {"header after a directive", "# c\nruns 3\nliftc-bundle 1\n", "b/bundle.txt:2: expected 'liftc-bundle 1' first"},
      {"version 2", "liftc-bundle 2\n", "b/bundle.txt:1: expected 'liftc-bundle 1' first"},
      {"header with more words", "liftc-bundle 1 x\n", "b/bundle.txt:1: expected 'liftc-bundle 1' first"},
      {"two headers", kHead + kHead, "b/bundle.txt:2: a second 'liftc-bundle' line"},
      {"a NUL byte (/dev/zero's content)", std::string("liftc-bundle 1\n\0\0", 17), "b/bundle.txt holds a NUL byte: not a bundle"},
      {"unknown line", kHead + "frobnicate 3\n", "b/bundle.txt:2: unknown line 'frobnicate'"},
      {"warmup negative", kHead + "warmup -1\n", "b/bundle.txt:2: warmup must be a whole number from 0 to 1000000, not '-1'"},
      {"runs 0", kHead + "runs 0\n", "b/bundle.txt:2: runs must be a whole number from 1 to 1000000, not '0'"},
      {"runs 3x", kHead + "runs 3x\n", "b/bundle.txt:2: runs must be a whole number from 1 to 1000000, not '3x'"},
      {"runs twice", kHead + "runs 3 4\n", "b/bundle.txt:2: expected: runs N"},
      {"runs too many", kHead + "runs 99999999999999999999999\n",
       "b/bundle.txt:2: runs must be a whole number from 1 to 1000000, not '99999999999999999999999'"},
      {"cutoff nan", kHead + "cutoff_ms nan\n", "b/bundle.txt:2: cutoff_ms must be a finite number >= 0, not 'nan'"},
      {"cutoff negative", kHead + "cutoff_ms -1\n", "b/bundle.txt:2: cutoff_ms must be a finite number >= 0, not '-1'"},
      {"cutoff 1e999", kHead + "cutoff_ms 1e999\n", "b/bundle.txt:2: cutoff_ms must be a finite number >= 0, not '1e999'"},
      {"live cut-off without a path", kHead + "live_cutoff 5 100\n", "b/bundle.txt:2: expected: live_cutoff FACTOR MEMORY_BYTES PATH"},
      {"live cut-off factor 0", kHead + "live_cutoff 0 100 f\n", "b/bundle.txt:2: live_cutoff's factor must be > 0, not '0'"},
      {"live cut-off memory -1", kHead + "live_cutoff 5 -1 f\n",
       "b/bundle.txt:2: live_cutoff's memory must be a whole number from 0 to 18446744073709551615, not '-1'"},
      {"tolerance one number", kHead + "tolerance 1\n", "b/bundle.txt:2: expected: tolerance RTOL ATOL"},
      {"tolerance inf", kHead + "tolerance 0 inf\n",
       "b/bundle.txt:2: the absolute tolerance must be a finite number >= 0, not 'inf'"},
      {"canary 1e11 (issue 20)", kHead + "canary 100000000000\n",
       "b/bundle.txt:2: canary must be a whole number from 0 to 1048576, not '100000000000'"},
      {"canary not a multiple of 4", kHead + "canary 6\n", "b/bundle.txt:2: canary must be a multiple of 4 bytes, not 6"},
      {"buffer count -1 (issue 20)", kHead + "buffer a f32 -1 input\n",
       "b/bundle.txt:2: a buffer's element count must be a whole number from 1 to 274877906944, not '-1'"},
      {"buffer count 1e12 (issue 20)", kHead + "buffer a f32 1000000000000 input\n",
       "b/bundle.txt:2: a buffer's element count must be a whole number from 1 to 274877906944, not '1000000000000'"},
      {"buffer count 0", kHead + "buffer a f32 0 input\n",
       "b/bundle.txt:2: a buffer's element count must be a whole number from 1 to 274877906944, not '0'"},
      {"buffer f64", kHead + "buffer x f64 4 input\n", "b/bundle.txt:2: expected: buffer NAME f32|i32|f16 COUNT input|output|scratch"},
      {"buffer role", kHead + "buffer x f32 4 inout\n", "b/bundle.txt:2: expected: buffer NAME f32|i32|f16 COUNT input|output|scratch"},
      {"buffer name with a slash", kHead + "buffer ../x f32 4 input\n",
       "b/bundle.txt:2: a buffer name is letters, digits, '_', '-' and '.', not '../x'"},
      {"buffer missing its role", kHead + "buffer x f32 4\n", "b/bundle.txt:2: expected: buffer NAME f32|i32|f16 COUNT input|output|scratch"},
      {"kernel dims 4", kHead + "kernel k 4 1 1 1 0 0 0\n", "b/bundle.txt:2: DIMS must be a whole number from 1 to 3, not '4'"},
      {"kernel global 0", kHead + "kernel k 2 4 0 1 0 0 0\n", "b/bundle.txt:2: global size 1 of a 2-D kernel is 0"},
      {"kernel global -1", kHead + "kernel k 1 -1 1 1 0 0 0\n",
       "b/bundle.txt:2: a global size must be a whole number from 0 to 4294967295, not '-1'"},
      {"kernel local over global", kHead + "kernel k 1 4 1 1 8 1 1\n",
       "b/bundle.txt:2: local size 0 must be from 1 to the global size 4"},
      {"kernel local half chosen", kHead + "kernel k 2 4 4 1 0 2 1\n",
       "b/bundle.txt:2: L0 = 0 (the driver's choice) needs every local size 0"},
      {"kernel local 0 in a used dimension", kHead + "kernel k 2 4 4 1 2 0 1\n",
       "b/bundle.txt:2: local size 1 must be from 1 to the global size 4"},
      {"kernel name", kHead + "kernel 9k 1 4 1 1 0 0 0\n", "b/bundle.txt:2: a kernel name is an OpenCL C identifier, not '9k'"},
      {"kernel short", kHead + "kernel k 1 4 1 1\n", "b/bundle.txt:2: expected: kernel NAME DIMS G0 G1 G2 L0 L1 L2"},
      {"arg before a kernel", kHead + "arg int 1\n", "b/bundle.txt:2: an arg before any kernel"},
      {"arg buffer out of range", kKernel + "arg buffer 1\n", "b/bundle.txt:4: no buffer 1 (there are 1 before this line)"},
      {"arg buffer 0.5", kKernel + "arg buffer 0.5\n", "b/bundle.txt:4: no buffer 0.5 (there are 1 before this line)"},
      {"arg buffer -0", kKernel + "arg buffer -0\n", "b/bundle.txt:4: no buffer -0 (there are 1 before this line)"},
      {"arg int too large", kKernel + "arg int 2147483648\n", "b/bundle.txt:4: arg int must be a 32-bit whole number, not '2147483648'"},
      {"arg int 1.5", kKernel + "arg int 1.5\n", "b/bundle.txt:4: arg int must be a 32-bit whole number, not '1.5'"},
      {"arg float 1e39", kKernel + "arg float 1e39\n", "b/bundle.txt:4: arg float must be a finite 32-bit float, not '1e39'"},
      {"arg local 0", kKernel + "arg local 0\n", "b/bundle.txt:4: arg local must be a whole number from 1 to 2147483647, not '0'"},
      {"arg kind", kKernel + "arg image 0\n", "b/bundle.txt:4: expected: arg buffer INDEX | arg int V | arg float V | arg local BYTES"},
      {"a control character shown as ?", kHead + "x\x01y 1\n", "b/bundle.txt:2: unknown line 'x?y'"},
      {"library unknown", kHead + "library cublas-gemm 1 2 3\n",
       "b/bundle.txt:2: unknown library routine 'cublas-gemm' (clblast-convgemm, clblast-gemm)"},
      {"library sizes", kHead + "library clblast-gemm 1 2\n", "b/bundle.txt:2: library clblast-gemm takes 3 sizes, not 2"},
      {"library size -1", kHead + "library clblast-gemm 1 2 -1\n",
       "b/bundle.txt:2: a library size must be a whole number from 0 to 4294967295, not '-1'"},
      {"library size 2^32", kHead + "library clblast-gemm 1 2 4294967296\n",
       "b/bundle.txt:2: a library size must be a whole number from 0 to 4294967295, not '4294967296'"},
      {"library without a routine", kHead + "library\n", "b/bundle.txt:2: expected: library ROUTINE SIZE..."},
      {"library convgemm with 12 sizes", kHead + "library clblast-convgemm 1 4 4 3 3 0 0 1 1 1 1 1\n",
       "b/bundle.txt:2: library clblast-convgemm takes 13 sizes, not 12"},
      {"library arg past the buffers", kHead + "library clblast-gemm 1 2 3\narg buffer 0\n",
       "b/bundle.txt:3: no buffer 0 (there are 0 before this line)"},
      {"library without buffers", kHead + "library clblast-gemm 1 2 3\n",
       "b/bundle.txt: library clblast-gemm takes 3 buffer arguments, not 0"},
      {"param without a library", kKernel + "param Xgemm MWG 16\n", "b/bundle.txt:4: a param line belongs after a library line"},
      {"param short", kHead + "library clblast-gemm 1 2 3\nparam MWG 16\n", "b/bundle.txt:3: expected: param KERNEL NAME VALUE"},
      {"param value -1", kHead + "library clblast-gemm 1 2 3\nparam Xgemm MWG -1\n",
       "b/bundle.txt:3: a param value must be a whole number from 0 to 4294967295, not '-1'"},
      {"param value 2^64", kHead + "library clblast-gemm 1 2 3\nparam Xgemm MWG 18446744073709551616\n",
       "b/bundle.txt:3: a param value must be a whole number from 0 to 4294967295, not '18446744073709551616'"},
      {"param value 1e3", kHead + "library clblast-gemm 1 2 3\nparam Xgemm MWG 1e3\n",
       "b/bundle.txt:3: a param value must be a whole number from 0 to 4294967295, not '1e3'"},
      {"param name not an identifier", kHead + "library clblast-gemm 1 2 3\nparam Xgemm M-WG 16\n",
       "b/bundle.txt:3: a param's kernel and name are identifiers, not 'Xgemm' 'M-WG'"},
      {"library with two buffers", kKernel + "library clblast-gemm 1 2 3\narg buffer 0\narg buffer 0\n",
       "b/bundle.txt: library clblast-gemm takes 3 buffer arguments, not 2"},
      {"library with an int", kKernel + "library clblast-gemm 1 2 3\narg buffer 0\narg buffer 0\narg int 1\n",
       "b/bundle.txt: library clblast-gemm takes buffer arguments only"},
      // Issue 36 item 2: a per-element allowance names an f32 output declared before it, once.
      {"allowance before its buffer", kHead + "allowance out\nbuffer out f32 4 output\n",
       "b/bundle.txt:2: an allowance names an f32 output buffer declared before it, not 'out'"},
      {"allowance of an input", kHead + "buffer a f32 4 input\nallowance a\n",
       "b/bundle.txt:3: an allowance names an f32 output buffer declared before it, not 'a'"},
      {"allowance of an i32 output", kHead + "buffer n i32 4 output\nallowance n\n",
       "b/bundle.txt:3: an allowance names an f32 output buffer declared before it, not 'n'"},
      {"allowance twice", kHead + "buffer out f32 4 output\nallowance out\nallowance out\n",
       "b/bundle.txt:4: a second allowance for 'out'"},
      {"allowance without a name", kHead + "buffer out f32 4 output\nallowance\n", "b/bundle.txt:3: expected: allowance NAME"},
  };
  for (const auto& c : cases) {
    try {
      parse_bundle(c.text, kWhere);
      ADD_FAILURE() << c.what << ": read";
    } catch (const Failure& f) {
      EXPECT_EQ(f.status, "runner") << c.what;
      EXPECT_EQ(f.reason, c.reason) << c.what;
    }
  }
}

// A Convgemm call of a 1x4x4 image and one 3x3 kernel, padding 1 (a 4x4 result): its
// buffers of `image`, `kernels` and `result` elements, then the call's sizes and
// parameters (line 5 is the library line).
std::string convgemm(int image, int kernels, int result, const std::string& sizes, const std::string& params) {
  return kHead + "buffer i f32 " + std::to_string(image) + " input\nbuffer k f32 " + std::to_string(kernels) +
         " input\nbuffer r f32 " + std::to_string(result) + " output\nlibrary clblast-convgemm " + sizes +
         "\narg buffer 0\narg buffer 1\narg buffer 2\n" + params;
}
const std::string kConv = "1 4 4 3 3 1 1 1 1 1 1 1 1";
// Xconvgemm's parameters at a valid point, then `extra` lines.
std::string direct_params(const std::string& wgd = "8", const std::string& kwid = "2", const std::string& extra = "") {
  return "param Xconvgemm WGD " + wgd + "\nparam Xconvgemm MDIMCD 8\nparam Xconvgemm NDIMCD 8\nparam Xconvgemm MDIMAD 8\n"
         "param Xconvgemm NDIMBD 8\nparam Xconvgemm KWID " + kwid + "\nparam Xconvgemm VWMD 1\nparam Xconvgemm VWND 1\n"
         "param Xconvgemm PADA 1\nparam Xconvgemm PADB 1\n" + extra;
}

// A library call whose sizes reach past its buffers (CLBlast reads past the image: the
// runner segfaulted, and --serve died) or whose tuning parameters CLBlast cannot run
// (WGD = 0 segfaulted, KWID = 0 never ended) is refused as it is read, naming the library
// line: one runner failure, before CLBlast sees it (liftc/runtime/library_call.hpp).
TEST(BundleReader, LibraryCallsOutsideTheirBuffersOrParameterDomainsAreRefused) {
  ASSERT_NO_THROW(parse_bundle(convgemm(16, 9, 16, kConv, direct_params()), kWhere));
  const MalformedCase cases[] = {
      {"image past its buffer", convgemm(15, 9, 16, kConv, ""),
       "b/bundle.txt:5: library clblast-convgemm: its image needs 16 elements, the buffer has 15"},
      {"kernels past their buffer", convgemm(16, 8, 16, kConv, ""),
       "b/bundle.txt:5: library clblast-convgemm: its kernels needs 9 elements, the buffer has 8"},
      {"result past its buffer", convgemm(16, 9, 15, kConv, ""),
       "b/bundle.txt:5: library clblast-convgemm: its result needs 16 elements, the buffer has 15"},
      {"a batch of two", convgemm(16, 9, 16, "1 4 4 3 3 1 1 1 1 1 1 1 2", ""),
       "b/bundle.txt:5: library clblast-convgemm: its image needs 32 elements, the buffer has 16"},
      {"sizes near 2^32", convgemm(16, 9, 16, "4294967295 4294967295 4294967295 3 3 1 1 1 1 1 1 1 1", ""),
       "b/bundle.txt:5: library clblast-convgemm: its image needs 2^64 or more elements, the buffer has 16"},
      {"stride 0", convgemm(16, 9, 16, "1 4 4 3 3 1 1 0 1 1 1 1 1", ""),
       "b/bundle.txt:5: library clblast-convgemm: the strides and dilations must be at least 1"},
      {"no channels", convgemm(16, 9, 16, "0 4 4 3 3 1 1 1 1 1 1 1 1", ""),
       "b/bundle.txt:5: library clblast-convgemm: C, H, W, KH, KW, M and BATCH must be at least 1"},
      {"kernel past the padded image", convgemm(16, 49, 16, "1 4 4 7 7 1 1 1 1 1 1 1 1", ""),
       "b/bundle.txt:5: library clblast-convgemm: the kernel is larger than the padded image"},
      {"gemm B past its buffer",
       kHead + "buffer a f32 6 input\nbuffer b f32 11 input\nbuffer c f32 8 output\nlibrary clblast-gemm 2 4 3\n"
               "arg buffer 0\narg buffer 1\narg buffer 2\n",
       "b/bundle.txt:5: library clblast-gemm: its B needs 12 elements, the buffer has 11"},
      {"gemm of 2^32-1 cubed",
       kHead + "buffer a f32 6 input\nbuffer b f32 12 input\nbuffer c f32 8 output\n"
               "library clblast-gemm 4294967295 4294967295 4294967295\narg buffer 0\narg buffer 1\narg buffer 2\n",
       "b/bundle.txt:5: library clblast-gemm: its A needs 18446744065119617025 elements, the buffer has 6"},
      {"WGD 0 (segfaulted)", convgemm(16, 9, 16, kConv, direct_params("0")),
       "b/bundle.txt:5: library clblast-convgemm: Xconvgemm.WGD = 0 is not one of 8, 16, 32, 64"},
      {"KWID 0 (never ended)", convgemm(16, 9, 16, kConv, direct_params("8", "0")),
       "b/bundle.txt:5: library clblast-convgemm: Xconvgemm.KWID = 0 is not one of 2, 8"},
      {"WGD 7", convgemm(16, 9, 16, kConv, "param Xconvgemm WGD 7\n"),
       "b/bundle.txt:5: library clblast-convgemm: Xconvgemm.WGD = 7 is not one of 8, 16, 32, 64"},
      {"a parameter given twice", convgemm(16, 9, 16, kConv, direct_params("8", "8", "param Xconvgemm KWID 8\n")),
       "b/bundle.txt:5: library clblast-convgemm: Xconvgemm.KWID is given twice"},
      {"a broken constraint", convgemm(16, 9, 16, kConv, "param Xconvgemm WGD 8\nparam Xconvgemm MDIMCD 8\nparam Xconvgemm VWMD 2\n"),
       "b/bundle.txt:5: library clblast-convgemm: Xconvgemm: WGD % (MDIMCD * VWMD) == 0 does not hold"},
      {"MDIMAD other than MDIMCD", convgemm(16, 9, 16, kConv, "param Xconvgemm MDIMCD 8\nparam Xconvgemm MDIMAD 16\n"),
       "b/bundle.txt:5: library clblast-convgemm: Xconvgemm.MDIMAD = 16 must equal MDIMCD"},
      {"a kernel convgemm does not tune", convgemm(16, 9, 16, kConv, "param Xgemm MWG 16\n"),
       "b/bundle.txt:5: library clblast-convgemm: clblast-convgemm tunes no kernel Xgemm"},
      {"an unknown parameter", convgemm(16, 9, 16, kConv, "param Xconvgemm WGDX 8\n"),
       "b/bundle.txt:5: library clblast-convgemm: Xconvgemm has no parameter WGDX"},
      {"gemm's routine choice out of range",
       kHead + "buffer a f32 6 input\nbuffer b f32 12 input\nbuffer c f32 8 output\nlibrary clblast-gemm 2 4 3\n"
               "arg buffer 0\narg buffer 1\narg buffer 2\nparam GemmRoutine XGEMM_MIN_INDIRECT_SIZE 5\n",
       "b/bundle.txt:5: library clblast-gemm: GemmRoutine.XGEMM_MIN_INDIRECT_SIZE = 5 is not one of 0, 1048576"},
  };
  for (const auto& c : cases) {
    try {
      parse_bundle(c.text, kWhere);
      ADD_FAILURE() << c.what << ": read";
    } catch (const Failure& f) {
      EXPECT_EQ(f.status, "runner") << c.what;
      EXPECT_EQ(f.reason, c.reason) << c.what;
    }
  }
}

struct FileCase {
  const char* what;
  std::function<void(const fs::path&)> make;  // makes bundle.txt
  const char* reason;  // with DIR for the folder
};

// bundle.txt must be a small regular file: /dev/zero (issue 20), a FIFO or a folder would
// otherwise be read without end or fail late.
TEST(BundleReader, BundleTxtMustBeASmallRegularFile) {
  fs::path dir = liftc::explore::test::fresh_test_folder("liftc_bundle_reader");
  const FileCase cases[] = {
      {"missing", [](const fs::path&) {}, "cannot read DIR/bundle.txt: No such file or directory"},
      {"/dev/zero", [](const fs::path& f) { fs::create_symlink("/dev/zero", f); }, "DIR/bundle.txt is not a regular file"},
      {"a FIFO", [](const fs::path& f) { mkfifo(f.c_str(), 0600); }, "DIR/bundle.txt is not a regular file"},
      {"a folder", [](const fs::path& f) { fs::create_directory(f); }, "DIR/bundle.txt is not a regular file"},
      {"5 MiB",
       [](const fs::path& f) {
         std::ofstream(f) << "liftc-bundle 1\n";
         fs::resize_file(f, 5u << 20);
       },
       "DIR/bundle.txt has 5242880 bytes, more than the 4194304 a runner reads"},
  };
  for (const auto& c : cases) {
    fs::path file = dir / "bundle.txt";
    fs::remove_all(file);
    c.make(file);
    std::string reason = c.reason;
    reason.replace(reason.find("DIR"), 3, dir.string());
    try {
      read_bundle(dir.string());
      ADD_FAILURE() << c.what << ": read";
    } catch (const Failure& f) {
      EXPECT_EQ(f.status, "runner") << c.what;
      EXPECT_EQ(f.reason, reason) << c.what;
    }
  }
  fs::remove_all(dir);
}

struct IndexCase {
  const char* selector;
  bool numeric;
  std::uint64_t index;
};

TEST(BundleReader, DeviceSelectorsOfDigitsAreIndicesEvenPastAnyDevice) {
  const IndexCase cases[] = {
      {"", false, 0},
      {"0", true, 0},
      {"12", true, 12},
      {"99999999999999999999", true, UINT64_MAX},  // issue 20: aborted in std::stoul
      {"1a", false, 0},
      {"gpu", false, 0},
  };
  for (const auto& c : cases) {
    std::uint64_t index = 0;
    EXPECT_EQ(device_index(c.selector, index), c.numeric) << c.selector;
    if (c.numeric) {
      EXPECT_EQ(index, c.index) << c.selector;
    }
  }
}

}  // namespace
}  // namespace liftc_runner
