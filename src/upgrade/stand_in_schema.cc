#include "upgrade/stand_in_schema.h"

#include "graph/op_names.h"
#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"

namespace onnx_legalize {
namespace {

// kRankKeepingStandInOp's output: its first input's element type, and as many dims as that input has,
// each unknown. Nothing when the input's type is not known (no exception: many stand-ins of a model may
// be in that case, and inference goes on).
void InferRankKeepingStandIn(onnx::InferenceContext& ctx) {
  if (ctx.getNumOutputs() == 0) return;
  const onnx::TypeProto* input = ctx.getNumInputs() > 0 ? ctx.getInputType(0) : nullptr;
  if (input == nullptr || !input->has_tensor_type() || input->tensor_type().elem_type() == 0) return;
  onnx::TypeProto_Tensor* output = ctx.getOutputType(0)->mutable_tensor_type();
  output->set_elem_type(input->tensor_type().elem_type());
  if (!input->tensor_type().has_shape()) return;
  onnx::TensorShapeProto* shape = output->mutable_shape();
  for (int i = 0; i < input->tensor_type().shape().dim_size(); ++i) shape->add_dim();
}

}  // namespace

void RegisterStandInSchemas() {
  static const bool registered = [] {
    onnx::OpSchemaRegistry::DomainToVersionRange::Instance().AddDomainToVersion(kStandInDomain, 1, 1);
    // Any number of inputs of any types: the stand-in only carries the node's values through.
    onnx::OpSchema schema;
    schema.SetName(kRankKeepingStandInOp)
        .SetDomain(kStandInDomain)
        .SinceVersion(1)
        .SetDoc("onnx-legalize's stand-in for a DynamicSlice in copies of a model that onnx's tools see.")
        .Input(0, "inputs", "The DynamicSlice's inputs; the first is its data.", "T", onnx::OpSchema::Variadic,
               /*is_homogeneous=*/false, /*min_arity=*/0)
        .Output(0, "output", "Of the data's element type and rank.", "T")
        .TypeConstraint("T", onnx::OpSchema::all_tensor_types(), "Any tensor type.")
        .TypeAndShapeInferenceFunction(InferRankKeepingStandIn);
    onnx::OpSchemaRegistry::OpSchemaRegisterOnce registration(schema);
    return true;
  }();
  (void)registered;
}

namespace {

// Registered as the library is loaded, before any of its threads runs: onnx's OpSchemaRegisterOnce writes the
// registry's map without a lock, so a registration on first use races with a thread reading the map (onnx's
// checker on another model, or on the input beside the planning).
const bool kStandInSchemasRegisteredAtLoad = (RegisterStandInSchemas(), true);

}  // namespace

bool ShownAsRankKeepingStandIn(const onnx::NodeProto& node, const PassThroughOps& pass_through) {
  if (!IsDefaultDomain(node.domain()) || node.input_size() == 0 || node.input(0).empty() || node.output_size() != 1) {
    return false;
  }
  return node.op_type() == kDynamicSliceOp || (pass_through.keeps_rank && pass_through.keeps_rank(node));
}

}  // namespace onnx_legalize
