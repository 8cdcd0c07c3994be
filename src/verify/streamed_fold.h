// A DynamicSlice fold too large to hold beside the model, written part by part (eval/deferred_tensor.h).
//
// Each part is computed with the DynamicSlice reference kernel and, unless verification is off,
// recomputed with the independent Slice kernel and compared bit for bit before it is handed on: the
// fold's proof is the one VerifyFold gives a fold held whole, made in parts of bounded size while the
// output is written. Each kernel places a part in the output it computes itself (OutputPart), so the
// tiling cannot hide a disagreement about where the result lies.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_STREAMED_FOLD_H_
#define ONNX_LEGALIZE_SRC_VERIFY_STREAMED_FOLD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "eval/deferred_tensor.h"
#include "rules/dynamic_slice.h"

namespace onnx_legalize {

// The bytes of one part: small enough that two parts (the fold's and its recomputation) are nothing beside
// a large model, large enough that the kernels' per-part costs vanish.
inline constexpr int64_t kStreamedPartBytes = int64_t{4} << 20;

class StreamedFold : public DeferredTensor {
 public:
  // The fold `change` plans (its constants must outlive this), whose result has `dims`; `verify` recomputes
  // every part with the Slice kernel.
  StreamedFold(const DynamicSliceChange& change, std::vector<int64_t> dims, bool verify);

  DataType type() const override { return data_.type(); }
  const std::vector<int64_t>& dims() const override { return dims_; }

  // A part that the kernels disagree on, or that either rejects, fails as a verification failure
  // (core/error_kind.h) naming the node and the part.
  absl::Status WriteTo(const ByteSink& sink) const override;

 private:
  // The bytes each kernel builds its part in, handed back part after part: one allocation per kernel for the
  // whole fold, not one per part (fresh pages each time, which the kernel zeroes and the process faults in,
  // cost more than the slicing).
  struct PartStorage {
    std::string folded, recomputed;
  };

  absl::Status WritePart(const std::vector<int64_t>& offset, const std::vector<int64_t>& size, const ByteSink& sink,
                         PartStorage& storage) const;

  const Tensor& data_;
  const Tensor& starts_;
  const Tensor& ends_;
  const Tensor* axes_;
  std::vector<int64_t> dims_;
  bool verify_;
  std::string label_;  // the node, for messages
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_STREAMED_FOLD_H_
