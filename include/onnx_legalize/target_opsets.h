// The default-domain opsets the library works within, defined here once: the bounds of a request's target
// (Options::target_opset), of the opset move (src/upgrade/) and of the model runner (src/eval/) are the same
// because all three are the opsets of the onnx the library is built with (1.23).
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_TARGET_OPSETS_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_TARGET_OPSETS_H_

#include <cstdint>

namespace onnx_legalize {

// The opsets onnx-legalize can target: any default opset onnx 1.23 (the version converter this library uses)
// knows, from the model's own up. ONNX Runtime 1.31 runs opsets to 26; a result at 27 or 28 is proved by the
// model runner alone, and its IR version (14 at 28) is one that ONNX Runtime 1.31 refuses. A target must also express
// every rewrite: a DynamicSlice computed at run time needs Slice-10 (kFirstSliceWithIndexInputs), the removed ops'
// replacements 7 or 9 (a refusal names the node otherwise); runtimes pinned at opset 7-9 exist.
inline constexpr int64_t kMinTargetOpset = 1;
inline constexpr int64_t kMaxTargetOpset = 28;
// Slice-10 is the first Slice that takes its indices as inputs.
inline constexpr int64_t kFirstSliceWithIndexInputs = 10;

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_TARGET_OPSETS_H_
