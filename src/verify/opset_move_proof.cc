#include "verify/opset_move_proof.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "eval/float16.h"
#include "eval/model_runner.h"
#include "eval/tensor.h"
#include "graph/graph_scope.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "rules/removed_op_rule.h"
#include "status_macros.h"
#include "verify/removed_op_kernels.h"
#include "verify/verify.h"

namespace onnx_legalize {
namespace {

// Bounds that keep the proof to seconds beside the rest of legalizing. The constants are read where they are
// (viewed, not copied), so their size costs little but the work they take part in: 2 GiB, protobuf's own
// limit on a model, lets every model through. Each drawn input: 2^22 elements holds an image batch of 1 at
// 720x720x3 (style-transfer networks) and one of 16 at 224x224x3. A model whose fed inputs hold more than
// kManyTrialsElements in all runs on one input set, not kOpsetMoveTrials: an image network's activations make
// each run cost ~0.1-1 s in the runner, a small model's each costs microseconds.
constexpr int64_t kMaxConstantBytes = int64_t{2} << 30;
constexpr int64_t kMaxInputElements = int64_t{1} << 22;
constexpr int64_t kManyTrialsElements = int64_t{1} << 16;
// Sizes drawn for dims the model leaves open: a named one (all dims of one name alike), an unnamed one; 1 in a
// model with an image-sized input (HasImageSizedInput).
constexpr int64_t kNamedDimSize = 3;
constexpr int64_t kUnnamedDimSize = 2;

// The graph inputs a caller feeds: those no initializer gives.
std::vector<const onnx::ValueInfoProto*> FedInputs(const onnx::GraphProto& graph) {
  std::map<std::string, bool> initialized;
  for (const onnx::TensorProto& initializer : graph.initializer()) initialized[initializer.name()] = true;
  std::vector<const onnx::ValueInfoProto*> fed;
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (initialized.count(input.name()) == 0) fed.push_back(&input);
  }
  return fed;
}

bool DrawableType(int32_t elem_type) {
  return elem_type == onnx::TensorProto::FLOAT || elem_type == onnx::TensorProto::DOUBLE ||
         elem_type == onnx::TensorProto::FLOAT16 || elem_type == onnx::TensorProto::INT32 ||
         elem_type == onnx::TensorProto::INT64 || elem_type == onnx::TensorProto::BOOL;
}

// Why an input cannot be drawn, or "".
std::string WhyNotDrawable(const onnx::ValueInfoProto& input) {
  const auto& type = input.type().tensor_type();
  if (!input.type().has_tensor_type() || !DrawableType(type.elem_type())) {
    return absl::StrCat("graph input '", input.name(),
                        "' is not a tensor of float16, float, double, int32, int64 or bool");
  }
  if (!type.has_shape()) return absl::StrCat("graph input '", input.name(), "' has no declared rank");
  return "";
}

// The product of an input's static dims, saturating just past kMaxInputElements (no overflow).
int64_t StaticElements(const onnx::ValueInfoProto& input) {
  int64_t product = 1;
  for (const auto& dim : input.type().tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() <= 0) continue;
    const bool past = product > kMaxInputElements || dim.dim_value() > kMaxInputElements;
    product = past ? kMaxInputElements + 1 : product * dim.dim_value();
  }
  return product;
}

// Whether a fed input's static dims alone hold more than kManyTrialsElements (an image): the model's open dims
// are then drawn as 1, as they are the batch (and one image is work enough), not kNamedDimSize.
bool HasImageSizedInput(const onnx::GraphProto& graph) {
  for (const onnx::ValueInfoProto* input : FedInputs(graph)) {
    if (StaticElements(*input) > kManyTrialsElements) return true;
  }
  return false;
}

std::vector<int64_t> DrawnDims(const onnx::ValueInfoProto& input, bool open_as_one) {
  std::vector<int64_t> dims;
  for (const auto& dim : input.type().tensor_type().shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      dims.push_back(dim.dim_value());
    } else if (open_as_one) {
      dims.push_back(1);
    } else {
      dims.push_back(dim.has_dim_param() ? kNamedDimSize : kUnnamedDimSize);
    }
  }
  return dims;
}

