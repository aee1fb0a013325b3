// The OpenCL C printer: only what OpenCL spells differently from C.

#include <fmt/format.h>

#include "liftc/codegen/printer.hpp"

namespace liftc::codegen {

std::string OpenCLPrinter::space_qualifier(AddressSpace s) { return to_string(s); }

std::string OpenCLPrinter::function_qualifier(const c::Function& f) { return f.is_kernel ? "kernel" : ""; }

// A buffer stored as halves (Param::half) is read by vload_half[N] and written by
// vstore_half[N] (core OpenCL 1.2, no cl_khr_fp16): the value is a float (floatN), converted
// exactly on the load and rounded to nearest even on the store. Their offsets count halves
// (N of them for the N-wide forms), as vloadN's count floats.
std::string OpenCLPrinter::load(const c::ExprNode& e) {
  if (half_.count(e.text)) {
    const std::string n = e.width == 1 ? "" : std::to_string(e.width);
    if (e.width == 1 || arith::provably_divisible(e.index, e.width))
      return fmt::format("vload_half{}({}, {})", n, arith::to_string(e.width == 1 ? e.index : e.index / e.width), e.text);
    return fmt::format("vload_half{}(0, {} + {})", n, e.text, arith::to_string(e.index));
  }
  if (e.width == 1) return CPrinter::load(e);
  if (arith::provably_divisible(e.index, e.width))
    return fmt::format("vload{}({}, {})", e.width, arith::to_string(e.index / e.width), e.text);
  return fmt::format("vload{}(0, {} + {})", e.width, e.text, arith::to_string(e.index));
}

void OpenCLPrinter::store(const c::StmtNode& s) {
  if (half_.count(s.name)) {
    const std::string n = s.width == 1 ? "" : std::to_string(s.width);
    if (s.width == 1 || arith::provably_divisible(s.offset, s.width))
      return line(fmt::format("vstore_half{}({}, {}, {});", n, expr(s.value),
                              arith::to_string(s.width == 1 ? s.offset : s.offset / s.width), s.name));
    return line(fmt::format("vstore_half{}({}, 0, {} + {});", n, expr(s.value), s.name, arith::to_string(s.offset)));
  }
  if (s.width == 1) return CPrinter::store(s);
  if (arith::provably_divisible(s.offset, s.width))
    return line(fmt::format("vstore{}({}, {}, {});", s.width, expr(s.value), arith::to_string(s.offset / s.width), s.name));
  line(fmt::format("vstore{}({}, 0, {} + {});", s.width, expr(s.value), s.name, arith::to_string(s.offset)));
}

std::string OpenCLPrinter::work_item(const c::ExprNode& e) { return "(int)" + CPrinter::work_item(e); }

void OpenCLPrinter::barrier(const c::StmtNode& s) {
  std::string fences = s.local_fence && s.global_fence ? "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"
                       : s.global_fence                ? "CLK_GLOBAL_MEM_FENCE"
                                                       : "CLK_LOCAL_MEM_FENCE";
  line(fmt::format("barrier({});", fences));
}

void OpenCLPrinter::unroll_hint(const c::StmtNode& s) {
  if (s.unroll) line("#pragma unroll");
}

}  // namespace liftc::codegen
