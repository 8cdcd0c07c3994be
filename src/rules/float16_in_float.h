// float16 data for the removed ops that compute: widened to float, computed by the op's own rule in float,
// rounded back once to float16 (ties to even).
//
// The removed ops had no float16 kernels in ONNX Runtime, their reference runtime; Windows ML, which shipped
// fp16 legacy models (CoreML-converted style transfer), computed their float16 data in float. So a removed
// node whose inputs are float16 means: its float computation on the widened inputs, rounded to float16.
//
//   y = ImageScaler(x: float16)
//   -> x_float = Cast<to=float>(x)            exact
//      y_float = <the float replacement>(x_float)
//      y = Cast<to=float16>(y_float)          one rounding, ties to even (Cast-6 and later)
// The reference does the same in the other order of code: widen, the rule's float reference, narrow. An op
// that only moves data (Crop) is not wrapped: it takes float16 as it is.
#ifndef ONNX_LEGALIZE_SRC_RULES_FLOAT16_IN_FLOAT_H_
#define ONNX_LEGALIZE_SRC_RULES_FLOAT16_IN_FLOAT_H_

#include <memory>

#include "rules/removed_op_rule.h"

namespace onnx_legalize::rules {

// `rule` taking float16 inputs as above; nodes without a float16 input go to `rule` unchanged.
std::unique_ptr<RemovedOpRule> Float16InFloat(std::unique_ptr<RemovedOpRule> rule);

}  // namespace onnx_legalize::rules

#endif  // ONNX_LEGALIZE_SRC_RULES_FLOAT16_IN_FLOAT_H_
