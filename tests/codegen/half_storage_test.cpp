// Half storage (`--storage half`, ir::Program::half): buffers read by vload_half[N] and
// written by vstore_half[N], half the bytes in the memory plan, the interpreter rounding at
// the same points, every program run on OpenCL and compared with it; and the errors.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/emit/tables.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/half.hpp"
#include "run_helpers.hpp"

namespace liftc::codegen {
namespace {

using namespace ir;
using testing::run_and_compare;

Expr var(const char* n) { return make_var(n); }
Expr lam(std::vector<std::string> ps, Expr body) { return make_lambda(std::move(ps), std::move(body)); }
Expr call(Prim p, std::vector<arith::Expr> sizes, std::vector<Expr> args) { return make_call(p, std::move(sizes), std::move(args)); }
Expr add(Expr a, Expr b) { return call(Prim::Add, {}, {std::move(a), std::move(b)}); }
Expr mul(Expr a, Expr b) { return call(Prim::Mul, {}, {std::move(a), std::move(b)}); }
Type floats(std::int64_t n) { return Type::array(Type::float_(), n); }

Program program(std::vector<InputDecl> inputs, std::vector<Definition> defs, std::set<std::string> half) {
  Program p;
  p.inputs = std::move(inputs);
  p.defs = std::move(defs);
  p.half = std::move(half);
  return p;
}

Expr vector_add() {
  return call(Prim::MapGlb, {0}, {lam({"x", "z"}, add(var("x"), var("z"))), call(Prim::Zip, {}, {var("a"), var("b")})});
}

std::int64_t bytes_of(const Module& m, const std::string& name) { return evaluate(m.memory.buffer(name).bytes, m); }

TEST(HalfStorage, ScalarsAreReadByVloadHalfAndWrittenByVstoreHalf) {
  // a and y as halves, b as floats: each buffer as its own storage says.
  Program p = program({{"a", floats(64), {}}, {"b", floats(64), {}}}, {{"y", vector_add(), {}}}, {"a", "y"});
  Module m = run_and_compare(p);
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].source,
            "kernel void y_kernel(global const half* restrict a, global const float* restrict b, global half* restrict y) {\n"
            "  int g_0 = (int)get_global_id(0);\n"
            "  vstore_half(vload_half(g_0, a) + b[g_0], g_0, y);\n"
            "}\n");
  EXPECT_EQ(m.source().find("cl_khr_fp16"), std::string::npos) << "half storage needs no extension";
  EXPECT_EQ(bytes_of(m, "a"), 128);
  EXPECT_EQ(bytes_of(m, "b"), 256);
  EXPECT_EQ(bytes_of(m, "y"), 128);
  EXPECT_EQ(m.memory.buffer("a").storage, Storage::Half);
  EXPECT_EQ(m.memory.buffer("b").storage, Storage::Native);
}

// The host plan (plan.json, the generated host's tables) says which buffers are halves, and
// counts their bytes at two an element.
TEST(HalfStorage, TheHostPlanCarriesTheStorage) {
  Program p = program({{"a", floats(64), {}}, {"b", floats(64), {}}}, {{"y", vector_add(), {}}}, {"a", "y"});
  HostPlan plan = host_plan(generate(testing::checked(p)));
  ASSERT_EQ(plan.buffers.size(), 3u);
  EXPECT_TRUE(plan.buffers[0].half);
  EXPECT_FALSE(plan.buffers[1].half);
  EXPECT_EQ(plan.global_bytes(), 128 + 256 + 128);
  std::string text = plan_json(plan);
  EXPECT_NE(text.find(R"("type": "half")"), std::string::npos) << text;
  EXPECT_EQ(plan_json(read_plan_json(text, "plan.json")), text);
  std::string tables = emit::plan_tables(plan, "kPlan");
  EXPECT_NE(tables.find(R"({"a", 64, true, 0, {64}, true},  // input, 128 bytes (stored as halves))"), std::string::npos)
      << tables;
  EXPECT_NE(tables.find(R"({"b", 64, true, 0, {64}, false},  // input, 256 bytes)"), std::string::npos) << tables;
}

