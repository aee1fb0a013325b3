// Barriers around memory a work-group shares (issue 20, item 1: a write-after-read race in
// local memory that every run-based check misses). A static check on the generated C tree
// stands in for a race detector: between two accesses of the same local or global buffer
// by different statements, at least one of them a write, a barrier must come in program
// order; inside a loop, also between an access at the end of one iteration and one at the
// start of the next. It is conservative (it cannot tell two accesses of the same work-item
// from two of different ones), so the programs below are ones where the accesses it pairs
// are made by different work-items.

#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/host/execute.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/runtime/validate.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::rewrite::test {
namespace {

using codegen::c::ExprKind;
using codegen::c::Stmt;
using codegen::c::StmtKind;

// One access of a shared buffer, or a barrier, in program order.
struct Access {
  enum Kind { Read, Write, Barrier } kind;
  std::string buffer;  // empty for a barrier
  int statement = 0;   // accesses of one statement never race with each other
};

class RaceCheck {
 public:
  explicit RaceCheck(const codegen::c::Function& f) {
    for (const auto& p : f.params)
      if (p.pointer && p.space != codegen::AddressSpace::Private) shared_.insert(p.name);
    accesses(f.body);
  }
  // "lmemtmp_6: write then read with no barrier between (across iterations of i_5)", ...
  const std::vector<std::string>& races() const { return races_; }

 private:
  std::vector<Access> accesses(const std::vector<Stmt>& body) {
    std::vector<Access> out;
    for (const Stmt& s : body) {
      int id = ++statements_;
      switch (s->kind) {
        case StmtKind::Decl:
          if (s->space != codegen::AddressSpace::Private) shared_.insert(s->name);
          reads(s->value, id, out);
          break;
        case StmtKind::Assign: reads(s->value, id, out); break;
        case StmtKind::Store:
          reads(s->value, id, out);
          if (shared_.count(s->name)) out.push_back({Access::Write, s->name, id});
          break;
        case StmtKind::Barrier: out.push_back({Access::Barrier, "", id}); break;
        case StmtKind::For: {
          std::vector<Access> inner = accesses(s->body);
          check(inner, inner, fmt::format("across iterations of {}", s->name));
          out.insert(out.end(), inner.begin(), inner.end());
          break;
        }
        case StmtKind::If: {
          reads(s->value, id, out);
          std::vector<Access> inner = accesses(s->body);
          out.insert(out.end(), inner.begin(), inner.end());
          break;
        }
        case StmtKind::Block: {
          std::vector<Access> inner = accesses(s->body);
          out.insert(out.end(), inner.begin(), inner.end());
          break;
        }
        case StmtKind::Comment: break;
      }
    }
    check(out, {}, "in one pass");
    return out;
  }

  void reads(const codegen::c::Expr& e, int id, std::vector<Access>& out) {
    if (!e) return;
    if (e->kind == ExprKind::Load && shared_.count(e->text)) out.push_back({Access::Read, e->text, id});
    for (const auto& a : e->args) reads(a, id, out);
  }

  // Pairs of accesses in `first` followed by accesses in `then` (the next iteration when
  // given, else later in `first` itself) with no barrier between them.
  void check(const std::vector<Access>& first, const std::vector<Access>& then, const std::string& where) {
    bool wrap = !then.empty();
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (first[i].kind == Access::Barrier) continue;
      auto hazard = [&](const Access& b) {
        return b.kind != Access::Barrier && b.buffer == first[i].buffer && b.statement != first[i].statement &&
               (b.kind == Access::Write || first[i].kind == Access::Write);
      };
      auto report = [&](const Access& b) {
        races_.push_back(fmt::format("{}: {} then {} with no barrier between ({})", b.buffer,
                                     first[i].kind == Access::Write ? "write" : "read",
                                     b.kind == Access::Write ? "write" : "read", where));
      };
      bool barrier = false;
      for (std::size_t j = i + 1; j < first.size() && !barrier; ++j) {
        if (first[j].kind == Access::Barrier) barrier = true;
        else if (!wrap && hazard(first[j])) return report(first[j]);
      }
      if (!wrap || barrier) continue;
      for (const Access& b : then) {
        if (b.kind == Access::Barrier) break;
        if (hazard(b)) return report(b);
      }
    }
  }

