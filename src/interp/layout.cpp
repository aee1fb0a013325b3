#include "layout.hpp"

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::interp::detail {

const Layout* Layouts::of(const ir::Type& t) {
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
        const Layout* cl = of(c);
        l->comps.push_back(cl);
        l->comp_offsets.push_back(l->words);
        l->words += cl->words;
      }
      break;
    case ir::TypeKind::Array: {
      std::optional<std::int64_t> n = t.length().constant();
      LIFTC_ASSERT(n.has_value(), fmt::format("the interpreter needs bound sizes, but {} has a symbolic length "
                                              "(run ir::bind_sizes, then type check)", ir::to_string(t)));
      LIFTC_ASSERT(*n >= 0, fmt::format("array lengths are non-negative: {}", ir::to_string(t)));
      l->length = *n;
      l->elem = of(t.elem());
      l->words = l->length * l->elem->words;
      break;
    }
  }
  const Layout* result = l.get();
  cache_.emplace(t.node(), Entry{t, std::move(l)});
  return result;
}

}  // namespace liftc::interp::detail
