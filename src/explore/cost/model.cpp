// The ranking model through XGBoost's C API (model.hpp).

#include "liftc/explore/cost/model.hpp"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::cost {

namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

// Every XGBoost call returns 0 or -1 with its message kept for XGBGetLastError.
void check(int rc, std::string_view what) {
  if (rc != 0) throw Error(fmt::format("the cost model's XGBoost failed in {}: {}", what, XGBGetLastError()));
}

struct FreeMatrix {
  void operator()(void* h) const { XGDMatrixFree(h); }
};
struct FreeBooster {
  void operator()(void* h) const { XGBoosterFree(h); }
};
using Matrix = std::unique_ptr<void, FreeMatrix>;

// `rows` rows of `columns` values (NaN: missing) as an XGBoost matrix.
Matrix make_matrix(const std::vector<float>& values, std::size_t rows, std::size_t columns) {
  LIFTC_ASSERT(values.size() == rows * columns, "a matrix holds rows x columns values");
  DMatrixHandle h = nullptr;
  check(XGDMatrixCreateFromMat(values.data(), rows, columns, kMissing, &h), "XGDMatrixCreateFromMat");
  return Matrix(h);
}

void set_param(BoosterHandle h, const char* name, const std::string& value) {
  check(XGBoosterSetParam(h, name, value.c_str()), fmt::format("XGBoosterSetParam({}={})", name, value));
}

}  // namespace

struct RankModel::Booster {
  Matrix train_matrix;  // the booster keeps a reference to the matrix it was made with
  std::unique_ptr<void, FreeBooster> handle;
};

RankModel::RankModel(ModelOptions options) : options_(std::move(options)) {}
RankModel::~RankModel() = default;
RankModel::RankModel(RankModel&&) noexcept = default;
RankModel& RankModel::operator=(RankModel&&) noexcept = default;

bool RankModel::trained() const { return booster_ != nullptr; }

void RankModel::train(const RankingData& data) {
  std::size_t rows = data.rows();
  if (rows == 0 || data.columns == 0) throw Error("the cost model cannot be trained on no rows or no features");
  if (data.features.size() != rows * data.columns)
    throw Error(fmt::format("the cost model's training rows hold {} values, not {} rows x {} columns",
                            data.features.size(), rows, data.columns));
  if (std::accumulate(data.groups.begin(), data.groups.end(), std::size_t{0}) != rows)
    throw Error(fmt::format("the cost model's query groups do not cover its {} rows", rows));
  auto b = std::make_unique<Booster>();
  b->train_matrix = make_matrix(data.features, rows, data.columns);
  check(XGDMatrixSetFloatInfo(b->train_matrix.get(), "label", data.relevance.data(), rows), "XGDMatrixSetFloatInfo(label)");
  check(XGDMatrixSetUIntInfo(b->train_matrix.get(), "group", data.groups.data(), data.groups.size()),
        "XGDMatrixSetUIntInfo(group)");
  BoosterHandle h = nullptr;
  DMatrixHandle m = b->train_matrix.get();
  check(XGBoosterCreate(&m, 1, &h), "XGBoosterCreate");
  b->handle.reset(h);
  set_param(h, "verbosity", "0");
  set_param(h, "objective", options_.objective);
  set_param(h, "nthread", std::to_string(options_.threads));
  set_param(h, "seed", std::to_string(options_.seed));
  set_param(h, "max_depth", std::to_string(options_.max_depth));
  set_param(h, "eta", fmt::format("{}", options_.eta));
  set_param(h, "min_child_weight", fmt::format("{}", options_.min_child_weight));
  set_param(h, "tree_method", "hist");
  set_param(h, "disable_default_eval_metric", "1");
  for (int i = 0; i < options_.rounds; ++i) check(XGBoosterUpdateOneIter(h, i, m), "XGBoosterUpdateOneIter");
  booster_ = std::move(b);
  columns_ = data.columns;
}

std::vector<float> RankModel::score(const std::vector<float>& features, std::size_t columns) const {
  LIFTC_ASSERT(trained(), "a cost model scores rows once it is trained");
  LIFTC_ASSERT(columns > 0 && features.size() % columns == 0, "rows to score are whole rows");
  std::size_t rows = features.size() / columns;
  if (rows == 0) return {};
  // XGBoost refuses rows wider than those it was trained on; narrower ones get NaN.
  std::vector<float> fitted(rows * columns_, kMissing);
  for (std::size_t r = 0; r < rows; ++r)
    std::copy_n(features.begin() + static_cast<std::ptrdiff_t>(r * columns), std::min(columns, columns_),
                fitted.begin() + static_cast<std::ptrdiff_t>(r * columns_));
  Matrix m = make_matrix(fitted, rows, columns_);
  const char* config = R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* result = nullptr;
  check(XGBoosterPredictFromDMatrix(booster_->handle.get(), m.get(), config, &shape, &dims, &result),
        "XGBoosterPredictFromDMatrix");
  bst_ulong n = 1;
  for (bst_ulong i = 0; i < dims; ++i) n *= shape[i];
  if (n != rows) throw Error(fmt::format("the cost model's XGBoost scored {} values for {} rows", n, rows));
  return std::vector<float>(result, result + rows);  // the booster owns `result` until its next call
}

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  LIFTC_ASSERT(a.size() == b.size(), "a rank correlation of two samples of one size");
  std::size_t n = a.size();
  if (n < 2) return 0;
  auto ranks = [n](const std::vector<double>& x) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return x[i] < x[j]; });
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n;) {
      std::size_t j = i;
      while (j + 1 < n && x[order[j + 1]] == x[order[i]]) ++j;
      for (std::size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2.0;
      i = j + 1;
    }
    return r;
  };
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / double(n);
  double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / double(n);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa <= 0 || sbb <= 0) return 0;
  return sab / std::sqrt(saa * sbb);
}

}  // namespace liftc::explore::cost
