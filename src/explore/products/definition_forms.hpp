#pragma once
// Internal to explore/products: the forms of a definition that the splits of a definition
// into layers (residual.cpp, pool_split.cpp) and the fusions of layers (layers.cpp) look for.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "liftc/ir/expr.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore::detail {

/// Whether `e` or anything under it is a reduce.
bool reduces(const ir::Expr& e);

/// Whether `e` keeps values one to one: scalar computations, maps, zips, joins, splits and
/// transposes only (no reduction, window, padding or concatenation): the one-to-one fusion's
/// consumer (layers.cpp) and the layer a residual split leaves over its convolution
/// (residual.cpp). A transpose moves each value, one for one: a channel-first add over a
/// channel-last convolution transposed back, a pixel shuffle.
bool element_wise(const ir::Expr& e);

/// The number of scalars of `t` (a vector's lanes, a tuple's components' summed) at the size
/// values `sizes`; none where a length has no value. The one-to-one fusion and the residual
/// split compare a reader's values with its producer's by it.
std::optional<std::int64_t> scalars(const ir::Type& t, const std::map<std::string, std::int64_t>& sizes);

/// Appends every name `e` binds or reads to `out` (so that a fresh name captures nothing
/// when put inside it).
void names_in(const ir::Expr& e, std::vector<std::string>& out);

/// Each definition of `program` in normal form (`normal-form` of `rules`), or none where
/// there are no rules or it gives none.
std::optional<ir::Program> normal_forms(const ir::Program& program, const rewrite::RuleSet* rules);

/// The array `x` whose non-overlapping p x q windows `e` is: slide2D's,
/// `map(t -> transpose(t), slide(p, p, map(row -> slide(q, q, row), x)))`, or the prelude's
/// tile2D tiles, `map(t -> transpose(t), split(p, map(row -> split(q, row), x)))` (which
/// normal-form makes those windows, pool-tiles-as-windows), p and q at least 2 at the size
/// values `sizes` (a pooling's windows); undefined when `e` is not. With `overlapping`, slide2D's
/// windows of any step too (a 3x3 pooling with stride 2: each value in several windows).
ir::Expr pooled_array(const ir::Expr& e, const std::map<std::string, std::int64_t>& sizes, bool overlapping = false);

/// Where split_definitions tries a split: the definition (typed), what its parts may read (the
/// inputs, the definitions before it and their convolutions), and the program's size values.
struct SplitSite {
  const ir::Definition& definition;
  const std::vector<std::string>& globals;
  const std::map<std::string, std::int64_t>& sizes;
};

/// Each definition of `program` that `split` takes, split into its convolution (a fresh name,
/// NAME_conv) and the layer over it, both put in its place (the residual and the pooling
/// splits): as written, else (given `rules`, and where `normal_form_too(site)`) in its normal
/// form. `split(body, conv, bound, site)` gives the parts of `body` (a value with `convolution`
/// and `layer`, the two bodies, and what the caller keeps of it) or none; `bound` is every
/// name of the program and of `body`, and `conv`. Parts are kept only where, after the
/// definitions so far, they type check and `keep(parts, checked)` holds (`checked`: those
/// definitions and the two parts, typed; it may add to the parts). `found(site, conv, parts,
/// normal_form)` is called for each split. A program a strategy rewrote already (tuning
/// parameters: sizes with a range and no value, which its definitions share) is explored whole,
/// as explored_by_layer says, not split. Returns the program with the splits (`program` when none).
template <typename Split, typename NormalFormToo, typename Keep, typename Found>
ir::Program split_definitions(const ir::Program& program, const rewrite::RuleSet* rules, Split split,
                              NormalFormToo normal_form_too, Keep keep, Found found) {
  if (std::any_of(program.sizes.begin(), program.sizes.end(), [](const auto& s) { return !s.value && s.min; }))
    return program;
  ir::Program typed = typecheck::typecheck(program).program;
  std::map<std::string, std::int64_t> sizes = ir::size_values(typed);
  std::vector<std::string> avoid = ir::declared_names(program);
  std::vector<std::string> globals;
  for (const auto& i : typed.inputs) globals.push_back(i.name);
  std::optional<ir::Program> normal;  // the definitions in normal form, made when one is not split as written
  bool normalized = false, any = false;
  ir::Program out = program;
  out.defs.clear();
  for (std::size_t d = 0; d < typed.defs.size(); ++d) {
    const ir::Definition& def = typed.defs[d];
    SplitSite site{def, globals, sizes};
    std::string conv;
    auto split_of = [&](const ir::Expr& body) {
      std::vector<std::string> bound = avoid;
      names_in(body, bound);
      conv = ir::fresh_name(def.name + "_conv", bound);
      bound.push_back(conv);
      auto parts = split(body, conv, bound, site);
      if (!parts) return parts;
      ir::Program check = out;
      check.defs.push_back({conv, parts->convolution, def.loc});
      check.defs.push_back({def.name, parts->layer, def.loc});
      try {
        if (!keep(*parts, typecheck::typecheck(check).program)) parts.reset();
      } catch (const Error&) {
        parts.reset();  // the parts do not check (an internal matter): the definition stays whole
      }
      return parts;
    };
    auto parts = split_of(def.body);
    bool from_normal_form = false;
    if (!parts && rules && normal_form_too(site)) {
      if (!normalized) normal = normal_forms(program, rules);
      normalized = true;
      if (normal && d < normal->defs.size() && normal->defs[d].name == def.name)
        if ((parts = split_of(normal->defs[d].body))) from_normal_form = true;
    }
    globals.push_back(def.name);
    if (!parts) {
      out.defs.push_back(program.defs[d]);
      continue;
    }
    any = true;
    avoid.push_back(conv);
    globals.push_back(conv);
    out.defs.push_back({conv, parts->convolution, def.loc});
    out.defs.push_back({def.name, parts->layer, def.loc});
    found(site, conv, *parts, from_normal_form);
  }
  if (!any) return program;
  typecheck::typecheck(out);  // an internal error, not the user's, if it does not check
  return out;
}

}  // namespace liftc::explore::detail
