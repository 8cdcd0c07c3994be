#include "verify/proof_inputs.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "graph/op_names.h"
#include "rules/rule_support.h"

namespace onnx_legalize {
namespace {

// Sizes drawn for dims the model leaves open (see DrawnDims).
constexpr int64_t kNamedDimSize = 3;
constexpr int64_t kUnnamedDimSize = 2;
// The range of an integer input read as neither an index nor a size: small, of either sign, as counts, axes
// and offsets are.
constexpr int64_t kLowInteger = -4;
constexpr int64_t kHighInteger = 8;

// What a model reads an integer input as, from the most to the least constrained: its values are drawn to fit.
enum class IntegerRole { kSize, kIndex, kAxes, kAny };

// An input read as a size or count: a shape to broadcast to (Expand), repeats (Tile), an output shape
// (ConstantOfShape), split lengths (Split, SplitToSequence), k (TopK), Resize's sizes, Range's delta. Ones fit each
// of these uses; other values fit only some models (Expand's shape must broadcast with its input's, split lengths
// must add up to the dim).
bool ReadsAsSize(const onnx::NodeProto& node, int input) {
  const std::string& op = node.op_type();
  if (!IsDefaultDomain(node.domain())) return false;
  return (input == 1 && (op == "Expand" || op == "Tile" || op == "Split" || op == "SplitToSequence" || op == "TopK")) ||
         (input == 0 && op == "ConstantOfShape") || (input == 3 && op == "Resize") || (input == 2 && op == "Range");
}

// An input read as positions: indices into a tensor (Gather, GatherElements, ai.onnx.ml's ArrayFeatureExtractor)
// or into a sequence (SequenceAt, SequenceInsert, SequenceErase). Out-of-range values are errors there.
bool ReadsAsIndex(const onnx::NodeProto& node, int input) {
  const std::string& op = node.op_type();
  if (node.domain() == "ai.onnx.ml") return op == "ArrayFeatureExtractor" && input == 1;
  if (!IsDefaultDomain(node.domain())) return false;
  return (input == 1 && (op == "Gather" || op == "GatherElements" || op == "SequenceAt" || op == "SequenceErase")) ||
         (input == 2 && op == "SequenceInsert");
}

// An input read as axes of its node's input 0: Slice's (opset 10 on) and DynamicSlice's `axes`. They must lie in
// the data's rank and not repeat.
bool ReadsAsAxes(const onnx::NodeProto& node, int input) {
  return IsDefaultDomain(node.domain()) && input == 3 &&
         (node.op_type() == "Slice" || node.op_type() == "DynamicSlice");
}

// The axis a Gather or GatherElements node indexes (its `axis`, default 0); ArrayFeatureExtractor's last axis is -1.
int64_t IndexedAxis(const onnx::NodeProto& node) {
  if (node.op_type() == "ArrayFeatureExtractor") return -1;
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == "axis") return attribute.i();
  }
  return 0;
}

// The dims of `name` when the graph fixes them before it runs: an initializer's, or a fed input's as drawn.
std::optional<std::vector<int64_t>> KnownDims(const onnx::GraphProto& graph, const std::string& name,
                                              bool open_as_one) {
  for (const onnx::TensorProto& initializer : graph.initializer()) {
    if (initializer.name() == name) return std::vector<int64_t>(initializer.dims().begin(), initializer.dims().end());
  }
  for (const onnx::ValueInfoProto* input : FedInputs(graph)) {
    if (input->name() == name && input->type().tensor_type().has_shape()) return DrawnDims(*input, open_as_one);
  }
  return std::nullopt;
}

// How `name` is read; for an index the number of positions every reader accepts (at least 1: position 0 is valid
// wherever a tensor dim or a sequence is not empty, which the drawn dims are not); for axes the rank they index
// (0 when no reader's data has a known rank).
struct IntegerUse {
  IntegerRole role = IntegerRole::kAny;
  int64_t positions = 0;
  int64_t rank = 0;
};

