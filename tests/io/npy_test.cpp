// .npy files: round trips, headers as numpy writes them, and malformed files with the
// message each must give.

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "liftc/io/tensor.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::io {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / fmt::format("liftc_npy_{}_{}", ::getpid(), info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Writes raw bytes to a file in the test directory and returns its path.
  std::string write_raw(const std::string& name, const std::string& bytes) const {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  fs::path dir_;
};

// A .npy file image: magic, version, header length, the dict padded as numpy pads it
// (to `align` bytes, ending in '\n'), then the data.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1, int minor = 0,
                      std::size_t align = 64) {
  std::size_t len_size = major == 1 ? 2 : 4;
  std::string header = dict;
  std::size_t unpadded = 6 + 2 + len_size + header.size() + 1;
  header.append((align - unpadded % align) % align, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(minor);
  for (std::size_t i = 0; i < len_size; ++i) out += char((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <typename T>
std::string raw_data(std::initializer_list<T> values) {
  std::string s(values.size() * sizeof(T), '\0');
  std::size_t i = 0;
  for (T v : values) std::memcpy(&s[sizeof(T) * i++], &v, sizeof(T));
  return s;
}

// The message of the liftc::Error that reading `p` throws ("" if none).
std::string read_error(const std::string& p) {
  try {
    read_npy(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(NpyTest, RoundTripFloat) {
  Tensor t;
  t.shape = {2, 3, 4};
  for (int i = 0; i < 24; ++i) t.f32.push_back(0.5f * float(i) - 3.25f);
  write_npy(path("f.npy"), t);
  Tensor r = read_npy(path("f.npy"));
  EXPECT_EQ(r.dtype, DType::Float32);
  EXPECT_EQ(r.shape, t.shape);
  EXPECT_EQ(r.f32, t.f32);
  EXPECT_EQ((fs::file_size(path("f.npy")) - 24 * 4) % 64, 0u) << "the header is padded to a multiple of 64 bytes";
}

TEST_F(NpyTest, RoundTripIntScalarAndEmpty) {
  Tensor s;
  s.dtype = DType::Int32;
  s.shape = {};
  s.i32 = {-7};
  write_npy(path("s.npy"), s);
  Tensor r = read_npy(path("s.npy"));
  EXPECT_EQ(r.dtype, DType::Int32);
  EXPECT_TRUE(r.shape.empty());
  EXPECT_EQ(r.i32, s.i32);

  Tensor e;
  e.shape = {0, 5};
  write_npy(path("e.npy"), e);
  Tensor re = read_npy(path("e.npy"));
  EXPECT_EQ(re.shape, e.shape);
  EXPECT_TRUE(re.f32.empty());
}

TEST_F(NpyTest, WrittenHeaderIsNumpys) {
  Tensor t;
  t.shape = {3};
  t.f32 = {1, 2, 3};
  write_npy(path("h.npy"), t);
  std::ifstream in(path("h.npy"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  std::size_t header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);
  std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 0), 0u) << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_FALSE(fs::exists(path("h.npy") + ".tmp" + std::to_string(::getpid()))) << "the temporary file is renamed";
}

TEST_F(NpyTest, WriteReplacesAnExistingFile) {
  Tensor a;
  a.shape = {2};
  a.f32 = {1, 2};
  write_npy(path("r.npy"), a);
  a.f32 = {3, 4};
  write_npy(path("r.npy"), a);
  EXPECT_EQ(read_npy(path("r.npy")).f32, a.f32);
}

TEST_F(NpyTest, WriteIntoMissingDirectoryIsAnError) {
  Tensor a;
  a.shape = {1};
  a.f32 = {1};
  try {
    write_npy(path("no/such/dir/x.npy"), a);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
  }
}

// Headers as numpy versions write them: padding to 16 (old numpy) or 64 bytes, spaces in
// odd places, double quotes, version 2.0 and 3.0, and Python 2 long suffixes.
TEST_F(NpyTest, NumpyHeaderVariants) {
  std::string data = raw_data<float>({1.5f, -2.0f, 3.0f, 4.25f, 5.0f, 6.0f});
  struct Case {
    const char* name;
    std::string bytes;
  };
  std::vector<Case> cases = {
      {"v1_align64", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data)},
      {"v1_align16", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data, 1, 0, 16)},
      {"v1_no_trailing_comma", npy_bytes("{'descr':'<f4','fortran_order':False,'shape':(2,3)}", data)},
      {"v1_key_order", npy_bytes("{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}", data)},
      {"v1_double_quotes", npy_bytes("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}", data)},
      {"v1_py2_long", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", data)},
      {"v2", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data, 2, 0)},
      {"v3", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data, 3, 0)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor t = read_npy(write_raw(std::string(c.name) + ".npy", c.bytes));
    EXPECT_EQ(t.shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(t.f32, (std::vector<float>{1.5f, -2.0f, 3.0f, 4.25f, 5.0f, 6.0f}));
  }
}

TEST_F(NpyTest, Float64Float16AndInt64AreConverted) {
  Tensor f = read_npy(write_raw("f8.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                                                    raw_data<double>({0.25, -1e30, 7.0}))));
  EXPECT_EQ(f.dtype, DType::Float32);
  EXPECT_EQ(f.f32, (std::vector<float>{0.25f, -1e30f, 7.0f}));
  // numpy's float16 (what a model stored as halves may come as): each value exact in float32.
  Tensor h = read_npy(write_raw("f2.npy", npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
                                                    raw_data<std::uint16_t>({0x3C00, 0xC000, 0x0001, 0x7BFF}))));
  EXPECT_EQ(h.dtype, DType::Float32);
  EXPECT_EQ(h.f32, (std::vector<float>{1.0f, -2.0f, 0x1p-24f, 65504.0f}));
  Tensor i = read_npy(write_raw("i8.npy", npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 1), }",
                                                    raw_data<std::int64_t>({-2147483648LL, 2147483647LL}))));
  EXPECT_EQ(i.dtype, DType::Int32);
  EXPECT_EQ(i.shape, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(i.i32, (std::vector<std::int32_t>{-2147483647 - 1, 2147483647}));
}

// Malformed files: each must be a liftc::Error naming the file and what is wrong.
TEST_F(NpyTest, MalformedFiles) {
  std::string f4x2 = raw_data<float>({1.0f, 2.0f});
  auto dict = [](const std::string& descr, const std::string& fortran, const std::string& shape) {
    return fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", descr, fortran, shape);
  };
  struct Case {
    const char* name;
    std::string bytes;
    const char* message;
  };
  std::vector<Case> cases = {
      {"bad_magic", "PK\x03\x04 this is a zip file", "bad magic"},
      {"empty", "", "bad magic"},
      {"version_4", npy_bytes(dict("<f4", "False", "(2,)"), f4x2, 4, 0), "unsupported .npy format version 4.0"},
      {"version_1_1", npy_bytes(dict("<f4", "False", "(2,)"), f4x2, 1, 1), "unsupported .npy format version 1.1"},
      {"truncated_header", npy_bytes(dict("<f4", "False", "(2,)"), "").substr(0, 40), "truncated .npy header"},
      {"header_not_dict", npy_bytes("[1, 2, 3]", f4x2), "header is not a dict"},
      {"header_garbage", npy_bytes("{'descr': <f4}", f4x2), "malformed .npy header"},
      {"no_descr", npy_bytes("{'fortran_order': False, 'shape': (2,), }", f4x2), "no 'descr' key"},
      {"no_shape", npy_bytes("{'descr': '<f4', 'fortran_order': False, }", f4x2), "no 'shape' key"},
      {"shape_not_tuple", npy_bytes(dict("<f4", "False", "'two'"), f4x2), "'shape' is not a tuple"},
      {"negative_dim", npy_bytes(dict("<f4", "False", "(-2,)"), f4x2), "negative dimension -2"},
      {"complex", npy_bytes(dict("<c8", "False", "(2,)"), f4x2), "unsupported dtype '<c8'"},
      {"big_endian", npy_bytes(dict(">f4", "False", "(2,)"), f4x2), "unsupported dtype '>f4' (big-endian"},
      {"uint8", npy_bytes(dict("|u1", "False", "(2,)"), "ab"), "unsupported dtype '|u1'"},
      {"fortran", npy_bytes(dict("<f4", "True", "(2,)"), f4x2), "Fortran-order"},
      {"too_much_data", npy_bytes(dict("<f4", "False", "(1,)"), f4x2), "shape/data size mismatch"},
      {"truncated_data", npy_bytes(dict("<f4", "False", "(3,)"), f4x2), "truncated data"},
      {"int64_out_of_range", npy_bytes(dict("<i8", "False", "(2,)"), raw_data<std::int64_t>({1, 1LL << 40})),
       "element 1 = 1099511627776 is out of int32 range"},
      {"float64_out_of_range", npy_bytes(dict("<f8", "False", "(1,)"), raw_data<double>({1e300})),
       "out of float32 range"},
      // 30,000 nested lists (60 KB of header) once overflowed the reader's stack.
      {"deep_nesting", npy_bytes("{'descr': " + std::string(30000, '[') + std::string(30000, ']') + "}", ""),
       "malformed .npy header: nested deeper than 32 levels"},
      {"shape_overflows", npy_bytes(dict("<f4", "False", "(4611686018427387905, 4)"), f4x2),
       "shape (4611686018427387905, 4) is too large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string p = write_raw(std::string(c.name) + ".npy", c.bytes);
    std::string message = read_error(p);
    EXPECT_NE(message.find(p), std::string::npos) << "names the file: " << message;
    EXPECT_NE(message.find(c.message), std::string::npos) << "expected '" << c.message << "' in: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    EXPECT_LT(message.size(), 300u) << "short: " << message;
  }
}

// Paths that are not .npy files at all: refused before anything is read.
TEST_F(NpyTest, NotARegularFileOrTooLarge) {
  fs::create_directories(dir_ / "folder.npy");
  std::string huge = path("huge.npy");
  std::ofstream(huge).put('x');
  fs::resize_file(huge, kMaxNpyBytes + 1);  // sparse: takes no disk space
  struct Case {
    std::string path;
    const char* message;
  };
  const Case cases[] = {
      {path("folder.npy"), "is a directory, not a .npy file"},
      {"/dev/zero", "/dev/zero is a character device, not a .npy file"},
      {huge, "is 4.0 GiB (4294967297 bytes); liftc reads a .npy file of at most 4.0 GiB"},
      {"", "the path of the .npy file is empty"},
  };
  for (const Case& c : cases) {
    std::string message = read_error(c.path);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.path << ": " << message;
  }
}

TEST_F(NpyTest, MissingFile) {
  std::string p = path("absent.npy");
  std::string message = read_error(p);
  EXPECT_NE(message.find(p), std::string::npos) << message;
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
}

}  // namespace
}  // namespace liftc::io
