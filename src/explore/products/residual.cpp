// A convolution and the element-wise layer over it split apart (residual.hpp).

#include "liftc/explore/products/residual.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "definition_forms.hpp"
#include "liftc/explore/products/split_references.hpp"
#include "liftc/ir/prim.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

using detail::element_wise;
using detail::reduces;
using detail::scalars;

bool is_call(const ir::Expr& e, ir::Prim p) { return e.defined() && e.kind() == ir::ExprKind::Call && e->prim == p; }

bool is_var(const ir::Expr& e, const std::string& name) {
  return e.defined() && e.kind() == ir::ExprKind::Var && e->name == name;
}

// Whether every free occurrence of `p` in `e` is the projection `p.0` (`p` not rebound).
bool reads_only_first(const ir::Expr& e, const std::string& p) {
  if (e.kind() == ir::ExprKind::Get && e->index == 0 && is_var(e->args[0], p)) return true;
  if (is_var(e, p)) return false;
  if (e.kind() == ir::ExprKind::Lambda && std::find(e->params.begin(), e->params.end(), p) != e->params.end()) return true;
  if (e.kind() == ir::ExprKind::Let && e->name == p) return reads_only_first(e->args[0], p);
  return std::all_of(e->args.begin(), e->args.end(), [&](const ir::Expr& a) { return reads_only_first(a, p); });
}

// `e` with each free `p.0` read as the variable `w`.
ir::Expr first_as(const ir::Expr& e, const std::string& p, const std::string& w) {
  if (e.kind() == ir::ExprKind::Get && e->index == 0 && is_var(e->args[0], p)) return ir::make_var(w);
  if (e.kind() == ir::ExprKind::Lambda && std::find(e->params.begin(), e->params.end(), p) != e->params.end()) return e;
  std::vector<ir::Expr> args;
  bool changed = false;
  for (std::size_t i = 0; i < e->args.size(); ++i) {
    bool shadowed = e.kind() == ir::ExprKind::Let && i == 1 && e->name == p;
    args.push_back(shadowed ? e->args[i] : first_as(e->args[i], p, w));
    changed = changed || !same_node(args.back(), e->args[i]);
  }
  return changed ? ir::with_args(e, std::move(args)) : e;
}

ir::Expr pixel_function(const ir::Expr& e);

// The first subterm (pre-order) of `e` that reduces and whose free variables are `globals`
// or the window `w` (read as `w.0` where `first` is set), the window read at all when `w`
// is given, a 2D map (pixel_function) where `map2d` is set; undefined when there is none.
// Nothing bound between `e` and it is read.
ir::Expr reduction_part(const ir::Expr& e, const std::vector<std::string>& globals, const std::string& w, bool first,
                        bool map2d = false) {
  if (e.kind() == ir::ExprKind::Call && reduces(e) && (!map2d || pixel_function(e).defined())) {
    std::vector<std::string> names = ir::free_vars(e);
    bool closed = std::all_of(names.begin(), names.end(), [&](const std::string& n) {
      return n == w || std::find(globals.begin(), globals.end(), n) != globals.end();
    });
    bool reads_window = w.empty() || std::find(names.begin(), names.end(), w) != names.end();
    if (closed && reads_window && (!first || reads_only_first(e, w))) return e;
  }
  for (const auto& a : e->args)
    if (ir::Expr found = reduction_part(a, globals, w, first, map2d); found.defined()) return found;
  return {};
}

// `zip2D(x, y)` as the prelude writes it, `map(rows -> zip(rows.0, rows.1), zip(x, y))`, or
// with its pair destructured, `map((u, v) -> zip(u, v), zip(x, y))`: the zip of x and y; else undefined.
ir::Expr zip2d_pairs(const ir::Expr& e) {
  if (!is_call(e, ir::Prim::Map) || !is_call(e->args[1], ir::Prim::Zip) || e->args[1]->args.size() != 2) return {};
  const ir::Expr& f = e->args[0];
  if (f.kind() != ir::ExprKind::Lambda || !is_call(f->args[0], ir::Prim::Zip) || f->args[0]->args.size() != 2) return {};
  const ir::Expr& a = f->args[0]->args[0];
  const ir::Expr& b = f->args[0]->args[1];
  bool projected = f->params.size() == 1 && a.kind() == ir::ExprKind::Get && a->index == 0 && is_var(a->args[0], f->params[0]) &&
                   b.kind() == ir::ExprKind::Get && b->index == 1 && is_var(b->args[0], f->params[0]);
  bool destructured = f->params.size() == 2 && is_var(a, f->params[0]) && is_var(b, f->params[1]);
  return projected || destructured ? e->args[1] : ir::Expr();
}

// `map(row -> map(f, row), x)` for a lambda f of one or two parameters: f; else undefined.
ir::Expr pixel_function(const ir::Expr& e) {
  if (!is_call(e, ir::Prim::Map)) return {};
  const ir::Expr& rows = e->args[0];
  if (rows.kind() != ir::ExprKind::Lambda || rows->params.size() != 1 || !is_call(rows->args[0], ir::Prim::Map)) return {};
  const ir::Expr& f = rows->args[0]->args[0];
  if (!is_var(rows->args[0]->args[1], rows->params[0]) || f.kind() != ir::ExprKind::Lambda) return {};
  return f->params.size() == 1 || f->params.size() == 2 ? f : ir::Expr();
}