  std::set<std::string> shared_;
  int statements_ = 0;
  std::vector<std::string> races_;
};

// `body` with the barrier that ends each loop's body removed (for the program, what
// code generation made before the fix): the check must find a race again.
std::vector<Stmt> without_loop_end_barriers(const std::vector<Stmt>& body) {
  std::vector<Stmt> out;
  for (const Stmt& s : body) {
    if (s->kind != StmtKind::For && s->kind != StmtKind::If && s->kind != StmtKind::Block) {
      out.push_back(s);
      continue;
    }
    auto copy = std::make_shared<codegen::c::StmtNode>(*s);
    copy->body = without_loop_end_barriers(s->body);
    if (s->kind == StmtKind::For && !copy->body.empty() && copy->body.back()->kind == StmtKind::Barrier)
      copy->body.pop_back();
    out.push_back(copy);
  }
  return out;
}

const runtime::Session& session() {
  static runtime::Session s;
  return s;
}

struct BarrierCase {
  const char* what;
  const char* program;
  int loop_barriers;  // barriers in the body of the loop over chunks
};

const BarrierCase kCases[] = {
    {"the issue's program: every work-item sums the whole local tile that the next chunk overwrites",
     "size N = 4096\ninput a : [float]N\n"
     "def out = join(join(mapWrg(0, grp ->\n"
     "  let total = reduceSeq(reduceSeq(0.0, (z, v) -> z, grp), (acc, chunk) ->\n"
     "    mapSeq((p, s) -> p + s, zip(acc, reduceSeq(0.0, (s, v) -> s + v, toLocal(mapLcl(0, x -> x * 2.0), chunk)))),\n"
     "    split(256, grp)) in\n"
     "  toGlobal(mapLcl(0, c -> mapSeq(t -> t + 1.0, join(total))), split(4, grp)), split(1024, a))))\n",
     2},
    {"a local tile read by a stencil mapLcl in each step: that mapLcl's barrier ends the iteration already",
     "size N = 256\ninput a : [float]N\n"
     "def out = join(join(mapWrg(0, grp ->\n"
     "  mapSeq(chunk -> toGlobal(mapLcl(0, w -> reduceSeq(0.0, (s, v) -> s + v, w)),\n"
     "      slide(3, 1, pad(1, 1, 0.0, toLocal(mapLcl(0, x -> x * 2.0), chunk)))),\n"
     "    split(16, grp)), split(64, a))))\n",
     2},
    {"the tile in global memory: the barrier fences global memory",
     "size N = 2048\ninput a : [float]N\n"
     "def out = join(join(mapWrg(0, grp ->\n"
     "  let total = reduceSeq(reduceSeq(0.0, (z, v) -> z, grp), (acc, chunk) ->\n"
     "    mapSeq((p, s) -> p + s, zip(acc, reduceSeq(0.0, (s, v) -> s + v, toGlobal(mapLcl(0, x -> x * 2.0), chunk)))),\n"
     "    split(128, grp)) in\n"
     "  toGlobal(mapLcl(0, c -> mapSeq(t -> t + 1.0, join(total))), split(4, grp)), split(512, a))))\n",
     2},
    {"a work-group's accumulator that each step reads whole: the step's values go to a buffer of their own",
     "size G = 3, S = 4, T = 64\ninput x : [[[float]T]S]G\ninput b : [float]T\n"
     "def out = mapWrg(0, g -> join(reduceSeq(b, (acc, st) ->\n"
     "  join(mapLcl(0, p -> reduceSeq(p.0, (s, v) -> s + p.1 * v, acc), zip(acc, st))), g)), x)\n",
     2},
};