TEST(HalfStorage, EveryFloatBufferAsHalfHalvesTheMemoryPlan) {
  Program fp32 = program({{"a", floats(64), {}}, {"b", floats(64), {}}}, {{"y", vector_add(), {}}}, {});
  Program fp16 = fp32;
  fp16.half = half_buffers(testing::checked(fp16), parse_storage("half"));
  EXPECT_EQ(fp16.half, (std::set<std::string>{"a", "b", "y"}));
  Module m32 = run_and_compare(fp32), m16 = run_and_compare(fp16);
  EXPECT_EQ(evaluate(m32.memory.global_bytes(), m32), 768);
  EXPECT_EQ(evaluate(m16.memory.global_bytes(), m16), 384);
}

TEST(HalfStorage, VectorsAreReadByVloadHalfN) {
  // Rows of 8 read as float2 vectors: vload_half2 where the lanes are consecutive.
  Expr vec = call(Prim::AsVector, {2}, {var("r")});
  Expr body = call(Prim::ReduceSeq, {}, {make_float(0.0),
                                        lam({"acc", "v"}, add(var("acc"), call(Prim::Dot, {}, {var("v"), var("v")}))), vec});
  Program p = program({{"m", Type::array(floats(8), 6), {}}},
                      {{"s", call(Prim::MapGlb, {0}, {lam({"r"}, body), var("m")}), {}}}, {"m", "s"});
  Options o;
  o.hoist = false;
  Module m = run_and_compare(p, o);
  EXPECT_NE(m.kernels[0].source.find("vload_half2(4*g_0 + i_2, m)"), std::string::npos) << m.kernels[0].source;
  EXPECT_NE(m.kernels[0].source.find("vstore_half("), std::string::npos) << m.kernels[0].source;
}

// The interpreter rounds an input as it is read and a definition as it is written; the next
// definition computes on the rounded value, in float.
TEST(HalfStorage, TheInterpreterRoundsWhereTheBuffersAreStored) {
  Program p = program({{"a", floats(4), {}}},
                      {{"y", call(Prim::Map, {}, {lam({"x"}, mul(var("x"), make_float(3.0))), var("a")}), {}},
                       {"z", call(Prim::Map, {}, {lam({"x"}, add(var("x"), make_float(1e-4))), var("y")}), {}}},
                      {"a", "y"});
  io::Tensor a{io::DType::Float32, {4}, {1.0f / 3.0f, 0.1f, 70000.0f, 1e-9f}, {}};
  interp::Tensors out = interp::evaluate(testing::checked(p), {{"a", a}});
  for (std::size_t i = 0; i < 4; ++i) {
    const float y = half::round(half::round(a.f32[i]) * 3.0f);
    EXPECT_EQ(out.at("y").f32[i], y) << i;
    EXPECT_EQ(out.at("z").f32[i], y + 1e-4f) << i << ": z is float, computed from the rounded y";
  }
  EXPECT_TRUE(std::isinf(out.at("y").f32[2])) << "70000 is past the largest half";
}

// roundHalf in a kernel: a function its text defines (vstore_half into a private array,
// vload_half back), one per vector width, in a guard so that two kernels in one source
// define it once; on OpenCL it gives the interpreter's values bit for bit, ties, the largest
// half and past it, and subnormal halves included.
TEST(HalfStorage, RoundHalfRoundsAsAHalfBufferStores) {
  Expr scalars = call(Prim::MapGlb, {0}, {lam({"x"}, call(Prim::RoundHalf, {}, {var("x")})), var("a")});
  Expr vectors =
      call(Prim::AsScalar, {},
           {call(Prim::MapGlb, {0},
                 {lam({"x"}, call(Prim::RoundHalf, {}, {var("x")})), call(Prim::AsVector, {4}, {var("a")})})});
  Program p = program({{"a", floats(16), {}}}, {{"y", scalars, {}}, {"z", vectors, {}}}, {});
  Program c = testing::checked(p);
  Module m = generate(c);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_NE(m.kernels[0].source.find("#ifndef LIFTC_ROUND_HALF\n"), std::string::npos) << m.kernels[0].source;
  EXPECT_NE(m.kernels[0].source.find("liftc_round_half(a[g_0])"), std::string::npos) << m.kernels[0].source;
  EXPECT_NE(m.kernels[1].source.find("float4 liftc_round_half4(float4 x)"), std::string::npos) << m.kernels[1].source;
  EXPECT_EQ(m.source().find("cl_khr_fp16"), std::string::npos) << "roundHalf needs no extension";
  io::Tensor a{io::DType::Float32,
               {16},
               {1.0001f, 0.1f, 1.00048828125f, 1.00146484375f, 65519.0f, 65520.0f, 1e-7f, 1.4901161193847656e-08f,
                -0.1f, -1e-7f, -65520.0f, 3.14159f, 2048.5f, 6e-5f, 0.0f, -0.0f},
               {}};
  interp::Tensors expected = interp::evaluate(c, {{"a", a}});
  runtime::RunOptions ro;
  ro.warmup_runs = 0;
  host::Execution ex = host::execute(m, {{"a", a}}, testing::session(), ro);
  ASSERT_TRUE(ex.run.ok()) << ex.run.failure();
  for (const char* name : {"y", "z"})
    for (std::size_t i = 0; i < a.f32.size(); ++i) {
      EXPECT_EQ(ex.outputs.at(name).f32[i], expected.at(name).f32[i]) << name << " " << i << "\n" << m.source();
      EXPECT_EQ(std::signbit(ex.outputs.at(name).f32[i]), std::signbit(expected.at(name).f32[i])) << name << " " << i;
    }
  // Both kernels' functions in one source, as a network's host program puts them: defined once each.
  Program twice = program({{"a", floats(16), {}}}, {{"y", scalars, {}}, {"w", scalars, {}}}, {});
  Module both = run_and_compare(twice);
  EXPECT_NE(both.kernels[1].source.find("#ifndef LIFTC_ROUND_HALF\n"), std::string::npos);
}

