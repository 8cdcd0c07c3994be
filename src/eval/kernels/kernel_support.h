// What every kernel file shares: checking a node's inputs and attributes, describing values in messages,
// axes, and the runner's limit on the size of a value.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_KERNEL_SUPPORT_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_KERNEL_SUPPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "eval/kernels/kernel.h"
#include "graph/attributes.h"

namespace onnx_legalize {

// The largest value a kernel may make: the runner executes models it is given (the opset move's proof), which
// may ask for any size. 2^26 elements is 256 MiB of float, more than any activation of a real CNN at 224x224
// (VGG-16's largest is 2^21.6) or of the style-transfer networks at 720x720 (2^24).
inline constexpr int64_t kMaxValueElements = int64_t{1} << 26;

// ResourceExhausted when `count` elements exceed kMaxValueElements; `what` names the value.
absl::Status CheckValueSize(int64_t count, absl::string_view what);
// The element count of `dims`, checked against overflow and kMaxValueElements.
absl::StatusOr<int64_t> CheckedOutputCount(const std::vector<int64_t>& dims, absl::string_view what);

// ResourceExhausted, and ctx.past_work_allowed set, when `work` element operations (`what` names them) exceed
// what the node may still do (KernelContext::work_allowed). Called before the work starts.
absl::Status AffordWork(const KernelContext& ctx, int64_t work, absl::string_view what);
// a * b, held at INT64_MAX for a product that overflows or a negative factor: a count of work only needs to say
// "past any budget".
int64_t SaturatingMul(int64_t a, int64_t b);

std::string DimsString(const std::vector<int64_t>& dims);
// "float[1,3,224,224]".
std::string Describe(const Tensor& tensor);

absl::Status Prefixed(const absl::Status& status, absl::string_view prefix);

Value Share(Tensor tensor);
// One output from a computed tensor, or its error.
absl::StatusOr<Outputs> Single(absl::StatusOr<Tensor> tensor);

// A copy of `tensor` with other dims holding the same elements.
absl::StatusOr<Tensor> WithDims(const Tensor& tensor, std::vector<int64_t> dims);

// InvalidArgument unless the node has between `min` and `max` inputs (empty names count: they hold a place).
absl::Status ExpectInputCount(const KernelContext& ctx, int min, int max);
absl::StatusOr<const Tensor*> RequiredInput(const KernelContext& ctx, size_t index, absl::string_view what);

absl::StatusOr<std::optional<int64_t>> IntAttribute(const onnx::NodeProto& node, absl::string_view name);
absl::StatusOr<std::optional<float>> FloatAttribute(const onnx::NodeProto& node, absl::string_view name);
absl::StatusOr<std::optional<std::string>> StringAttribute(const onnx::NodeProto& node, absl::string_view name);
absl::StatusOr<std::optional<std::vector<int64_t>>> IntsAttribute(const onnx::NodeProto& node, absl::string_view name);
absl::StatusOr<std::optional<std::vector<float>>> FloatsAttribute(const onnx::NodeProto& node, absl::string_view name);
// The attribute's value, or `fallback` when the node does not have it.
absl::StatusOr<int64_t> IntAttributeOr(const onnx::NodeProto& node, absl::string_view name, int64_t fallback);
absl::StatusOr<float> FloatAttributeOr(const onnx::NodeProto& node, absl::string_view name, float fallback);
absl::StatusOr<std::string> StringAttributeOr(const onnx::NodeProto& node, absl::string_view name,
                                              absl::string_view fallback);

// InvalidArgument when the node has attribute `name`, which its op at ctx.opset() does not have (`why` ends
// the sentence: "takes it as input 1").
absl::Status RejectAttribute(const KernelContext& ctx, absl::string_view name, absl::string_view why);

// `axes` made non-negative against `rank`, each in [-rank, rank-1] and none twice. A negative axis counts from
// the back at every opset: the op texts define it only from opset 11 and leave it undefined before, but the
// runtimes of that era (Caffe2, ONNX Runtime, TensorRT) read it so, and the exporters that wrote it (PyTorch's
// dim=-1) meant it so; ONNX Runtime's reading is what the runner's differential test checks it against.
absl::StatusOr<std::vector<int64_t>> NormalizeAxes(std::vector<int64_t> axes, int64_t rank, absl::string_view what);
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, absl::string_view what);

// Concatenates same-typed tensors along `axis`, given the output dims (checked by the caller).
absl::StatusOr<Tensor> ConcatenateAlong(const std::vector<const Tensor*>& parts, int64_t axis,
                                        std::vector<int64_t> out_dims);

// The product of dims [begin, end) of `dims` (the caller has checked the whole product).
int64_t DimsProduct(const std::vector<int64_t>& dims, size_t begin, size_t end);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_KERNEL_SUPPORT_H_
