// The memory plan against hand-computed sizes, and programs that must fail with a message.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "liftc/codegen/limits.hpp"
#include "run_helpers.hpp"

namespace liftc::codegen {
namespace {

using namespace ir;

Expr var(const char* n) { return make_var(n); }
Expr lam(std::vector<std::string> ps, Expr body) { return make_lambda(std::move(ps), std::move(body)); }
Expr call(Prim p, std::vector<arith::Expr> sizes, std::vector<Expr> args) { return make_call(p, std::move(sizes), std::move(args)); }
Expr twice(const char* v) { return call(Prim::Mul, {}, {var(v), make_float(2.0)}); }
Expr plus() { return lam({"acc", "v"}, call(Prim::Add, {}, {var("acc"), var("v")})); }
Type floats(std::int64_t n) { return Type::array(Type::float_(), n); }

Program program(std::vector<InputDecl> inputs, std::vector<Definition> defs) {
  Program p;
  p.inputs = std::move(inputs);
  p.defs = std::move(defs);
  return p;
}

TEST(MemoryPlan, LocalTileAndGlobals) {
  // mapWrg(0, chunk -> mapLcl(0, v -> v*2, toLocal(mapLcl(0, id), chunk)), split(16, x))
  Expr tile = call(Prim::ToLocal, {}, {lam({"c"}, call(Prim::MapLcl, {0}, {lam({"e"}, call(Prim::Id, {}, {var("e")})), var("c")})), var("chunk")});
  Expr body = call(Prim::Join, {}, {call(Prim::MapWrg, {0}, {lam({"chunk"}, call(Prim::MapLcl, {0}, {lam({"v"}, twice("v")), tile})),
                                                            call(Prim::Split, {16}, {var("x")})})});
  Module m = testing::run_and_compare(program({{"x", floats(64), {}}}, {{"y", body, {}}}));
  EXPECT_EQ(m.memory.buffer("x").bytes, arith::Expr(256));
  EXPECT_EQ(m.memory.buffer("y").bytes, arith::Expr(256));
  EXPECT_EQ(m.memory.global_bytes(), arith::Expr(512));
  EXPECT_EQ(m.memory.local_bytes(), arith::Expr(64));
  EXPECT_EQ(m.kernels[0].launch.local[0], arith::Expr(16));
  EXPECT_EQ(m.kernels[0].launch.global[0], arith::Expr(64));
  EXPECT_NE(m.kernels[0].source.find("barrier(CLK_LOCAL_MEM_FENCE);"), std::string::npos) << m.kernels[0].source;
}

TEST(MemoryPlan, GlobalIntermediateHasOneRegionPerWorkItem) {
  // mapGlb(0, row -> reduceSeq(0, +, mapSeq(v -> v*2, row)), m): the mapSeq result is global.
  Expr doubled = call(Prim::MapSeq, {}, {lam({"v"}, twice("v")), var("row")});
  Expr body = call(Prim::MapGlb, {0}, {lam({"row"}, call(Prim::ReduceSeq, {}, {make_float(0.0), plus(), doubled})), var("m")});
  Module m = testing::run_and_compare(program({{"m", Type::array(floats(16), 8), {}}}, {{"s", body, {}}}));
  arith::Expr intermediate = 0, priv = 0;
  for (const auto& b : m.memory.buffers) {
    if (b.role == BufferRole::Intermediate) intermediate = intermediate + b.bytes;
    if (b.role == BufferRole::Private) priv = priv + b.bytes;
  }
  EXPECT_EQ(intermediate, arith::Expr(8 * 16 * 4));
  EXPECT_EQ(priv, arith::Expr(4));  // the accumulator
  EXPECT_EQ(m.memory.global_bytes(), arith::Expr(8 * 16 * 4 + 8 * 4 + 8 * 16 * 4));
}

TEST(MemoryPlan, PrivateCopyWithToPrivate) {
  // mapGlb(0, row -> reduceSeq(0, +, toPrivate(mapSeq(id), row)), m)
  Expr fetched = call(Prim::ToPrivate, {}, {lam({"r"}, call(Prim::MapSeq, {}, {lam({"e"}, call(Prim::Id, {}, {var("e")})), var("r")})), var("row")});
  Expr body = call(Prim::MapGlb, {0}, {lam({"row"}, call(Prim::ReduceSeq, {}, {make_float(0.0), plus(), fetched})), var("m")});
  Module m = testing::run_and_compare(program({{"m", Type::array(floats(16), 8), {}}}, {{"s", body, {}}}));
  EXPECT_EQ(m.memory.private_bytes(), arith::Expr(16 * 4 + 4));
  EXPECT_NE(m.kernels[0].source.find("float pmemtmp_"), std::string::npos) << m.kernels[0].source;
}

// Programs that are not low-level enough: the message names what is missing.
struct BadCase {
  const char* what;
  Expr body;
  const char* message;
};

// mapWrg(0, chunk -> mapLcl(0, v -> v*2, toLocal(mapLcl(0, id), chunk)), split(tile, x)):
// `tile` floats of local memory per work-group, `tile` work-items per work-group.
Program local_tile_program(std::int64_t n, std::int64_t tile) {
  Expr copy = call(Prim::ToLocal, {}, {lam({"c"}, call(Prim::MapLcl, {0}, {lam({"e"}, call(Prim::Id, {}, {var("e")})), var("c")})), var("chunk")});
  Expr body = call(Prim::Join, {}, {call(Prim::MapWrg, {0}, {lam({"chunk"}, call(Prim::MapLcl, {0}, {lam({"v"}, twice("v")), copy})),
                                                            call(Prim::Split, {tile}, {var("x")})})});
  return program({{"x", floats(n), {}}}, {{"y", body, {}}});
}

// mapGlb(0, r -> reduceSeq(+, toPrivate(mapSeq(id), r)), x): a private copy of each row.
Program private_row_program(std::int64_t rows, std::int64_t row) {
  Expr copy = call(Prim::ToPrivate, {}, {lam({"q"}, call(Prim::MapSeq, {}, {lam({"e"}, call(Prim::Id, {}, {var("e")})), var("q")})), var("r")});
  Expr body = call(Prim::MapGlb, {0}, {lam({"r"}, call(Prim::ReduceSeq, {}, {make_float(0.0), plus(), copy})), var("x")});
  return program({{"x", Type::array(floats(row), rows), {}}}, {{"y", body, {}}});
}

struct LimitCase {
  const char* what;
  Program program;
  Limits limits;
  std::string message;  // the one violation expected
};

TEST(Limits, EachLimitIsCheckedAndNamed) {
  auto limits = [](auto set) {
    Limits l;
    l.what = "target t";
    set(l);
    return l;
  };
  const LimitCase cases[] = {
      {"local memory", local_tile_program(64, 16), limits([](Limits& l) { l.local_bytes = 32; }),
       "kernel 'y_kernel' needs 0.1 KiB of local memory per work-group; target t has 0.0 KiB"},
      {"private memory", private_row_program(4, 8), limits([](Limits& l) { l.private_bytes = 16; }),
       "kernel 'y_kernel' needs 0.0 KiB of private memory per work-item; at most 0.0 KiB is allowed"},
      {"work-group size", local_tile_program(64, 16), limits([](Limits& l) { l.max_work_group_size = 8; }),
       "kernel 'y_kernel' has work-groups of 16 work-items; target t allows 8"},
      {"work-items in a dimension", local_tile_program(64, 16), limits([](Limits& l) { l.max_work_item_sizes = {4, 1, 1}; }),
       "kernel 'y_kernel' has work-groups of 16 work-items in dimension 0; target t allows 4"},
      {"one allocation", private_row_program(4, 8), limits([](Limits& l) { l.max_alloc_bytes = 127; }),
       "input buffer 'x' takes 128 bytes; target t allocates at most 127 in one buffer"},
      {"global memory", local_tile_program(64, 16), limits([](Limits& l) { l.global_bytes = 511; }),
       "the buffers take 512 bytes of global memory; target t has 511"},
  };
  for (const LimitCase& c : cases) {
    Module m = generate(testing::checked(c.program));
    EXPECT_TRUE(limit_violations(m, Limits{}).empty()) << c.what;
    std::vector<std::string> v = limit_violations(m, c.limits);
    ASSERT_EQ(v.size(), 1u) << c.what << ": " << fmt::format("{}", fmt::join(v, "; "));
    EXPECT_EQ(v[0], c.message) << c.what;
  }
}

TEST(Limits, AModuleBeyondTheDevicesLocalMemoryIsRefusedBeforeBuilding) {
  const runtime::Session& session = testing::session();
  auto floats_needed = static_cast<std::int64_t>(session.device().local_mem_bytes / 4 + 1);
  ASSERT_GT(floats_needed, 1);
  Program p = testing::checked(local_tile_program(floats_needed * 2, floats_needed));
  Module m = generate(p);
  try {
    host::execute(m, interp::random_inputs(p, 1), session);
    FAIL() << "the driver was handed a kernel that needs more local memory than it has";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("the generated code does not fit device"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("of local memory per work-group"), std::string::npos) << e.message();
  }
}

TEST(Limits, IndicesBeyondAnIntAreRefused) {
  Expr body = call(Prim::MapGlb, {0}, {lam({"r"}, call(Prim::MapSeq, {}, {lam({"v"}, twice("v")), var("r")})), var("x")});
  Program p = program({{"x", Type::array(floats(65536), 65536), {}}}, {{"y", body, {}}});
  try {
    generate(testing::checked(p));
    FAIL() << "indices of 2^32 elements would wrap in int";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "input buffer 'x' holds 4294967296 elements; generated kernels index with a 32-bit int, "
                           "which holds at most 2147483647");
  }
}

TEST(KernelNames, ALongDefinitionNameGivesAShortKernelNameThatRuns) {
  std::string name(300, 'a');
  Expr body = call(Prim::MapGlb, {0}, {lam({"v"}, twice("v")), var("x")});
  Module m = testing::run_and_compare(program({{"x", floats(16), {}}}, {{name, body, {}}}));
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_LE(m.kernels[0].name.size(), 64u) << m.kernels[0].name;
  EXPECT_EQ(m.kernels[0].name.rfind(std::string(48, 'a') + "_", 0), 0u) << m.kernels[0].name;
  EXPECT_EQ(m.kernels[0].definition, name);
}

TEST(Errors, NotLowLevelEnough) {
  Expr mapped = call(Prim::MapGlb, {0}, {lam({"v"}, twice("v")), var("x")});
  const BadCase cases[] = {
      {"bare map", call(Prim::Map, {}, {lam({"v"}, twice("v")), var("x")}), "map computes values but is not mapped onto OpenCL"},
      {"reduce", call(Prim::Reduce, {}, {make_float(0.0), plus(), var("x")}), "reduce is not lowered: use reduceSeq"},
      {"mapLcl alone", call(Prim::MapLcl, {0}, {lam({"v"}, twice("v")), var("x")}), "mapLcl(0) is not inside a mapWrg"},
      {"mapGlb in mapGlb",
       call(Prim::MapGlb, {0}, {lam({"r"}, call(Prim::MapGlb, {0}, {lam({"v"}, twice("v")), var("r")})), call(Prim::Split, {4}, {var("x")})}),
       "mapGlb(0) is inside another mapGlb of the same dimension"},
      {"mapGlb with mapWrg",
       call(Prim::MapWrg, {0}, {lam({"r"}, call(Prim::MapGlb, {0}, {lam({"v"}, twice("v")), var("r")})), call(Prim::Split, {4}, {var("x")})}),
       "mapGlb cannot share a kernel with mapWrg/mapLcl"},
      {"a parallel map's result read by other work-items, inside a map",
       call(Prim::MapGlb, {0}, {lam({"r"}, call(Prim::MapSeq, {}, {lam({"v"}, twice("v")), call(Prim::Pad, {1, 1}, {make_float(0.0), call(Prim::MapGlb, {1}, {lam({"v"}, twice("v")), var("r")})})})),
                                call(Prim::Split, {4}, {var("x")})}),
       "it uses 'r' of the code around it"},
      {"a parallel map inside a sequential loop whose values its reader reads whole (a fused pooling's window)",
       call(Prim::MapGlb, {0},
            {lam({"r"}, call(Prim::ReduceSeq, {},
                             {make_float(0.0), plus(),
                              call(Prim::Join, {},
                                   {call(Prim::MapSeq, {},
                                         {lam({"k"}, call(Prim::MapGlb, {1}, {lam({"v"}, twice("v")), var("k")})),
                                          call(Prim::Split, {2}, {var("r")})})})})),
             call(Prim::Split, {4}, {var("x")})}),
       "the values that mapGlb(1) computes inside a sequential loop (mapSeq) are read, with the loop's other values, by "
       "other work-items of the same kernel"},
      {"a sequential loop before the work-items, which each would repeat",
       call(Prim::MapGlb, {0}, {lam({"v"}, twice("v")), call(Prim::MapSeq, {}, {lam({"v"}, twice("v")), var("x")})}),
       "mapSeq runs outside every parallel map of a kernel with work-items: each work-item would compute all of it"},
      {"a sequential reduction before the work-items",
       call(Prim::MapGlb, {0}, {lam({"v"}, twice("v")), call(Prim::ReduceSeq, {}, {make_float(0.0), plus(), var("x")})}),
       "reduceSeq runs outside every parallel map of a kernel with work-items"},
  };
  for (const auto& c : cases) {
    ir::Program p = testing::checked(program({{"x", floats(16), {}}}, {{"y", c.body, {}}}));
    try {
      generate(p);
      ADD_FAILURE() << c.what << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find(c.message), std::string::npos) << c.what << ": " << e.message();
    }
  }
}

}  // namespace
}  // namespace liftc::codegen
