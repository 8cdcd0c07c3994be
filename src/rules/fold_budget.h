// What the folds of one model may hold together (Options::max_total_fold_bytes), shared by every planner of
// the model: the limit is the model's, whichever family (DynamicSlice or a removed op's rule) folds.
#ifndef ONNX_LEGALIZE_SRC_RULES_FOLD_BUDGET_H_
#define ONNX_LEGALIZE_SRC_RULES_FOLD_BUDGET_H_

#include <cstdint>

namespace onnx_legalize {

class FoldBudget {
 public:
  FoldBudget() = default;  // no budget: nothing fits
  explicit FoldBudget(int64_t limit) : limit_(limit) {}

  // Whether a fold of `bytes` more stays within the limit (never overflows: used_ <= limit_).
  bool Fits(int64_t bytes) const { return bytes <= limit_ - used_; }
  // Counts a fold that Fits.
  void Spend(int64_t bytes) { used_ += bytes; }

 private:
  int64_t limit_ = 0;
  int64_t used_ = 0;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_FOLD_BUDGET_H_