// The statements of the first loop of `body` whose body holds a barrier.
const std::vector<Stmt>* chunk_loop(const std::vector<Stmt>& body) {
  for (const Stmt& s : body) {
    if (s->kind != StmtKind::For) continue;
    for (const Stmt& t : s->body)
      if (t->kind == StmtKind::Barrier) return &s->body;
    if (auto* inner = chunk_loop(s->body)) return inner;
  }
  return nullptr;
}

TEST(Barriers, MemoryAWorkGroupRewritesInALoopIsSeparatedFromTheReadsOfTheIterationBefore) {
  for (const BarrierCase& c : kCases) {
    SCOPED_TRACE(c.what);
    ir::Program p = typecheck::typecheck(ir::bind_sizes(program(c.program), {})).program;
    codegen::Module m = codegen::generate(p);
    ASSERT_EQ(m.kernels.size(), 1u) << m.source();
    const codegen::c::Function& f = m.kernels[0].function;
    EXPECT_TRUE(RaceCheck(f).races().empty()) << fmt::format("{}", fmt::join(RaceCheck(f).races(), "\n")) << "\n"
                                              << m.source();
    const std::vector<Stmt>* loop = chunk_loop(f.body);
    ASSERT_NE(loop, nullptr) << m.source();
    int barriers = 0;
    for (const Stmt& s : *loop) barriers += s->kind == StmtKind::Barrier;
    EXPECT_EQ(barriers, c.loop_barriers) << m.source();

    codegen::c::Function broken = f;
    broken.body = without_loop_end_barriers(f.body);
    EXPECT_FALSE(RaceCheck(broken).races().empty()) << "the check cannot fail:\n" << m.source();

    // And the values: one run on poisoned buffers, against the interpreter.
    interp::Tensors inputs = interp::random_inputs(p, 3);
    interp::Tensors expected = interp::evaluate(p, inputs);
    host::Execution ex = host::execute(m, inputs, session(), {.warmup_runs = 0, .timed_runs = 1});
    ASSERT_TRUE(ex.run.ok()) << ex.run.failure();
    runtime::Comparison cmp = runtime::compare(ex.outputs.at("out").f32, expected.at("out").f32, runtime::Tolerance{1e-4, 1e-4});
    EXPECT_TRUE(cmp.ok) << cmp.str();
  }
}

// The loop over chunks of a local-tile kernel `f`: a barrier after each of its two copies
// and one ending the step (the next step's copies overwrite what every work-item read);
// without the loop-end barriers, `races` finds a race (the check can fail).
void expect_chunk_barriers(const codegen::c::Function& f,
                           const std::function<std::vector<std::string>(const codegen::c::Function&)>& races,
                           const std::string& source) {
  const std::vector<Stmt>* loop = chunk_loop(f.body);
  ASSERT_NE(loop, nullptr) << source;
  int barriers = 0;
  for (const Stmt& s : *loop) barriers += s->kind == StmtKind::Barrier;
  EXPECT_EQ(barriers, 3) << source;
  ASSERT_FALSE(loop->empty());
  EXPECT_EQ(loop->back()->kind, StmtKind::Barrier) << source;
  codegen::c::Function broken = f;
  broken.body = without_loop_end_barriers(f.body);
  EXPECT_FALSE(races(broken).empty()) << "the check cannot fail:\n" << source;
}