template <typename T>
absl::StatusOr<Tensor> DrawIntegers(DataType type, const std::vector<int64_t>& dims, int64_t count, int64_t low,
                                    int64_t high, TrialRandom& random) {
  std::string bytes(static_cast<size_t>(count) * sizeof(T), '\0');
  for (int64_t i = 0; i < count; ++i) {
    const T value = static_cast<T>(random.Uniform(low, high));
    std::memcpy(bytes.data() + i * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
  }
  return Tensor::FromBytes(type, dims, std::move(bytes));
}

// One input set: floats mixing ordinary values with +-0, +-inf, NaN and denormals; integers small (indices,
// sizes and counts within a few of the dims drawn); bools either.
absl::StatusOr<std::map<std::string, Tensor>> DrawInputs(const onnx::GraphProto& graph, TrialRandom& random) {
  std::map<std::string, Tensor> inputs;
  const bool open_as_one = HasImageSizedInput(graph);
  for (const onnx::ValueInfoProto* input : FedInputs(graph)) {
    const DataType type = input->type().tensor_type().elem_type();
    const std::vector<int64_t> dims = DrawnDims(*input, open_as_one);
    ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, input->name()));
    absl::StatusOr<Tensor> value;
    if (type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE || type == onnx::TensorProto::FLOAT16) {
      value = random.SpecialFloats(type, dims);
    } else if (type == onnx::TensorProto::INT32) {
      value = DrawIntegers<int32_t>(type, dims, count, -4, 8, random);
    } else if (type == onnx::TensorProto::INT64) {
      value = DrawIntegers<int64_t>(type, dims, count, -4, 8, random);
    } else {
      value = DrawIntegers<uint8_t>(type, dims, count, 0, 1, random);
    }
    if (!value.ok()) return value.status();
    inputs.emplace(input->name(), *std::move(value));
  }
  return inputs;
}

// Element `i` of two float tensors whose bytes differ there: nullopt when both are NaN, else how.
template <typename T>
std::optional<std::string> FloatDifference(const char* a, const char* b, int64_t i) {
  T x, y;
  std::memcpy(&x, a, sizeof(T));
  std::memcpy(&y, b, sizeof(T));
  if (std::isnan(x) && std::isnan(y)) return std::nullopt;
  return absl::StrCat("element ", i, " is ", x, " before and ", y, " after");
}

std::optional<std::string> Float16Difference(const char* a, const char* b, int64_t i) {
  uint16_t x, y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  const float wide_x = Float16ToFloat(x), wide_y = Float16ToFloat(y);
  if (std::isnan(wide_x) && std::isnan(wide_y)) return std::nullopt;
  return absl::StrCat("element ", i, " is ", wide_x, " before and ", wide_y, " after");
}

// "" when `after` is `before` bit for bit, a NaN matching any NaN (IEEE 754 leaves a computed NaN's sign
// and payload to the implementation); else what differs.
std::string Difference(const Tensor& before, const Tensor& after) {
  if (before.BitwiseEquals(after)) return "";
  if (before.type() != after.type() || before.dims() != after.dims()) {
    return absl::StrCat(DataTypeName(before.type()), "[", absl::StrJoin(before.dims(), ","), "] before, ",
                        DataTypeName(after.type()), "[", absl::StrJoin(after.dims(), ","), "] after");
  }
  const bool is_float = before.type() == onnx::TensorProto::FLOAT;
  const bool is_double = before.type() == onnx::TensorProto::DOUBLE;
  const bool is_half = before.type() == onnx::TensorProto::FLOAT16;
  const int64_t size = ElementSize(before.type());
  for (int64_t i = 0; i < before.element_count(); ++i) {
    const char* a = before.bytes().data() + i * size;
    const char* b = after.bytes().data() + i * size;
    if (std::memcmp(a, b, static_cast<size_t>(size)) == 0) continue;
    std::optional<std::string> difference = is_float    ? FloatDifference<float>(a, b, i)
                                            : is_double ? FloatDifference<double>(a, b, i)
                                            : is_half   ? Float16Difference(a, b, i)
                                                        : absl::StrCat("element ", i, " differs");
    if (difference.has_value()) return *difference;
  }
  return "";
}

// For messages: 0 when the model has no one default opset (the proof refused it before then).
int64_t DefaultOpsetOf(const onnx::ModelProto& model) { return DefaultOpset(model).value_or(0); }

absl::Status Failed(const onnx::ModelProto& before, const onnx::ModelProto& after, const std::string& what) {
  const std::string label = absl::StrCat("the opset move from ", DefaultOpsetOf(before), " to ", DefaultOpsetOf(after));
  return VerificationFailure(label, absl::StrCat(label, ": ", what));
}

}  // namespace

