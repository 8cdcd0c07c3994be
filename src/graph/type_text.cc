#include "graph/type_text.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace onnx_legalize {
namespace {

std::string ElementTypeText(int32_t element_type) {
  if (!onnx::TensorProto_DataType_IsValid(element_type) || element_type == onnx::TensorProto::UNDEFINED) {
    return absl::StrCat("element type ", element_type);
  }
  return absl::AsciiStrToLower(onnx::TensorProto_DataType_Name(element_type));
}

std::string ShapeText(const onnx::TensorShapeProto& shape) {
  std::string text = "[";
  for (int d = 0; d < shape.dim_size(); ++d) {
    const onnx::TensorShapeProto::Dimension& dim = shape.dim(d);
    absl::StrAppend(&text, d > 0 ? "," : "",
                    dim.has_dim_value()   ? absl::StrCat(dim.dim_value())
                    : dim.has_dim_param() ? dim.dim_param()
                                          : "?");
  }
  return text + "]";
}

}  // namespace

std::string TypeText(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const onnx::TypeProto::Tensor& tensor = type.tensor_type();
      return absl::StrCat("tensor(", ElementTypeText(tensor.elem_type()), ")",
                          tensor.has_shape() ? ShapeText(tensor.shape()) : "");
    }
    case onnx::TypeProto::kSparseTensorType: {
      const onnx::TypeProto::SparseTensor& tensor = type.sparse_tensor_type();
      return absl::StrCat("sparse_tensor(", ElementTypeText(tensor.elem_type()), ")",
                          tensor.has_shape() ? ShapeText(tensor.shape()) : "");
    }
    case onnx::TypeProto::kSequenceType: return absl::StrCat("seq(", TypeText(type.sequence_type().elem_type()), ")");
    case onnx::TypeProto::kMapType:
      return absl::StrCat("map(", ElementTypeText(type.map_type().key_type()), ",",
                          TypeText(type.map_type().value_type()), ")");
    case onnx::TypeProto::kOptionalType:
      return absl::StrCat("optional(", TypeText(type.optional_type().elem_type()), ")");
    default: return "no type";
  }
}

}  // namespace onnx_legalize
