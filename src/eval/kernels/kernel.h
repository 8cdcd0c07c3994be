// What a model-runner kernel is: a function from one node's input values (at the model's default opset) to
// its output values. The runner (eval/model_runner.cc) finds kernels by op type in the registry
// (kernels/registry.h), wires values between nodes and adds the node's label and graph to every error, so a
// kernel's message says only what is wrong ("X is float[1,3], W is float[8,4,3,3]: channels differ").
//
// A kernel is told the model's default-domain opset and applies the semantics of the version of its op that
// opset selects (Conv-1 against Conv-11, Softmax-1's coerced 2-D input against Softmax-13's single axis, ...).
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_KERNEL_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_KERNEL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Values are shared, not copied: Identity, If and Loop pass a tensor on without touching its bytes.
using Value = std::shared_ptr<const Tensor>;
using Outputs = std::vector<Value>;

struct KernelContext {
  KernelContext(const onnx::NodeProto& node, std::vector<Value> inputs, int64_t opset)
      : node(node), inputs(std::move(inputs)), opset_(opset) {}

  const onnx::NodeProto& node;
  std::vector<Value> inputs;  // null where the node leaves an optional input empty
  // The element operations (eval/node_work.h) this node may do before its run passes its budget; unlimited when
  // the run is not metered. The runner checks the budget after each node, so a kernel whose work grows past
  // reading its inputs and writing its outputs (a Resize interpolating many dims, a Conv of a large kernel)
  // checks first (AffordWork, kernel_support.h): one node cannot run for minutes past the budget.
  int64_t work_allowed = std::numeric_limits<int64_t>::max();
  // Set by AffordWork when the node would pass work_allowed: the runner then ends the run as past its budget.
  mutable bool past_work_allowed = false;

  const Tensor* Input(size_t index) const { return index < inputs.size() ? inputs[index].get() : nullptr; }
  // What a kernel asks of the model's default-domain opset is recorded as the opsets its answers hold for: a
  // kernel that computed a node asking only OpsetAtLeast computes the same, from the same node and inputs, at
  // every opset that gives the same answers (OpsetsAnsweredAlike). The opset move's proof then computes such a
  // node once for both forms, even where its op has another version at the other opset (eval/paired_run.cc).
  // The opset itself, for a kernel whose answer depends on more than one threshold (holds for this opset only).
  int64_t opset() const {
    answered_from_ = std::max(answered_from_, opset_);
    answered_until_ = std::min(answered_until_, opset_ + 1);
    return opset_;
  }
  // Whether the opset is `version` or later (an op's version that changed something).
  bool OpsetAtLeast(int64_t version) const {
    const bool at_least = opset_ >= version;
    if (at_least) {
      answered_from_ = std::max(answered_from_, version);
    } else {
      answered_until_ = std::min(answered_until_, version);
    }
    return at_least;
  }
  // Whether the kernel's questions about the opset so far get the same answers at `opset`.
  bool OpsetsAnsweredAlike(int64_t opset) const { return opset >= answered_from_ && opset < answered_until_; }
  // Whether the node asks for output `index` (it names it).
  bool WantsOutput(int index) const { return index < node.output_size() && !node.output(index).empty(); }

 private:
  int64_t opset_;
  // The opsets at which every question asked so far gets the answer it got: [answered_from_, answered_until_).
  mutable int64_t answered_from_ = 0;
  mutable int64_t answered_until_ = std::numeric_limits<int64_t>::max();
};

// Returns the node's outputs in order (at least as many as the node names; more are ignored).
using Kernel = absl::StatusOr<Outputs> (*)(const KernelContext&);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_KERNEL_H_
