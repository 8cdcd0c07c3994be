// Values that do not depend on computation: Constant, ConstantOfShape, Identity, and Dropout, which in
// inference (the only form the runner executes) is the identity.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"
#include "graph/graph_scope.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

absl::StatusOr<Outputs> RunConstant(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 0, 0));
  for (const auto& attribute : ctx.node.attribute()) {
    if (attribute.name() == "sparse_value") {
      return absl::UnimplementedError("a sparse_value Constant is not supported");
    }
    // Constant-12 added value_float(s), value_int(s), value_string(s).
    if (attribute.name() != "value" && !ctx.OpsetAtLeast(12)) {
      return absl::InvalidArgumentError(StrCat("attribute '", attribute.name(),
                                               "' exists only from Constant-12; the model's opset is ", ctx.opset()));
    }
  }
  return Single(ConstantNodeValue(ctx.node));
}

// ConstantOfShape-9: a tensor of the dims input 0 holds, each element `value` (a one-element tensor; float 0
// when absent).
absl::StatusOr<Outputs> RunConstantOfShape(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* shape, RequiredInput(ctx, 0, "input"));
  if (shape->type() != TensorProto::INT64 || shape->rank() != 1) {
    return absl::InvalidArgumentError(StrCat("input must be a 1-D int64 tensor, got ", Describe(*shape)));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> dims, shape->ToInt64s("input"));
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(dims, "ConstantOfShape's output"));
  Tensor value = *TensorOf<float>(TensorProto::FLOAT, {1}, {0.0f});
  if (const onnx::AttributeProto* attribute = FindAttribute(ctx.node, "value")) {
    if (!attribute->has_t()) return absl::InvalidArgumentError("attribute 'value' must be a tensor");
    ASSIGN_OR_RETURN(value, TensorFromProto(attribute->t(), "attribute 'value'"));
    if (value.element_count() != 1 || value.is_string()) {
      return absl::InvalidArgumentError(StrCat("attribute 'value' must hold one number, got ", Describe(value)));
    }
  }
  std::string bytes;
  bytes.reserve(static_cast<size_t>(count) * value.bytes().size());
  for (int64_t i = 0; i < count; ++i) bytes.append(value.bytes());
  return Single(Tensor::FromBytes(value.type(), dims, std::move(bytes)));
}

absl::StatusOr<Outputs> RunIdentity(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  RETURN_IF_ERROR(RequiredInput(ctx, 0, "input").status());
  return Outputs{ctx.inputs[0]};
}

// Dropout in inference: Y = X, and the mask (asked for) all ones: of X's type in Dropout-7..9, bool from
// Dropout-10. Dropout-1/6's is_test=0 and Dropout-12's training_mode ask for training, which draws at random
// and is not executed.
// Dropout-12's ratio (input 1): one floating value, 0.5 when omitted.
absl::StatusOr<double> DropoutRatio(const KernelContext& ctx) {
  const Tensor* ratio = ctx.Input(1);
  if (ratio == nullptr) return 0.5;
  if (ratio->element_count() != 1) {
    return absl::InvalidArgumentError(StrCat("ratio must be one value, got ", Describe(*ratio)));
  }
  return VisitFloating(ratio->type(), "Dropout's ratio", [&](auto tag) -> absl::StatusOr<double> {
    return static_cast<double>(ElementsAs<decltype(tag)>(*ratio)[0]);
  });
}

absl::StatusOr<Outputs> RunDropout(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, ctx.OpsetAtLeast(12) ? 3 : 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  if (!ctx.OpsetAtLeast(7)) {
    ASSIGN_OR_RETURN(const int64_t is_test, IntAttributeOr(ctx.node, "is_test", 0));
    // Dropout-1/6 with is_test=0 in a model: runtimes run it as inference too, but then the mask output means
    // training; it is the mask that is refused.
    if (is_test == 0 && ctx.WantsOutput(1)) {
      return absl::UnimplementedError("Dropout's mask in training mode (is_test=0)");
    }
  }
  if (const Tensor* training = ctx.Input(2)) {
    if (training->type() != TensorProto::BOOL || training->element_count() != 1) {
      return absl::InvalidArgumentError(StrCat("training_mode must be one bool, got ", Describe(*training)));
    }
    // Training drops a random part of the elements; with a ratio of 0 it drops none and scales by 1 / (1 - 0):
    // the same outputs as inference, which is what the runner computes below.
    if (training->bytes()[0] != 0) {
      ASSIGN_OR_RETURN(const double ratio, DropoutRatio(ctx));
      if (ratio != 0.0) return absl::UnimplementedError(StrCat("Dropout in training mode (ratio ", ratio, ")"));
    }
  }
  Outputs outputs = {ctx.inputs[0]};
  if (ctx.WantsOutput(1)) {
    if (ctx.OpsetAtLeast(10)) {
      outputs.push_back(
          Share(*TensorOf<uint8_t>(TensorProto::BOOL, x->dims(), std::vector<uint8_t>(x->element_count(), 1))));
    } else {
      absl::StatusOr<Tensor> mask = VisitFloating(x->type(), "Dropout's mask", [&](auto tag) {
        using T = decltype(tag);
        return WriteAs<T>(x->type(), x->dims(), std::vector<T>(x->element_count(), T{1}));
      });
      if (!mask.ok()) return mask.status();
      outputs.push_back(Share(*std::move(mask)));
    }
  }
  return outputs;
}

}  // namespace

void AddConstantKernels(KernelTable& table) {
  table[kConstantOp] = RunConstant;
  table["ConstantOfShape"] = RunConstantOfShape;
  table["Identity"] = RunIdentity;
  table["Dropout"] = RunDropout;
}

}  // namespace onnx_legalize
