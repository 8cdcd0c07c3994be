// The removed ops as the model runner's extra kernels: each computed by its rule's reference kernel, with the
// meaning it had at the opset the model was written at. The opset move's proof runs the model before and after
// the move with them (the move passes the removed ops through untouched, so after it they still mean what they
// meant before: an MVN-1 node with no attributes would otherwise read as MeanVarianceNormalization-13, whose
// default axes differ); the era differential test runs legacy originals with them.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_REMOVED_OP_KERNELS_H_
#define ONNX_LEGALIZE_SRC_VERIFY_REMOVED_OP_KERNELS_H_

#include <cstdint>
#include <vector>

#include "eval/model_runner.h"

namespace onnx_legalize {

class RemovedOpKernels final : public ExtraKernels {
 public:
  explicit RemovedOpKernels(int64_t written_at) : written_at_(written_at) {}

  bool Handles(const onnx::NodeProto& node, int64_t opset) const override;
  absl::StatusOr<std::vector<Tensor>> Run(const onnx::NodeProto& node, int64_t opset,
                                          const std::vector<const Tensor*>& inputs) const override;
  // The rules apply the opset they were written at, whatever the model's.
  bool IgnoresOpset(const onnx::NodeProto& /*node*/) const override { return true; }

 private:
  int64_t written_at_;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_REMOVED_OP_KERNELS_H_
