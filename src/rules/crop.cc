// Crop (experimental, removed in ONNX 1.5): crops an NCHW image. border = [left, top, right, bottom];
// without scale the output keeps rows top .. H-bottom and columns left .. W-right; with scale = [height,
// width] it keeps rows top .. top+height and columns left .. left+width. ONNX Runtime's kernel refuses
// data that is not of rank 4, top + bottom > H, left + right > W, and (with scale) top + height > H or
// left + width > W; the reference does too, and a trial the old op refuses proves nothing either way.
//
//   y = Crop<border, scale>(x)
//   at opset < 10 -> y = Slice-1<starts=[top, left], ends=[e_h, e_w], axes=[2, 3]>(x)
//   at opset >= 10 -> y = Slice(x, starts, ends, axes)       the same values as int64 constants
// e_h is -bottom (INT64_MAX for bottom 0: to the end), or top + height with scale; e_w likewise. Slice
// needs no knowledge of H or W for that, and copies the same elements.
#include <cstring>
#include <limits>

#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"
#include "rules/trial_limits.h"

namespace onnx_legalize::rules {
namespace {

struct CropWindow {
  int64_t left = 0, top = 0, right = 0, bottom = 0;
  bool has_scale = false;
  int64_t height = 0, width = 0;
};

class CropRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "Crop"; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"border", "scale"}));
    ASSIGN_OR_RETURN(CropWindow window, Window(node));
    return window;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    const DataType type = node.inputs[0].type.elem_type;
    if (type != 0 && ElementSize(type) == 0) {
      return Invalid(node, "input '", node.inputs[0].name, "' is ", DataTypeName(type), ", which Crop never took");
    }
    const auto& dims = node.inputs[0].type.dims;
    if (dims.has_value() && dims->size() != 4) {
      return Invalid(node, "input '", node.inputs[0].name, "' has rank ", dims->size(),
                     "; Crop takes NCHW data of rank 4");
    }
    return 1;
  }

  // The input's element type and rank; the cropped dims are not known here.
  ValueType OutputType(const RuleNode& node) const override {
    ValueType type = node.inputs[0].type;
    if (type.dims.has_value()) {
      for (size_t d = 2; d < type.dims->size(); ++d) (*type.dims)[d] = -1;
    }
    return type;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    const auto& window = node.attributes<CropWindow>();
    const int64_t to_end = std::numeric_limits<int64_t>::max();
    const std::vector<int64_t> starts = {window.top, window.left};
    const std::vector<int64_t> ends = window.has_scale
                                          ? std::vector<int64_t>{window.top + window.height, window.left + window.width}
                                          : std::vector<int64_t>{window.bottom > 0 ? -window.bottom : to_end,
                                                                 window.right > 0 ? -window.right : to_end};
    const std::vector<int64_t> axes = {2, 3};
    const std::string& output = node.node->output(0);
    Replacement replacement;
    if (opset < 10) {
      onnx::NodeProto slice = MakeNode("Slice", {node.node->input(0)}, {output});
      AddIntsAttribute(slice, "starts", starts);
      AddIntsAttribute(slice, "ends", ends);
      AddIntsAttribute(slice, "axes", axes);
      replacement.nodes.push_back(std::move(slice));
      became = "Slice-1";
      return replacement;
    }
    const std::string starts_name = names.Fresh(output + "_starts");
    const std::string ends_name = names.Fresh(output + "_ends");
    const std::string axes_name = names.Fresh(output + "_axes");
    replacement.constants.emplace_back(starts_name, Tensor::FromInt64s(starts));
    replacement.constants.emplace_back(ends_name, Tensor::FromInt64s(ends));
    replacement.constants.emplace_back(axes_name, Tensor::FromInt64s(axes));
    replacement.nodes.push_back(MakeNode("Slice", {node.node->input(0), starts_name, ends_name, axes_name}, {output}));
    became = opset >= 13 ? "Slice-13" : opset >= 11 ? "Slice-11" : "Slice-10";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& w = node.attributes<CropWindow>();
    const Tensor& x = *inputs[0];
    if (x.rank() != 4) return Invalid(node, "input of rank ", x.rank(), "; Crop takes rank 4");
    const int64_t n = x.dims()[0], c = x.dims()[1], h = x.dims()[2], width = x.dims()[3];
    if (w.top + w.bottom > h || w.left + w.right > width) {
      return Invalid(node, "borders [", w.left, ", ", w.top, ", ", w.right, ", ", w.bottom, "] exceed the ", h, "x",
                     width, " image");
    }
    int64_t row_end = h - w.bottom;
    int64_t column_end = width - w.right;
    if (w.has_scale) {
      if (w.top + w.height > h || w.left + w.width > width) {
        return Invalid(node, "the ", w.height, "x", w.width, " window at (", w.top, ", ", w.left, ") leaves the ", h,
                       "x", width, " image");
      }
      row_end = w.top + w.height;
      column_end = w.left + w.width;
    }
    const int64_t rows = row_end - w.top;
    const int64_t columns = column_end - w.left;
    const size_t element = static_cast<size_t>(ElementSize(x.type()));
    std::string bytes;
    bytes.reserve(static_cast<size_t>(n * c * rows * columns) * element);
    for (int64_t image = 0; image < n * c; ++image) {
      for (int64_t row = w.top; row < row_end; ++row) {
        const size_t first = static_cast<size_t>((image * h + row) * width + w.left) * element;
        bytes.append(x.bytes().substr(first, static_cast<size_t>(columns) * element));
      }
    }
    ASSIGN_OR_RETURN(Tensor y, Tensor::FromBytes(x.type(), {n, c, rows, columns}, std::move(bytes)));
    std::vector<Tensor> result;
    result.push_back(std::move(y));
    return result;
  }

  absl::StatusOr<std::vector<Tensor>> TrialInputs(const ParsedNode& node, TrialRandom& random) const override {
    std::vector<Tensor> inputs;
    if (node.inputs[0].constant != nullptr) {
      inputs.push_back(node.inputs[0].constant->Clone());
      return inputs;
    }
    const auto& w = node.attributes<CropWindow>();
    std::vector<int64_t> dims = TrialDims(node.inputs[0].type, 4, random);
    dims.resize(4, 1);
    // Images a little larger than the window, and now and then one too small (the old op's refusals).
    const int64_t need_h = w.top + (w.has_scale ? w.height : w.bottom);
    const int64_t need_w = w.left + (w.has_scale ? w.width : w.right);
    dims[2] = std::max<int64_t>(0, need_h + random.Uniform(-1, 3));
    dims[3] = std::max<int64_t>(0, need_w + random.Uniform(-1, 3));
    if (dims[2] * dims[3] > kMaxRemovedOpTrialElements)
      dims[0] = dims[1] = 1;  // a large window: one image of one channel
    const DataType type = node.inputs[0].type.elem_type != 0 ? node.inputs[0].type.elem_type : onnx::TensorProto::FLOAT;
    if (type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE) {
      ASSIGN_OR_RETURN(Tensor data, random.SpecialFloats(type, dims));
      inputs.push_back(std::move(data));
      return inputs;
    }
    // Any other element type: distinct bytes, so a misplaced element shows.
    ASSIGN_OR_RETURN(Tensor data, Tensor::Zeros(type, dims));
    std::string& bytes = data.mutable_bytes();
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(random.Uniform(0, 255));
    if (type == onnx::TensorProto::BOOL) {
      for (char& b : bytes) b = static_cast<char>(b & 1);
    }
    inputs.push_back(std::move(data));
    return inputs;
  }

 private:
  // The window the attributes give, checked against the old spec.
  static absl::StatusOr<CropWindow> Window(const RuleNode& node) {
    ASSIGN_OR_RETURN(const std::vector<int64_t> border, IntsAttribute(node, "border", /*required=*/true));
    if (border.size() != 4) {
      return Invalid(node, "border has ", border.size(), " values; Crop takes 4 (left, top, right, bottom)");
    }
    ASSIGN_OR_RETURN(const std::vector<int64_t> scale, IntsAttribute(node, "scale", /*required=*/false));
    if (FindAttribute(*node.node, "scale") != nullptr && scale.size() != 2) {
      return Invalid(node, "scale has ", scale.size(), " values; Crop takes 2 (height, width)");
    }
    // Bounded so that verification's trial images (a little larger than the window) stay small; no
    // exporter wrote borders or windows near this size.
    constexpr int64_t kLargest = 1024;
    for (int64_t value : border) {
      if (value < 0 || value > kLargest) {
        return Invalid(node, "border holds ", value, "; onnx-legalize takes borders of 0 to ", kLargest, " pixels");
      }
    }
    for (int64_t value : scale) {
      if (value < 0 || value > kLargest) {
        return Invalid(node, "scale holds ", value, "; onnx-legalize takes windows of 0 to ", kLargest, " pixels");
      }
    }
    CropWindow window{border[0], border[1], border[2], border[3], !scale.empty(), 0, 0};
    if (window.has_scale) {
      window.height = scale[0];
      window.width = scale[1];
    }
    return window;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeCropRule() { return std::make_unique<CropRule>(); }

}  // namespace onnx_legalize::rules
