#include "layout.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::interp::detail {

namespace {

// Refuses a layout whose word count overflowed or whose size in bytes (4 per word) does
// not fit in 64 bits.
void check_words(bool overflowed, std::int64_t words, const ir::Type& t, const SourceLoc& where) {
  if (overflowed || words > kMaxWords)
    throw Error(fmt::format("a value of type {} is too large: its size in bytes does not fit in 64 bits "
                            "(give smaller sizes)",
                            ir::to_string(t)),
                where);
}

// The machine's physical memory in bytes (0 when unknown).
std::uint64_t physical_memory() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) : 0;
}

}  // namespace

void check_allocation(std::int64_t words, const std::string& what, const SourceLoc& where) {
  static const std::uint64_t memory = physical_memory();
  if (words > kMaxWords)
    throw Error(fmt::format("{} is too large: its size in bytes does not fit in 64 bits (give smaller sizes)", what),
                where);
  auto bytes = static_cast<std::uint64_t>(words) * 4;
  if (memory != 0 && bytes > memory)
    throw Error(fmt::format("{} needs {}, more than this machine's memory ({}); give smaller sizes", what,
                            format_bytes(bytes), format_bytes(memory)),
                where);
}

const Layout* Layouts::of(const ir::Type& t, const SourceLoc& where) {
  LIFTC_ASSERT(t.defined(), "the interpreter needs a type-checked program: every node has a type");
  auto it = cache_.find(t.node());
  if (it != cache_.end()) return it->second.layout.get();

  auto l = std::make_unique<Layout>();
  l->kind = t.kind();
  switch (t.kind()) {
    case ir::TypeKind::Scalar:
      l->scalar = t.scalar_kind();
      break;
    case ir::TypeKind::Vector:
      l->scalar = t.scalar_kind();
      l->width = t.width();
      l->words = t.width();
      break;
    case ir::TypeKind::Tuple:
      l->words = 0;
      for (const ir::Type& c : t.elems()) {
        const Layout* cl = of(c, where);
        l->comps.push_back(cl);
        l->comp_offsets.push_back(l->words);
        bool overflowed = __builtin_add_overflow(l->words, cl->words, &l->words);
        check_words(overflowed, l->words, t, where);
      }
      break;
    case ir::TypeKind::Array: {
      std::optional<std::int64_t> n = t.length().constant();
      LIFTC_ASSERT(n.has_value(), fmt::format("the interpreter needs bound sizes, but {} has a symbolic length "
                                              "(run ir::bind_sizes, then type check)", ir::to_string(t)));
      LIFTC_ASSERT(*n >= 0, fmt::format("array lengths are non-negative: {}", ir::to_string(t)));
      l->length = *n;
      l->elem = of(t.elem(), where);
      bool overflowed = __builtin_mul_overflow(l->length, l->elem->words, &l->words);
      check_words(overflowed, l->words, t, where);
      break;
    }
  }
  const Layout* result = l.get();
  cache_.emplace(t.node(), Entry{t, std::move(l)});
  return result;
}

}  // namespace liftc::interp::detail