IntegerUse UseOf(const onnx::GraphProto& graph, const std::string& name, bool open_as_one) {
  IntegerUse use;
  for (const onnx::NodeProto& node : graph.node()) {
    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i) != name) continue;
      if (ReadsAsSize(node, i)) {
        use.role = IntegerRole::kSize;
      } else if (ReadsAsIndex(node, i)) {
        int64_t positions = 1;  // a sequence's length, or a data tensor's whose dims are unknown here: 0 only
        const bool tensor_index =
            node.op_type() != "SequenceAt" && node.op_type() != "SequenceErase" && node.op_type() != "SequenceInsert";
        if (tensor_index) {
          if (std::optional<std::vector<int64_t>> dims = KnownDims(graph, node.input(0), open_as_one)) {
            const int64_t rank = static_cast<int64_t>(dims->size());
            int64_t axis = IndexedAxis(node);
            if (axis < 0) axis += rank;
            if (axis >= 0 && axis < rank) positions = std::max<int64_t>(1, (*dims)[static_cast<size_t>(axis)]);
          }
        }
        if (use.role != IntegerRole::kSize) {
          use.positions = use.role == IntegerRole::kIndex ? std::min(use.positions, positions) : positions;
          use.role = IntegerRole::kIndex;
        }
      } else if (ReadsAsAxes(node, i) && use.role == IntegerRole::kAny) {
        use.role = IntegerRole::kAxes;
        if (std::optional<std::vector<int64_t>> dims = KnownDims(graph, node.input(0), open_as_one)) {
          use.rank = static_cast<int64_t>(dims->size());
        }
      }
    }
  }
  return use;
}

// A float input read as the scales of Upsample (input 1) or Resize (input 2): a scale must be positive, and ones
// fit every model, where drawn numbers of either sign would make the model refuse its inputs.
bool ReadsAsScales(const onnx::GraphProto& graph, const std::string& name) {
  for (const onnx::NodeProto& node : graph.node()) {
    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i) == name &&
          ((node.op_type() == "Upsample" && i == 1) || (node.op_type() == "Resize" && i == 2))) {
        return true;
      }
    }
  }
  return false;
}

bool DrawableType(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::STRING: return true;
    default: return false;
  }
}

// The product of an input's static dims, saturating just past kMaxDrawnInputElements (no overflow).
int64_t StaticElements(const onnx::ValueInfoProto& input) {
  int64_t product = 1;
  for (const auto& dim : input.type().tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() <= 0) continue;
    const bool past = product > kMaxDrawnInputElements || dim.dim_value() > kMaxDrawnInputElements;
    product = past ? kMaxDrawnInputElements + 1 : product * dim.dim_value();
  }
  return product;
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

// Words as text-processing models meet them: cases mixed, an empty one, a stop word of onnx's own tests
// ("monday"), punctuation. ASCII only: case mapping beyond it depends on a locale.
absl::StatusOr<Tensor> DrawStrings(const std::vector<int64_t>& dims, int64_t count, TrialRandom& random) {
  static constexpr absl::string_view kWords[] = {"monday", "Monday", "MONDAY", "tuesday", "The",     "quick",
                                                 "",       "fox",    "a b",    "x1-Y2",   "MONDAY.", "Tuesday"};
  constexpr int64_t kWordCount = static_cast<int64_t>(std::size(kWords));
  std::vector<std::string> strings;
  strings.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    strings.emplace_back(kWords[static_cast<size_t>(random.Uniform(0, kWordCount - 1))]);
  }
  return Tensor::FromStrings(dims, std::move(strings));
}

