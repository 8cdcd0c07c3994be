// FC (an experimental op of ONNX's first releases, taken from Caffe2 and gone from onnx before 1.2; Custom
// Vision's 2018 exports end in one): a fully connected layer. Caffe2's FullyConnectedOp, which ONNX's FC
// described, coerces X to a matrix [M, K] at `axis` (M the product of the dims before it, K of those from it
// on) and W to [N, K] at `axis_w`, and computes Y = X W^T + b with b of N elements; Y has X's dims before
// `axis` and then N ([M, N] at axis 1).
//
//   y = FC<axis, axis_w>(x, w, b)
//   -> x2 = Flatten<axis>(x)                          [M, K]
//      w2 = Flatten<axis_w>(w)                        [N, K]   (w itself when it is [N, K] at axis_w 1)
//      y2 = Gemm<transB=1>(x2, w2, b)                 [M, N]   (broadcast=1 before opset 7)
//      y = Reshape(y2, dims of x before axis + [N])   (only when axis is not 1; those dims must be known)
// Gemm's alpha and beta are 1: it sums the K products in order and adds b, as the reference does, so the
// replacement is exact.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

// First opset of Gemm-7, which broadcasts C without the `broadcast` attribute, and of Reshape-5, whose shape
// is an input.
constexpr int64_t kGemmWithoutBroadcastAttribute = 7;
constexpr int64_t kReshapeWithShapeInput = 5;

struct FcAxes {
  int64_t axis = 1;
  int64_t axis_w = 1;
};

// `axis` made non-negative against `rank` (Caffe2's canonical_axis_index_), or InvalidArgument.
absl::StatusOr<int64_t> CanonicalAxis(const RuleNode& node, const char* name, int64_t axis, int64_t rank) {
  if (axis < -rank || axis > rank) {
    return Invalid(node, name, " ", axis, " is outside [", -rank, ", ", rank, "] for an input of rank ", rank);
  }
  return axis < 0 ? axis + rank : axis;
}

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t product = 1;
  for (size_t d = from; d < to; ++d) product *= dims[d];
  return product;
}

class FullyConnectedRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "FC"; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 3, 3, 1, {"axis", "axis_w"}));
    ASSIGN_OR_RETURN(FcAxes axes, Axes(node));
    return axes;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    const auto& axes = node.attributes<FcAxes>();
    for (int index = 0; index < 3; ++index) RETURN_IF_ERROR(FloatInputType(node, index).status());
    const auto& x_dims = node.inputs[0].type.dims;
    if (x_dims.has_value()) {
      ASSIGN_OR_RETURN(const int64_t axis, CanonicalAxis(node, "axis", axes.axis, x_dims->size()));
      if (axis != 1) RETURN_IF_ERROR(OutputDims(node, axes, axis, *x_dims).status());
    } else if (axes.axis != 1) {
      return absl::FailedPreconditionError(
          absl::StrCat(node.label, ": axis ", axes.axis, " with input '", node.inputs[0].name,
                       "' of unknown rank: the output's dims before the axis cannot be told for its Reshape"));
    }
    if (node.inputs[1].type.dims.has_value()) {
      RETURN_IF_ERROR(CanonicalAxis(node, "axis_w", axes.axis_w, node.inputs[1].type.dims->size()).status());
    }
    return 1;
  }

  // X's dims before the axis, then N (when W's dims are known), when the axes can be read.
  ValueType OutputType(const RuleNode& node) const override {
    ValueType type;
    type.elem_type = node.inputs[0].type.elem_type;
    const auto& x_dims = node.inputs[0].type.dims;
    absl::StatusOr<FcAxes> axes = Axes(node);
    if (!x_dims.has_value() || !axes.ok()) return type;
    const int64_t rank = static_cast<int64_t>(x_dims->size());
    const int64_t axis = axes->axis < 0 ? axes->axis + rank : axes->axis;
    if (axis < 0 || axis > rank) return type;
    std::vector<int64_t> dims(x_dims->begin(), x_dims->begin() + axis);
    dims.push_back(N(node, axes->axis_w));
    type.dims = dims;
    return type;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    const auto& axes = node.attributes<FcAxes>();
    const std::string& output = node.node->output(0);
    Replacement replacement;
    std::vector<std::string> parts;

    const std::string x_matrix = names.Fresh(output + "_x2d");
    onnx::NodeProto flatten_x = MakeNode("Flatten", {node.node->input(0)}, {x_matrix});
    AddIntAttribute(flatten_x, "axis", axes.axis);
    replacement.nodes.push_back(std::move(flatten_x));
    parts.push_back("Flatten");

    std::string w_matrix = node.node->input(1);
    const auto& w_dims = node.inputs[1].type.dims;
    if (!(w_dims.has_value() && w_dims->size() == 2 && (axes.axis_w == 1 || axes.axis_w == -1))) {
      w_matrix = names.Fresh(output + "_w2d");
      onnx::NodeProto flatten_w = MakeNode("Flatten", {node.node->input(1)}, {w_matrix});
      AddIntAttribute(flatten_w, "axis", axes.axis_w);
      replacement.nodes.push_back(std::move(flatten_w));
      parts.push_back("Flatten");
    }

    const auto& x_dims = node.inputs[0].type.dims;
    const int64_t axis =
        x_dims.has_value() && axes.axis < 0 ? axes.axis + static_cast<int64_t>(x_dims->size()) : axes.axis;
    const bool reshaped = axis != 1;
    const std::string product = reshaped ? names.Fresh(output + "_2d") : output;
    onnx::NodeProto gemm = MakeNode("Gemm", {x_matrix, w_matrix, node.node->input(2)}, {product});
    AddIntAttribute(gemm, "transB", 1);
    if (opset < kGemmWithoutBroadcastAttribute) AddIntAttribute(gemm, "broadcast", 1);
    replacement.nodes.push_back(std::move(gemm));
    parts.push_back("Gemm");

    if (reshaped) {
      ASSIGN_OR_RETURN(const std::vector<int64_t> dims, OutputDims(node, axes, axis, *x_dims));
      if (opset < kReshapeWithShapeInput) {
        onnx::NodeProto reshape = MakeNode("Reshape", {product}, {output});
        AddIntsAttribute(reshape, "shape", dims);
        replacement.nodes.push_back(std::move(reshape));
      } else {
        const std::string shape = names.Fresh(output + "_shape");
        replacement.constants.emplace_back(shape, Tensor::FromInt64s(dims));
        replacement.nodes.push_back(MakeNode("Reshape", {product, shape}, {output}));
      }
      parts.push_back("Reshape");
    }
    became = absl::StrJoin(parts, " + ");
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& axes = node.attributes<FcAxes>();
    const Tensor& x = *inputs[0];
    const Tensor& w = *inputs[1];
    const Tensor& b = *inputs[2];
    if (x.type() != w.type() || x.type() != b.type()) return Invalid(node, "inputs of different element types");
    ASSIGN_OR_RETURN(const int64_t axis, CanonicalAxis(node, "axis", axes.axis, x.rank()));
    ASSIGN_OR_RETURN(const int64_t axis_w, CanonicalAxis(node, "axis_w", axes.axis_w, w.rank()));
    const int64_t m = Product(x.dims(), 0, static_cast<size_t>(axis));
    const int64_t k = Product(x.dims(), static_cast<size_t>(axis), x.dims().size());
    const int64_t n = Product(w.dims(), 0, static_cast<size_t>(axis_w));
    if (Product(w.dims(), static_cast<size_t>(axis_w), w.dims().size()) != k) {
      return Invalid(node, "X coerced at axis ", axis, " has ", k, " columns, W coerced at axis_w ", axis_w, " has ",
                     Product(w.dims(), static_cast<size_t>(axis_w), w.dims().size()));
    }
    if (b.element_count() != n) return Invalid(node, "b has ", b.element_count(), " elements; W has ", n, " rows");
    std::vector<int64_t> dims(x.dims().begin(), x.dims().begin() + axis);
    dims.push_back(n);
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      result.push_back(FromFloats(dims, Multiply(FloatsOf(x), FloatsOf(w), FloatsOf(b), m, n, k)));
    } else {
      result.push_back(FromDoubleValues(dims, Multiply(DoublesOf(x), DoublesOf(w), DoublesOf(b), m, n, k)));
    }
    return result;
  }

  // X drawn (or W and b, where they are not constants) with K columns either way.
  absl::StatusOr<std::vector<Tensor>> TrialInputs(const ParsedNode& node, TrialRandom& random) const override {
    const auto& axes = node.attributes<FcAxes>();
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    std::vector<int64_t> w_dims = node.inputs[1].constant != nullptr ? node.inputs[1].constant->dims()
                                                                     : TrialDims(node.inputs[1].type, 2, random);
    const int64_t w_rank = static_cast<int64_t>(w_dims.size());
    const int64_t axis_w = axes.axis_w < 0 ? axes.axis_w + w_rank : std::min(axes.axis_w, w_rank);
    const int64_t k = Product(w_dims, static_cast<size_t>(axis_w), w_dims.size());
    const int64_t n = Product(w_dims, 0, static_cast<size_t>(axis_w));
    std::vector<int64_t> x_dims = TrialDims(node.inputs[0].type, std::max<int64_t>(2, axes.axis + 1), random);
    const int64_t x_rank = static_cast<int64_t>(x_dims.size());
    const size_t axis = static_cast<size_t>(axes.axis < 0 ? axes.axis + x_rank : std::min(axes.axis, x_rank));
    if (Product(x_dims, axis, x_dims.size()) != k) {
      // The trailing dims made to hold K: K in the first, 1 in the rest (or one more dim of K at the end).
      if (axis == x_dims.size()) x_dims.push_back(1);
      for (size_t d = axis; d < x_dims.size(); ++d) x_dims[d] = d == axis ? k : 1;
    }
    std::vector<Tensor> inputs;
    for (int index = 0; index < 3; ++index) {
      if (node.inputs[static_cast<size_t>(index)].constant != nullptr) {
        inputs.push_back(node.inputs[static_cast<size_t>(index)].constant->Clone());
        continue;
      }
      const std::vector<int64_t> dims = index == 0 ? x_dims : index == 1 ? w_dims : std::vector<int64_t>{n};
      ASSIGN_OR_RETURN(Tensor drawn, random.SpecialFloats(type, dims));
      inputs.push_back(std::move(drawn));
    }
    return inputs;
  }

 private:
  // What Parse returns, and what OutputType reads of a node not yet parsed.
  static absl::StatusOr<FcAxes> Axes(const RuleNode& node) {
    FcAxes axes;
    ASSIGN_OR_RETURN(axes.axis, IntAttribute(node, "axis", 1));
    ASSIGN_OR_RETURN(axes.axis_w, IntAttribute(node, "axis_w", 1));
    return axes;
  }

  // N, the rows of W coerced at axis_w, or -1 when W's dims before it are not known.
  static int64_t N(const RuleNode& node, int64_t axis_w) {
    const auto& w_dims = node.inputs[1].type.dims;
    if (!w_dims.has_value()) return -1;
    const int64_t rank = static_cast<int64_t>(w_dims->size());
    const int64_t axis = axis_w < 0 ? axis_w + rank : axis_w;
    if (axis < 0 || axis > rank) return -1;
    int64_t n = 1;
    for (int64_t d = 0; d < axis; ++d) {
      if ((*w_dims)[static_cast<size_t>(d)] < 0) return -1;
      n *= (*w_dims)[static_cast<size_t>(d)];
    }
    return n;
  }

  // The output's dims, for the Reshape after Gemm: X's dims before `axis` (which must be known), then N.
  static absl::StatusOr<std::vector<int64_t>> OutputDims(const RuleNode& node, const FcAxes& axes, int64_t axis,
                                                         const std::vector<int64_t>& x_dims) {
    std::vector<int64_t> dims(x_dims.begin(), x_dims.begin() + axis);
    dims.push_back(N(node, axes.axis_w));
    for (int64_t dim : dims) {
      if (dim < 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            node.label, ": axis ", axes.axis, " and the dims of input '", node.inputs[0].name, "' before it or of '",
            node.inputs[1].name, "' before axis_w are not all known, so the output's shape cannot be written"));
      }
    }
    return dims;
  }

  // X [M, K] times W [N, K] transposed, plus b: each sum over k in order, then b added (Gemm's order).
  template <typename T>
  static std::vector<T> Multiply(const std::vector<T>& x, const std::vector<T>& w, const std::vector<T>& b, int64_t m,
                                 int64_t n, int64_t k) {
    std::vector<T> y(static_cast<size_t>(m * n));
    for (int64_t row = 0; row < m; ++row) {
      for (int64_t column = 0; column < n; ++column) {
        T sum = 0;
        for (int64_t i = 0; i < k; ++i)
          sum += x[static_cast<size_t>(row * k + i)] * w[static_cast<size_t>(column * k + i)];
        y[static_cast<size_t>(row * n + column)] = sum + b[static_cast<size_t>(column)];
      }
    }
    return y;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeFullyConnectedRule() { return std::make_unique<FullyConnectedRule>(); }

}  // namespace onnx_legalize::rules