// `map(row -> map(f, row), x)`, the row's name fresh from `avoid`.
ir::Expr map2d(const ir::Expr& f, const ir::Expr& x, const std::vector<std::string>& avoid) {
  std::string row = ir::fresh_name("row", avoid);
  return ir::make_call(ir::Prim::Map, {},
                       {ir::make_lambda({row}, ir::make_call(ir::Prim::Map, {}, {f, ir::make_var(row)})), x});
}

// A definition split: the convolution's body and the element-wise body over `conv` (the
// layer), and what the layer combines the convolution's output with.
struct Parts {
  ir::Expr convolution, layer;
  std::vector<std::string> others;
};

// `body` (typed) as a convolution and the element-wise layer over it named `conv`; none when it is neither form.
std::optional<Parts> residual_parts(const ir::Expr& body, const std::vector<std::string>& globals,
                                    const std::string& conv, const std::vector<std::string>& avoid) {
  // The windows zipped with the other value: the reduction over p.0 (or s) taken out of the zip.
  if (ir::Expr f = pixel_function(body); f.defined()) {
    if (ir::Expr zipped = zip2d_pairs(body->args[1]); zipped.defined()) {
      bool first = f->params.size() == 1;
      const std::string& p = f->params[0];
      ir::Expr g = reduction_part(f->args[0], globals, p, first);
      if (g.defined()) {
        std::string w = ir::fresh_name("window", avoid);
        ir::Expr conv_body = map2d(ir::make_lambda({w}, first ? first_as(g, p, w) : ir::substitute(g, {{p, ir::make_var(w)}})),
                                   zipped->args[0], avoid);
        ir::Expr value = first ? ir::make_get(ir::make_var(p), 0) : ir::make_var(p);
        ir::Expr rest = ir::replace_node(body, g, value);
        rest = ir::replace_node(rest, zipped->args[0], ir::make_var(conv));
        return Parts{conv_body, rest, {}};
      }
    }
  }
  // The convolution a closed part of the definition (not the definition itself).
  for (const auto& a : body->args)
    if (ir::Expr c = reduction_part(a, globals, "", false, true); c.defined())
      return Parts{c, ir::replace_node(body, c, ir::make_var(conv))};
  return std::nullopt;
}

}  // namespace

ResidualProgram split_residuals(const ir::Program& program, const rewrite::RuleSet* rules) {
  ResidualProgram out{program, {}};
  // Written otherwise (the other image zipped first, the residual in the sums' start): as
  // its normal form, where that is one of the two forms.
  out.program = detail::split_definitions(
      program, rules,
      [](const ir::Expr& body, const std::string& conv, const std::vector<std::string>& bound,
         const detail::SplitSite& site) -> std::optional<Parts> {
        std::optional<Parts> parts = residual_parts(body, site.globals, conv, bound);
        // The layer one to one over the convolution, and reading another value of its size:
        // a residual (not a bias per channel, which normal-form takes into the sums).
        if (!parts || !element_wise(parts->layer)) return std::nullopt;
        return parts;
      },
      [](const detail::SplitSite&) { return true; },
      [&](Parts& parts, const ir::Program& checked) {
        const std::map<std::string, std::int64_t> sizes = ir::size_values(checked);
        const std::string& conv = checked.defs[checked.defs.size() - 2].name;
        std::optional<std::int64_t> n = scalars(checked.defs[checked.defs.size() - 2].body.type(), sizes);
        if (!n || n != scalars(checked.defs.back().body.type(), sizes)) return false;
        std::map<std::string, ir::Type> types;  // of the inputs and the definitions before it
        for (const auto& i : checked.inputs) types[i.name] = i.type;
        for (std::size_t d = 0; d + 2 < checked.defs.size(); ++d)
          types[checked.defs[d].name] = checked.defs[d].body.type();
        for (const auto& name : ir::free_vars(parts.layer))
          if (auto t = types.find(name); name != conv && t != types.end() && scalars(t->second, sizes) == n)
            parts.others.push_back(name);
        return !parts.others.empty();
      },
      [&](const detail::SplitSite& site, const std::string& conv, const Parts& parts, bool normal_form) {
        out.splits.push_back(
            {site.definition.name, conv, fmt::format("{}", fmt::join(parts.others, ", ")), normal_form});
      });
  return out;
}

void add_residual_references(Problem& network, const ResidualProgram& split) {
  std::vector<SplitDefinition> definitions;
  for (const auto& s : split.splits)
    definitions.push_back(convolution_split(s.definition, s.convolution, s.normal_form, "the layer over it"));
  add_split_references(network, split.program, definitions);
}

std::string residual_splits_text(const ResidualProgram& split) {
  std::vector<std::string> out;
  for (const auto& s : split.splits)
    out.push_back(fmt::format("{} into {} (the convolution) and {} (its values combined with {})", s.definition,
                              s.convolution, s.definition, s.other));
  return fmt::format("{}", fmt::join(out, "; "));
}

}  // namespace liftc::explore
