#pragma once
// The interpreter's compiled form of a program: the IR with every variable resolved to a
// slot of one flat frame, every type to a Layout, and every size argument to a number.
//
// One slot per binder suffices: functions are not first-class and every primitive
// evaluates its function operand to completion before returning (map and reduce are
// eager), so a lambda's body is never re-entered while it runs, and no value refers to a
// slot.

#include <memory>
#include <string>
#include <vector>

#include "layout.hpp"
#include "liftc/ir/expr.hpp"
#include "value.hpp"

namespace liftc::interp::detail {

/// The kinds of compiled node: one per IR node kind, plus FloatArith, a Call of + - * /
/// on two float scalars (the inner loop of every reduction), evaluated without Values.
enum class Op { Var, Literal, Lambda, Apply, Call, Tuple, Get, Let, FloatArith };

/// One instruction of a lambda body compiled to postfix float arithmetic: push a slot's
/// float or a constant, or pop two operands a, b and push a + b, a - b, a * b or a / b.
struct FloatInstr {
  enum class Kind : std::uint8_t { Slot, Const, Add, Sub, Mul, Div };
  Kind kind = Kind::Const;
  int slot = -1;      // Slot
  float value = 0.f;  // Const
};

/// The most operands a FloatInstr program keeps on its stack.
inline constexpr int kFloatStackDepth = 16;

/// A compiled node. Children are in the IR's order (Call operands, Apply callee then
/// arguments, Tuple elements, Get {tuple}, Let {value, body}, Lambda {body}).
struct Code {
  Op op = Op::Var;
  const Layout* layout = nullptr;            // the result's layout (none for Lambda)
  int slot = -1;                             // Var: the slot read; Let: the slot bound
  std::vector<int> params;                   // Lambda: parameter slots
  std::vector<const Layout*> param_layouts;  // Lambda: parameter layouts
  // Lambda: per parameter, the slots of its components when it is a tuple that the body
  // only projects (p.0, p.1 read those slots, bound once per application), else empty.
  std::vector<std::vector<int>> param_comps;
  // Lambda: its body as postfix float arithmetic over slots and constants, when it is
  // one (+ - * / of float variables and literals), else empty; same order of operations.
  std::vector<FloatInstr> float_body;
  Value literal;                             // Literal and SizeValue calls
  ir::Prim prim = ir::Prim::Id;              // Call
  std::vector<std::int64_t> sizes;           // Call: size arguments, evaluated
  std::vector<std::unique_ptr<Code>> args;   // children
  int index = 0;                             // Get
  SourceLoc loc;                             // for run-time errors (integer division by zero)
};

/// A compiled program: its definitions in order, inputs and definitions in slots.
struct CompiledProgram {
  /// One definition: its name, slot, body and the layout of its value.
  struct Def {
    std::string name;
    int slot;
    std::unique_ptr<Code> body;
    const Layout* layout;
    ir::Type type;
    // Computed once, in order, before the body, each into its slot: the body's subterms
    // inside a function that read only inputs and earlier definitions (a Winograd weight
    // transform inside the map over tiles), which the body reads as those slots.
    std::vector<std::pair<int, std::unique_ptr<Code>>> invariants = {};
  };
  /// One input: its declaration's name, type and slot.
  struct Input {
    std::string name;
    ir::Type type;
    int slot;
    const Layout* layout;
  };

  std::unique_ptr<Layouts> layouts = std::make_unique<Layouts>();
  int num_slots = 0;
  std::vector<Input> inputs;
  std::vector<Def> defs;
};

/// Compiles a type-checked program whose sizes are bound.
CompiledProgram compile(const ir::Program& checked);

}  // namespace liftc::interp::detail
