#pragma once
// The reference interpreter: the oracle every later stage is checked against.
// It evaluates any well-typed program, the OpenCL primitives by their meaning
// (mapWrg/mapLcl/mapGlb/mapSeq are map, reduceSeq is reduce, toGlobal/toLocal/toPrivate
// are identity on values, asVector/asScalar/vectorize/dot on vectors), in fp32.

#include <cstdint>
#include <map>
#include <string>

#include "liftc/io/tensor.hpp"
#include "liftc/ir/expr.hpp"

namespace liftc::interp {

/// A program's inputs or outputs (io::Tensors, named here for the interpreter's callers).
using Tensors = io::Tensors;

/// What evaluate returns for a definition whose type holds tuples.
enum class TupleOutputs {
  Skip,        // nothing (the code generator's outputs are tensors only)
  Components,  // one tensor per component, "name.0", "name.1.0", ... (an array of pairs: two arrays)
};

/// Evaluates every definition of a type-checked program whose sizes are all bound
/// (ir::bind_sizes, then typecheck). Inputs must match their declared types (shape and
/// element type; a vector element type is one more innermost dimension); a mismatch is a
/// liftc::Error naming the input, the expected and the actual shape. Returns one tensor
/// per definition whose type is an array (or scalar) of scalars or vectors, and for one
/// that holds tuples what `tuples` says.
///
/// The program's `half` (ir::Program::half, `--storage half`) names the inputs and
/// definitions stored as IEEE halves: their values are rounded to the nearest half (ties to even,
/// liftc/support/half.hpp) where they are stored — an input as it is read, a definition's
/// value before anything reads it and in the tensor returned — as the device's
/// vstore_half and the host's upload round them; the arithmetic stays in float.
Tensors evaluate(const ir::Program& checked, const Tensors& inputs, TupleOutputs tuples = TupleOutputs::Skip);

/// Refuses a type-checked, size-bound program holding a value too large to address: a
/// liftc::Error at the first expression whose size in bytes does not fit in 64 bits.
/// (evaluate checks this too; commands call it as soon as sizes are bound.)
void check_sizes(const ir::Program& checked);

/// The tensor shape and dtype a type maps to (for inputs and outputs); a liftc::Error for
/// types that hold tuples.
io::Tensor empty_tensor_for(const ir::Type& concrete, const std::string& what);

/// Whether a program holds a constant array (`array(...)`): it computes through constant
/// matrices, as a Winograd convolution's transforms.
bool has_constant_arrays(const ir::Program& p);

/// The magnitude of `checked`'s computation: its definitions evaluated on |inputs| with
/// every constant array's entries made |entries| (magnitude.cpp). For a program of + and *
/// its rounding error is at most u * n * P (u = 2^-24, n the additions on a product's path):
/// the scale of a tolerance for a rewrite that changes the arithmetic (Winograd).
Tensors evaluate_magnitude(const ir::Program& checked, const Tensors& inputs);

/// The rounding allowed per unit of that magnitude: u * n for n up to about 1700 additions
/// on a product's path (u = 2^-24); a value may differ by magnitude_tolerance * P.
inline constexpr double magnitude_tolerance = 1e-4;

/// Inputs are tensors (.npy files), which hold arrays of scalars or vectors: an input that
/// holds tuples is refused at its declaration (a liftc::Error at its location) with how to
/// write it instead, one input per component. Every command that reads or makes inputs
/// (eval, run, explore) calls it before it asks for any.
void require_tensor_inputs(const ir::Program& program);

/// Deterministic random data for every input of a checked, size-bound program:
/// floats uniform in [-1, 1), ints uniform in [-8, 8].
Tensors random_inputs(const ir::Program& checked, std::uint64_t seed);

}  // namespace liftc::interp