std::optional<std::string> WhyOpsetMoveCannotBeExecuted(const onnx::ModelProto& model,
                                                        const SetAsideInitializers& set_aside) {
  const RemovedOpKernels removed_ops(DefaultOpsetOf(model));
  if (std::optional<std::string> node = FirstUnsupportedNode(model, &removed_ops)) {
    return absl::StrCat("the model runner has no kernel for ", *node);
  }
  int64_t constant_bytes = 0;
  for (const onnx::TensorProto& initializer : model.graph().initializer()) {
    const onnx::TensorProto* data = &initializer;
    if (initializer.data_location() == onnx::TensorProto::EXTERNAL) {
      data = set_aside ? set_aside(initializer.name()) : nullptr;
      if (data == nullptr) {
        return absl::StrCat("initializer '", initializer.name(), "' is external data, which the proof does not read");
      }
    }
    constant_bytes += static_cast<int64_t>(data->ByteSizeLong());
  }
  if (constant_bytes > kMaxConstantBytes) {
    return absl::StrCat("the model's initializers hold ", constant_bytes, " bytes, over the proof's ",
                        kMaxConstantBytes);
  }
  const bool open_as_one = HasImageSizedInput(model.graph());
  for (const onnx::ValueInfoProto* input : FedInputs(model.graph())) {
    if (std::string why = WhyNotDrawable(*input); !why.empty()) return why;
    absl::StatusOr<int64_t> count = CheckedElementCount(DrawnDims(*input, open_as_one), input->name());
    if (!count.ok() || *count > kMaxInputElements) {
      return absl::StrCat("graph input '", input->name(), "' is over ", kMaxInputElements, " elements");
    }
  }
  return std::nullopt;
}

namespace {

// The number of input sets the proof runs: kOpsetMoveTrials, or 1 for a model of large inputs (see
// kManyTrialsElements).
int TrialsFor(const onnx::GraphProto& graph) {
  int64_t elements = 0;
  const bool open_as_one = HasImageSizedInput(graph);
  for (const onnx::ValueInfoProto* input : FedInputs(graph)) {
    elements += CheckedElementCount(DrawnDims(*input, open_as_one), input->name()).value_or(kMaxInputElements);
  }
  return elements > kManyTrialsElements ? 1 : kOpsetMoveTrials;
}

}  // namespace

absl::StatusOr<std::string> ProveOpsetMove(const onnx::ModelProto& before, const onnx::ModelProto& after,
                                           const Options& options, const SetAsideInitializers& set_aside) {
  if (std::optional<std::string> why = WhyOpsetMoveCannotBeExecuted(before, set_aside)) {
    return "not executed: " + *why;
  }
  const RemovedOpKernels removed_ops(DefaultOpsetOf(before));
  if (std::optional<std::string> node = FirstUnsupportedNode(after, &removed_ops)) {
    return absl::StrCat("not executed: the model runner has no kernel for ", *node, " after the move");
  }
  const int trials = TrialsFor(before.graph());
  for (int trial = 0; trial < trials; ++trial) {
    TrialRandom random(options.verify_seed ^ (0x0b5e7u + static_cast<uint64_t>(trial)));
    using Feeds = std::map<std::string, Tensor>;
    ASSIGN_OR_RETURN(Feeds inputs, DrawInputs(before.graph(), random));
    absl::StatusOr<std::map<std::string, Tensor>> expected = RunModel(before, inputs, &removed_ops, set_aside);
    if (!expected.ok()) {
      // The drawn inputs may be outside what the model accepts (an index out of range): nothing is proven.
      return absl::StrCat("not executed: the model before the move does not run on drawn inputs (",
                          expected.status().message(), ")");
    }
    absl::StatusOr<std::map<std::string, Tensor>> actual = RunModel(after, inputs, &removed_ops, set_aside);
    if (!actual.ok()) {
      if (absl::IsUnimplemented(actual.status())) {
        return absl::StrCat("not executed: ", actual.status().message());
      }
      return Failed(before, after,
                    absl::StrCat("trial ", trial,
                                 ": the model runs before the move and fails after it: ", actual.status().message()));
    }
    for (const auto& [name, value] : *expected) {
      auto moved = actual->find(name);
      if (moved == actual->end()) return Failed(before, after, absl::StrCat("output '", name, "' is gone"));
      if (std::string difference = Difference(value, moved->second); !difference.empty()) {
        return Failed(before, after, absl::StrCat("trial ", trial, ": output '", name, "': ", difference));
      }
    }
  }
  return absl::StrCat("executed in the model runner at opset ", DefaultOpsetOf(before), " and ", DefaultOpsetOf(after),
                      " on ", trials, trials == 1 ? " seeded input set" : " seeded input sets",
                      ": every output identical");
}

}  // namespace onnx_legalize
