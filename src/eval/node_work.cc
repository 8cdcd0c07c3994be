#include "eval/node_work.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "eval/kernels/kernel_support.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

constexpr int64_t kMaxWork = std::numeric_limits<int64_t>::max();

constexpr char kConvOp[] = "Conv";
constexpr char kConvTransposeOp[] = "ConvTranspose";
constexpr char kGemmOp[] = "Gemm";
constexpr char kMatMulOp[] = "MatMul";
constexpr char kRnnOp[] = "RNN";
constexpr char kGruOp[] = "GRU";
constexpr char kLstmOp[] = "LSTM";
constexpr char kMaxPoolOp[] = "MaxPool";
constexpr char kAveragePoolOp[] = "AveragePool";
constexpr char kLpPoolOp[] = "LpPool";
constexpr char kLrnOp[] = "LRN";
constexpr char kResizeOp[] = "Resize";
constexpr char kUpsampleOp[] = "Upsample";

int64_t Elements(const Value& value) { return value == nullptr ? 0 : value->element_count(); }

// The elements after the first dim (a Conv weight's C/group x kernel, read once per output element).
int64_t ElementsPastFirstDim(const Tensor& tensor) {
  int64_t elements = 1;
  for (size_t d = 1; d < tensor.dims().size(); ++d) elements = SaturatingMul(elements, tensor.dims()[d]);
  return elements;
}

// The multiply-adds or window reads `node` does beyond reading its inputs and writing its outputs (see the
// header). The kernel has run, so the inputs and outputs it reads here are of the shapes the op allows.
int64_t ComputedWork(const onnx::NodeProto& node, const std::vector<Value>& inputs, const Outputs& outputs) {
  if (!IsDefaultDomain(node.domain()) || outputs.empty() || outputs[0] == nullptr) return 0;
  const std::string& op = node.op_type();
  const Tensor& output = *outputs[0];
  const Tensor* x = inputs.empty() ? nullptr : inputs[0].get();
  const Tensor* w = inputs.size() < 2 ? nullptr : inputs[1].get();
  // Conv: each output element is a dot product over its group's channels and the kernel: W's dims past the first.
  if (op == kConvOp && w != nullptr) return SaturatingMul(output.element_count(), ElementsPastFirstDim(*w));
  // ConvTranspose scatters each input element into M/group channels times the kernel, again W's dims past the first.
  if (op == kConvTransposeOp && x != nullptr && w != nullptr) {
    return SaturatingMul(x->element_count(), ElementsPastFirstDim(*w));
  }
  // Gemm: Y is M x N and A holds M x K elements, so each of Y's elements is a dot product of K = |A| / M.
  if (op == kGemmOp && x != nullptr && output.rank() == 2 && output.dims()[0] > 0) {
    return SaturatingMul(output.element_count(), x->element_count() / output.dims()[0]);
  }
  // MatMul: each element of Y is a dot product along A's last dim.
  if (op == kMatMulOp && x != nullptr && x->rank() >= 1) {
    return SaturatingMul(output.element_count(), x->dims().back());
  }
  // The recurrent ops multiply W and R into every step of every batch row: X holds steps x batch rows of
  // input_size elements.
  if ((op == kRnnOp || op == kGruOp || op == kLstmOp) && x != nullptr && x->rank() == 3 && x->dims().back() > 0 &&
      inputs.size() >= 3 && w != nullptr && inputs[2] != nullptr) {
    const int64_t rows = x->element_count() / x->dims().back();
    return SaturatingMul(rows, SaturatingAdd(w->element_count(), inputs[2]->element_count()));
  }
  // Pools read a window per output element.
  if (op == kMaxPoolOp || op == kAveragePoolOp || op == kLpPoolOp) {
    absl::StatusOr<std::optional<std::vector<int64_t>>> kernel = IntsAttribute(node, "kernel_shape");
    int64_t window = 1;
    if (kernel.ok() && kernel->has_value()) {
      for (const int64_t size : **kernel) window = SaturatingMul(window, size);
    }
    return SaturatingMul(output.element_count(), window);
  }
  // LRN sums a window of `size` channels per element.
  if (op == kLrnOp) {
    absl::StatusOr<std::optional<int64_t>> size = IntAttribute(node, "size");
    return SaturatingMul(output.element_count(), size.ok() && size->has_value() ? **size : 1);
  }
  // Resize and Upsample read, per output element, 2 input elements per dim they interpolate linearly, 4 per dim
  // they interpolate cubically, multiplied (the kernel checks the same before it starts: a dim counts there when
  // its coordinates move, here when its size changes).
  if ((op == kResizeOp || op == kUpsampleOp) && x != nullptr && x->rank() == output.rank()) {
    absl::StatusOr<std::optional<std::string>> mode = StringAttribute(node, "mode");
    const std::string lower = mode.ok() && mode->has_value() ? absl::AsciiStrToLower(**mode) : "nearest";
    const int64_t taps = lower == "cubic" ? 4 : (lower == "linear" || lower == "bilinear") ? 2 : 1;
    int64_t reads = 1;
    for (size_t d = 0; d < output.dims().size(); ++d) {
      if (output.dims()[d] != x->dims()[d]) reads = SaturatingMul(reads, taps);
    }
    return reads == 1 ? 0 : SaturatingMul(output.element_count(), reads);
  }
  return 0;
}

}  // namespace

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return kMaxWork;
  return sum;
}

int64_t NodeWork(const onnx::NodeProto& node, const std::vector<Value>& inputs, const Outputs& outputs) {
  // An output that is an input itself (Identity, Dropout's Y in inference) is neither read nor written: a weight
  // of gigabytes passed on by an Identity costs nothing.
  auto passed_on = [&](const Value& value) {
    return value != nullptr && std::find(outputs.begin(), outputs.end(), value) != outputs.end() &&
           std::find(inputs.begin(), inputs.end(), value) != inputs.end();
  };
  int64_t work = ComputedWork(node, inputs, outputs);
  for (const Value& input : inputs) {
    if (!passed_on(input)) work = SaturatingAdd(work, Elements(input));
  }
  for (const Value& output : outputs) {
    if (!passed_on(output)) work = SaturatingAdd(work, Elements(output));
  }
  return work;
}

int64_t SequenceNodeWork(const std::vector<SequenceOpValue>& inputs, const SequenceOpValue& output) {
  int64_t work = 0;
  auto add = [&work](const SequenceOpValue& value) {
    work = SaturatingAdd(work, Elements(value.tensor));
    if (value.sequence == nullptr) return;
    for (const Value& tensor : value.sequence->tensors) work = SaturatingAdd(work, Elements(tensor));
  };
  for (const SequenceOpValue& input : inputs) add(input);
  add(output);
  return work;
}

}  // namespace onnx_legalize