// Windows over a padded half input: the pad is a bounds check around vload_half, the
// windows' sums are float and stored once, as halves.
TEST(HalfStorage, PaddedWindowsOverHalvesRunExactly) {
  Expr windows = call(Prim::Slide, {3, 1}, {call(Prim::Pad, {1, 1}, {make_float(0.0), var("a")})});
  Expr sum3 = lam({"w"}, call(Prim::ReduceSeq, {}, {make_float(0.0), lam({"acc", "v"}, add(var("acc"), var("v"))), var("w")}));
  Program p = program({{"a", floats(32), {}}}, {{"y", call(Prim::MapGlb, {0}, {sum3, windows}), {}}}, {"a", "y"});
  Module m = run_and_compare(p);
  EXPECT_NE(m.source().find("vload_half("), std::string::npos) << m.source();
  for (const Buffer& b : m.memory.buffers)
    if (b.space == AddressSpace::Global) EXPECT_EQ(b.storage, Storage::Half) << b.name;
}

struct StorageError {
  const char* text;
  const char* message;
};

TEST(HalfStorage, BadStorageIsOneClearError) {
  Program p = program({{"a", floats(4), {}}, {"n", Type::array(Type::int_(), 4), {}}},
                      {{"y", call(Prim::MapGlb, {0}, {lam({"x"}, var("x")), var("a")}), {}}}, {});
  Program ints = program({{"n", Type::array(Type::int_(), 4), {}}},
                         {{"y", call(Prim::MapGlb, {0}, {lam({"x"}, var("x")), var("n")}), {}}}, {});
  const StorageError cases[] = {
      {"half=n", "--storage half=n: 'n' holds int; only float buffers can be stored as half"},
      {"half=b", "--storage half=b: the program has no input or definition 'b' holding scalars or vectors"},
      {"fp16", "--storage: expected 'float', 'half' or 'half=NAME[,NAME...]' (inputs and definitions of the program), "
               "not 'fp16'"},
      {"half=", "--storage: expected 'float', 'half' or 'half=NAME[,NAME...]' (inputs and definitions of the program), "
                "not 'half='"},
      {"half=a,,y", "--storage: expected 'float', 'half' or 'half=NAME[,NAME...]' (inputs and definitions of the "
                    "program), not 'half=a,,y'"},
  };
  for (const StorageError& c : cases) {
    try {
      half_buffers(testing::checked(p), parse_storage(c.text));
      ADD_FAILURE() << c.text << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), c.message) << c.text;
    }
  }
  try {
    half_buffers(testing::checked(ints), parse_storage("half"));
    ADD_FAILURE() << "half storage of an int program was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "--storage half: the program has no float input or definition to store as half");
  }
  EXPECT_EQ(half_buffers(testing::checked(p), parse_storage("half")), (std::set<std::string>{"a", "y"}))
      << "'half' leaves the int input n as it is";
  EXPECT_EQ(to_string(parse_storage("half=a,y")), "half=a,y");
}

}  // namespace
}  // namespace liftc::codegen