// conv-chw-tile-local (issue 18): per chunk of channels the work-group copies its input
// tile and its kernels' weights into local memory, every work-item reads both, and the next
// chunk overwrites them. The block's accumulator (lmemacc) is also local, but each
// work-item reads and writes only its own part of it (also where an activation follows:
// register-tile-acc-activation applies it to each work-item's own tile), which this
// conservative check cannot tell, so only the tiles are checked. Without and with an
// activation after each sum; every alternative, the padded image made by its own kernel
// (1, 2) or read as a view by the copies (3, 4).
TEST(Barriers, TheLocalTilesOfConvChwTileLocalAreOverwrittenOnlyAfterTheirReads) {
  struct Case {
    const char* example;
    std::map<std::string, long long> params;
  };
  for (const Case& c : {Case{"conv/conv_small.sr",
                             {{"tau_H", 4}, {"gamma_H", 4}, {"chi_H", 2}, {"sigma_C", 2}, {"rho_C", 2}, {"kappa_C", 2}, {"beta_H", 2}}},
                        Case{"conv/conv_relu_swapped.sr",
                             {{"tau_H", 9}, {"gamma_H", 4}, {"chi_H", 2}, {"sigma_C", 3}, {"kappa_C", 2}, {"beta_H", 2}}}}) {
    SCOPED_TRACE(c.example);
    ir::Program original = program(example(c.example));
    ProgramRewrite rw = rewrite_program(library(), "conv-chw-tile-local", original, {});
    ASSERT_GE(rw.programs.size(), 2u);
    for (std::size_t a = 0; a < rw.programs.size(); ++a) {
      SCOPED_TRACE(fmt::format("alternative {}", a + 1));
      std::map<std::string, long long> params;  // those this alternative has (beta_H: the pad kernel's)
      for (const auto& [name, value] : c.params)
        for (const auto& size : rw.programs[a].program.sizes)
          if (size.name == name) params[name] = value;
      ir::Program p = typecheck::typecheck(ir::bind_sizes(rw.programs[a].program, params)).program;
      codegen::Module m = codegen::generate(p);
      const codegen::Kernel* conv = nullptr;
      for (const auto& k : m.kernels)
        if (k.name == "conv_kernel") conv = &k;
      ASSERT_NE(conv, nullptr) << m.source();
      EXPECT_EQ(m.kernels.size(), a < rw.programs.size() / 2 ? 2u : 1u) << "the pad kernel, then the convolution's\n"
                                                                          << m.source();
      auto tile_races = [](const codegen::c::Function& f) {
        std::vector<std::string> out;
        RaceCheck check(f);
        for (const auto& r : check.races())
          if (r.rfind("lmemacc", 0) != 0) out.push_back(r);
        return out;
      };
      EXPECT_TRUE(tile_races(conv->function).empty())
          << fmt::format("{}", fmt::join(tile_races(conv->function), "\n")) << "\n" << m.source();
      expect_chunk_barriers(conv->function, tile_races, m.source());
    }
  }
}

// conv-winograd-local (matmul-local-tiles, matmul-chunk-to-local): per chunk of channels
// the work-group of a transform row and block copies both operands' chunks into local
// memory, every work-item reads both, and the next chunk overwrites them: a barrier after
// each copy and one ending the step; without the latter the check finds the race.
TEST(Barriers, TheLocalChunksOfWinogradsMultiplicationAreOverwrittenOnlyAfterTheirReads) {
  ir::Program original = program(example("conv/conv_small.sr"));
  ProgramRewrite rw = rewrite_program(library(), "conv-winograd-local", original, {});
  ASSERT_FALSE(rw.programs.empty());
  ir::Program p = typecheck::typecheck(ir::bind_sizes(rw.programs[0].program,
                                                      {{"tau_HW", 8}, {"gamma_HW", 4}, {"chi_HW", 2}, {"sigma_HW", 2}, {"kappa_HW", 2}}))
                      .program;
  codegen::Module m = codegen::generate(p);
  const codegen::Kernel* products = nullptr;
  for (const auto& k : m.kernels)
    if (k.name == "conv_part3_kernel") products = &k;
  ASSERT_NE(products, nullptr) << m.source();
  auto races = [](const codegen::c::Function& f) { return RaceCheck(f).races(); };
  EXPECT_TRUE(races(products->function).empty()) << m.source();
  expect_chunk_barriers(products->function, races, m.source());
}

TEST(Barriers, TheGlobalTilesBarrierFencesGlobalMemory) {
  ir::Program p = typecheck::typecheck(ir::bind_sizes(program(kCases[2].program), {})).program;
  codegen::Module m = codegen::generate(p);
  EXPECT_NE(m.kernels[0].source.find("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n  }"), std::string::npos)
      << m.source();
}

}  // namespace
}  // namespace liftc::rewrite::test
