// How much trial data a proof draws, in elements. The two proofs that draw trial data keep a limit each, for
// reasons of their own (below); both keep verifying a model of thousands of nodes cheap.
#ifndef ONNX_LEGALIZE_SRC_RULES_TRIAL_LIMITS_H_
#define ONNX_LEGALIZE_SRC_RULES_TRIAL_LIMITS_H_

#include <cstdint>

namespace onnx_legalize {

// A removed op's trial inputs (rules/rule_support.cc, TrialDims). The removed ops compute each element (or each
// channel's statistics) alike, so every dim is drawn at most 6, which covers every case their results depend on;
// this bounds what such dims multiply to at high ranks (6^4 = 1296 at NCHW fits; from rank 5 the largest dims are
// halved until the trial fits). Each element is computed twice, by the rule's reference kernel and by the
// evaluator running the replacement.
inline constexpr int64_t kMaxRemovedOpTrialElements = 4096;

// A DynamicSlice rewrite's trial data (verify/dynamic_slice_verify.cc). Slicing's result depends on how starts
// and ends relate to each dim, so a declared shape is sliced as it is up to this size, and only a larger one is
// scaled down, dim by dim. Slicing copies elements and computes none: its budget is 16 times the removed ops'.
inline constexpr int64_t kMaxSliceTrialElements = int64_t{1} << 16;

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_TRIAL_LIMITS_H_
