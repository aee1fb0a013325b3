#pragma once
// A learned cost model: gradient-boosted trees (XGBoost's C API) with a ranking objective,
// trained on candidates already measured and asked to rank candidates not measured yet.
// Only the order of its scores means something: a higher score is a candidate the model
// expects to be faster. The trees are XGBoost's; this file only holds its handles (freed
// by their owners), checks every call, and lays rows out as XGBoost reads them.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace liftc::explore::cost {

/// Settings of the ranking model.
struct ModelOptions {
  std::string objective = "rank:pairwise";  // or "rank:ndcg"
  int rounds = 50;                          // boosting rounds per training
  int max_depth = 3;
  double eta = 0.1;                         // learning rate
  double min_child_weight = 0;              // pairwise hessians are small: no lower bound
  std::uint64_t seed = 0;                   // XGBoost's seed
  int threads = 1;                          // XGBoost's nthread: 1 makes a training reproducible
};

/// What a model is trained on: rows of one width (row-major; NaN: a feature the row does
/// not have), a relevance each (higher: better) and the sizes of the query groups, in row
/// order (rows are ranked only against the rows of their group).
struct RankingData {
  std::size_t columns = 0;
  std::vector<float> features;   // rows × columns
  std::vector<float> relevance;  // one a row
  std::vector<unsigned> groups;  // sizes, summing to the rows

  std::size_t rows() const { return relevance.size(); }
};

/// Gradient-boosted trees ranking rows. Move-only (it owns XGBoost's booster).
class RankModel {
 public:
  explicit RankModel(ModelOptions options = {});
  ~RankModel();
  RankModel(RankModel&&) noexcept;
  RankModel& operator=(RankModel&&) noexcept;

  /// Trains a new booster on `data` (the previous one is dropped). A liftc::Error naming
  /// XGBoost's message when a call fails, or when `data` is not of the shape it claims.
  void train(const RankingData& data);
  /// Scores rows of `columns` features (row-major): higher is better. Columns beyond those
  /// trained on are ignored (no tree splits on them), missing ones are NaN. Needs train().
  std::vector<float> score(const std::vector<float>& features, std::size_t columns) const;
  /// Whether train() has run.
  bool trained() const;
  /// The width of the rows trained on.
  std::size_t columns() const { return columns_; }

 private:
  struct Booster;
  ModelOptions options_;
  std::unique_ptr<Booster> booster_;
  std::size_t columns_ = 0;
};

/// Spearman's rank correlation of `a` and `b` (ties at their mean rank); 0 when either is
/// constant or they have fewer than two values.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace liftc::explore::cost