// Distinct axes in [0, rank), in a drawn order; 0, 1, ... where the rank is unknown or smaller than `count` (the
// model then fails as its axes ask for more than the data has).
template <typename T>
absl::StatusOr<Tensor> DrawAxes(DataType type, const std::vector<int64_t>& dims, int64_t count, int64_t rank,
                                TrialRandom& random) {
  std::vector<int64_t> axes(static_cast<size_t>(std::max(count, rank)));
  for (size_t a = 0; a < axes.size(); ++a) axes[a] = static_cast<int64_t>(a);
  if (rank >= count) {
    for (int64_t a = rank - 1; a > 0; --a)
      std::swap(axes[static_cast<size_t>(a)], axes[static_cast<size_t>(random.Uniform(0, a))]);
  }
  std::string bytes(static_cast<size_t>(count) * sizeof(T), '\0');
  for (int64_t i = 0; i < count; ++i) {
    const T value = static_cast<T>(axes[static_cast<size_t>(i)]);
    std::memcpy(bytes.data() + i * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
  }
  return Tensor::FromBytes(type, dims, std::move(bytes));
}

// About one element in four of `drawn` (of type T) replaced by a special integer: T's lowest and highest, and the
// values next to 2^24 and 2^53 (of either sign, where T holds them), the first integers float and double round.
template <typename T>
void MixInSpecialIntegers(Tensor& drawn, TrialRandom& random) {
  std::vector<T> special = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()};
  for (const int64_t power : {int64_t{1} << 24, int64_t{1} << 53}) {
    for (const int64_t value : {power + 1, -(power + 1)}) {
      if (value >= static_cast<int64_t>(std::numeric_limits<T>::lowest()) &&
          (value < 0 || static_cast<uint64_t>(value) <= static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
        special.push_back(static_cast<T>(value));
      }
    }
  }
  char* bytes = drawn.mutable_data();
  const int64_t count = drawn.element_count();
  for (int64_t i = 0; i < count; ++i) {
    if (random.Uniform(0, 3) != 0) continue;
    const T value = special[static_cast<size_t>(random.Uniform(0, static_cast<int64_t>(special.size()) - 1))];
    std::memcpy(bytes + i * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
  }
}

template <typename T>
absl::StatusOr<Tensor> DrawInteger(const onnx::GraphProto& graph, const onnx::ValueInfoProto& input, DataType type,
                                   const std::vector<int64_t>& dims, int64_t count, bool open_as_one,
                                   DrawnValues values, TrialRandom& random) {
  const IntegerUse use = UseOf(graph, input.name(), open_as_one);
  switch (use.role) {
    case IntegerRole::kSize: return DrawIntegers<T>(type, dims, count, 1, 1, random);
    case IntegerRole::kIndex: return DrawIntegers<T>(type, dims, count, 0, use.positions - 1, random);
    case IntegerRole::kAxes: return DrawAxes<T>(type, dims, count, use.rank, random);
    case IntegerRole::kAny: break;
  }
  // An unsigned input (an image of uint8 pixels) is drawn from 0.
  ASSIGN_OR_RETURN(Tensor drawn,
                   DrawIntegers<T>(type, dims, count, std::is_signed_v<T> ? kLowInteger : 0, kHighInteger, random));
  if (values == DrawnValues::kSpecial) MixInSpecialIntegers<T>(drawn, random);
  return drawn;
}

}  // namespace

std::vector<const onnx::ValueInfoProto*> FedInputs(const onnx::GraphProto& graph) {
  std::map<std::string, bool> initialized;
  for (const onnx::TensorProto& initializer : graph.initializer()) initialized[initializer.name()] = true;
  std::vector<const onnx::ValueInfoProto*> fed;
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (initialized.count(input.name()) == 0) fed.push_back(&input);
  }
  return fed;
}

std::string WhyNotDrawable(const onnx::ValueInfoProto& input) {
  const auto& type = input.type().tensor_type();
  if (!input.type().has_tensor_type() || !DrawableType(type.elem_type())) {
    return absl::StrCat("graph input '", input.name(),
                        "' is not a tensor of float16, float, double, an integer type, bool or string");
  }
  if (!type.has_shape()) return absl::StrCat("graph input '", input.name(), "' has no declared rank");
  return "";
}

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

bool HasOpenDimsDrawnPastOne(const onnx::GraphProto& graph) {
  if (HasImageSizedInput(graph)) return false;
  for (const onnx::ValueInfoProto* input : FedInputs(graph)) {
    if (DrawnDims(*input, /*open_as_one=*/false) != DrawnDims(*input, /*open_as_one=*/true)) return true;
  }
  return false;
}

absl::StatusOr<std::map<std::string, Tensor>> DrawInputs(const onnx::GraphProto& graph, DrawnValues values,
                                                         TrialRandom& random, OpenDims open_dims) {
  std::map<std::string, Tensor> inputs;
  const bool open_as_one = open_dims == OpenDims::kOnes || HasImageSizedInput(graph);
  for (const onnx::ValueInfoProto* input : FedInputs(graph)) {
    const DataType type = input->type().tensor_type().elem_type();
    const std::vector<int64_t> dims = DrawnDims(*input, open_as_one);
    ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, input->name()));
    absl::StatusOr<Tensor> value;
    const bool floating =
        type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE || type == onnx::TensorProto::FLOAT16;
    if (floating && ReadsAsScales(graph, input->name())) {
      value = rules::Filled(type, dims, 1.0);
    } else if (floating) {
      value = values == DrawnValues::kOrdinary ? random.OrdinaryFloats(type, dims) : random.SpecialFloats(type, dims);
    } else if (type == onnx::TensorProto::INT8) {
      value = DrawInteger<int8_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::UINT8) {
      value = DrawInteger<uint8_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::INT16) {
      value = DrawInteger<int16_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::UINT16) {
      value = DrawInteger<uint16_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::INT32) {
      value = DrawInteger<int32_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::UINT32) {
      value = DrawInteger<uint32_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::INT64) {
      value = DrawInteger<int64_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::UINT64) {
      value = DrawInteger<uint64_t>(graph, *input, type, dims, count, open_as_one, values, random);
    } else if (type == onnx::TensorProto::STRING) {
      value = DrawStrings(dims, count, random);
    } else {
      value = DrawIntegers<uint8_t>(type, dims, count, 0, 1, random);
    }
    if (!value.ok()) return value.status();
    inputs.emplace(input->name(), *std::move(value));
  }
  return inputs;
}

}  // namespace onnx_legalize
