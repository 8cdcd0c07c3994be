// The sequence ops of opset 11 (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
// SequenceLength, ConcatFromSequence, SplitToSequence): the values they pass are sequences of tensors, which a
// tensor kernel (kernel.h) cannot take, so the runner calls them apart and keeps their sequences beside its
// tensors. A sequence is shared, not copied, as a tensor is: its tensors are the Values it was built from.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_SEQUENCE_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_SEQUENCE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels/kernel.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

struct TensorSequence {
  DataType type = onnx::TensorProto::FLOAT;  // every tensor's (an empty sequence keeps SequenceEmpty's dtype)
  std::vector<Value> tensors;
};
using Sequence = std::shared_ptr<const TensorSequence>;

// What a sequence op reads or makes: a tensor or a sequence (neither for an omitted optional input).
struct SequenceOpValue {
  Value tensor;
  Sequence sequence;
};

// Whether `node` is one of the sequence ops above (default domain).
bool IsSequenceOp(const onnx::NodeProto& node);

// Runs a sequence op at default opset `opset` (each has one output). The ops exist from opset 11; below it the
// node is not one of them and this is InvalidArgument.
absl::StatusOr<SequenceOpValue> RunSequenceOp(const onnx::NodeProto& node, int64_t opset,
                                              const std::vector<SequenceOpValue>& inputs);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_SEQUENCE_H_
