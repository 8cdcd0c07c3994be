// Moving down from opset 9, which let Greater, Less, Flatten, MatMul, Gemm and PRelu take integers (and Flatten every
// type): before it they take float16, float and double alone. onnx 1.23's own adapter (ExtendSupportedTypes) casts
// every other type to float and the result back, which rounds each integer past 2^24: a Flatten of the int64
// 16777217 gives 16777216, a MatMul of int32 4097s computes 50356224 for 50356227 (checked in ONNX Runtime 1.31). And
// it names every Cast it makes alike ("pre_cast_0"), so that two such nodes in a graph define one name twice.
//
// In its place: bool and the integers of 32 bits at most are cast to double, which holds each of their values
// exactly, and a comparison or a Flatten of those is exact; Flatten's result is cast back to the type it had, value
// for value. MatMul, Gemm and PRelu compute with the values, and integers wrap where double rounds: no form. Nor for
// int64 and uint64, which double does not hold, and the other types (strings) Flatten-9 added.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

bool TakenBeforeNine(int32_t type) {
  return type == TensorProto::FLOAT16 || type == TensorProto::FLOAT || type == TensorProto::DOUBLE;
}

// Whether double holds each value of `type` exactly.
bool HeldByDouble(int32_t type) {
  switch (type) {
    case TensorProto::BOOL:
    case TensorProto::INT8:
    case TensorProto::INT16:
    case TensorProto::INT32:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32: return true;
    default: return false;
  }
}

// Whether the op's result is its input's values, moved or compared, with no arithmetic on them.
bool ComputesNothing(const std::string& op_type) {
  return op_type == "Greater" || op_type == "Less" || op_type == kFlatten;
}

// Whether opset 9 let `op_type` take integers (the ops of this file).
bool TookIntegersFromNine(const std::string& op_type) {
  return ComputesNothing(op_type) || op_type == "MatMul" || op_type == "Gemm" || op_type == "PRelu";
}

}  // namespace

WhyNot IntegersBelowNineWhyNot(const std::string& op_type, int32_t type) {
  if (!TookIntegersFromNine(op_type) || TakenBeforeNine(type)) return std::nullopt;
  if (type == TensorProto::UNDEFINED) {
    return WhyNot(absl::StrCat("the element type of its input is not known (shape inference found none), and ", op_type,
                               " before opset 9 takes float16, float and double alone"));
  }
  if (!ComputesNothing(op_type)) {
    return WhyNot(absl::StrCat(op_type,
                               " before opset 9 takes float16, float and double alone, and computed in those, "
                               "integers would round where they wrap"));
  }
  if (!HeldByDouble(type)) {
    return WhyNot(absl::StrCat(op_type,
                               " before opset 9 takes float16, float and double alone, and its values are of a type "
                               "that double does not hold exactly"));
  }
  return std::nullopt;
}

onnx::Node* ThroughDoubleBelowNine(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  const int32_t type = node->inputs()[0]->elemType();
  const std::string op_type = node->kind().toString();
  if (WhyNot why = IntegersBelowNineWhyNot(op_type, type)) throw NoFormException(node, *why);
  if (TakenBeforeNine(type)) return node;
  for (size_t index = 0; index < node->inputs().size(); ++index) {
    onnx::Node* cast = MadeBefore(node, "Cast", {node->inputs()[index]}, TensorProto::DOUBLE);
    cast->i_(onnx::kto, TensorProto::DOUBLE);
    node->replaceInput(index, cast->output());
  }
  if (op_type == kFlatten) {
    onnx::Node* back = MadeAfterTakingOverItsOutput(node, onnx::kCast);
    back->i_(onnx::kto, type);
    back->output()->setSizes(node->output()->sizes());
    node->output()->setElemType(TensorProto::DOUBLE);
  }
  return node;
}

}  // namespace onnx_legalize::opset_upgrade
