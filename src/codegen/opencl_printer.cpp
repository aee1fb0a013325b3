// The OpenCL C printer: only what OpenCL spells differently from C.

#include <fmt/format.h>

#include "liftc/codegen/printer.hpp"

namespace liftc::codegen {

std::string OpenCLPrinter::space_qualifier(AddressSpace s) { return to_string(s); }

std::string OpenCLPrinter::function_qualifier(const c::Function& f) { return f.is_kernel ? "kernel" : ""; }

std::string OpenCLPrinter::load(const c::ExprNode& e) {
  if (e.width == 1) return CPrinter::load(e);
  if (arith::provably_divisible(e.index, e.width))
    return fmt::format("vload{}({}, {})", e.width, arith::to_string(e.index / e.width), e.text);
  return fmt::format("vload{}(0, {} + {})", e.width, e.text, arith::to_string(e.index));
}

void OpenCLPrinter::store(const c::StmtNode& s) {
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
