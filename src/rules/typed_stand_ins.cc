#include "rules/typed_stand_ins.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/labels.h"
#include "graph/op_names.h"
#include "graph/untyped_era_ops.h"
#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"
#include "rules/registry.h"

namespace onnx_legalize {
namespace {

// The stand-ins' domain for inference. The opset upgrade's stand-ins live in a domain of their own
// (upgrade/stand_in_schema.h): the two copies of a model are never one.
constexpr char kTypedStandInDomain[] = "onnx_legalize.typed";
// The stand-in's attributes: the removed node as the model holds it (serialized), and the default opset its
// model imports, from which the rule's inference function reads it back.
constexpr char kNodeAttribute[] = "onnx_legalize.node";
constexpr char kOpsetAttribute[] = "onnx_legalize.opset";
// Constant inputs larger than this are not decoded for inference (the rules' output types read at most a
// shape: ConstantFill's input).
constexpr int64_t kMaxConstantBytes = 4096;

ValueType ValueTypeOf(const onnx::TypeProto* type) {
  ValueType value;
  if (type == nullptr || !type->has_tensor_type()) return value;
  value.elem_type = type->tensor_type().elem_type();
  if (!type->tensor_type().has_shape()) return value;
  std::vector<int64_t> dims;
  for (const auto& dim : type->tensor_type().shape().dim()) dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  value.dims = std::move(dims);
  return value;
}

// DynamicSlice: its data's element type and rank, every dim unknown (the indices may be computed).
void InferDynamicSlice(onnx::InferenceContext& ctx) {
  const ValueType data = ValueTypeOf(ctx.getNumInputs() > 0 ? ctx.getInputType(0) : nullptr);
  if (data.elem_type == 0 || ctx.getNumOutputs() == 0) return;
  onnx::TypeProto_Tensor* output = ctx.getOutputType(0)->mutable_tensor_type();
  output->set_elem_type(data.elem_type);
  if (!data.dims.has_value()) return;
  onnx::TensorShapeProto* shape = output->mutable_shape();
  for (size_t d = 0; d < data.dims->size(); ++d) shape->add_dim();
}

// A removed op's output as its rule says (RemovedOpRule::OutputType). Never throws: a node its rule cannot
// type (it is refused later, naming why) leaves its output untyped, and inference goes on.
void InferByRule(onnx::InferenceContext& ctx) {
  const onnx::AttributeProto* serialized = ctx.getAttribute(kNodeAttribute);
  const onnx::AttributeProto* opset = ctx.getAttribute(kOpsetAttribute);
  onnx::NodeProto node;
  if (serialized == nullptr || opset == nullptr || !node.ParseFromString(serialized->s())) return;
  const RemovedOpRule* rule = FindRemovedOpRule(node, opset->i());
  if (rule == nullptr || ctx.getNumOutputs() == 0) return;
  RuleNode rule_node;
  rule_node.node = &node;
  rule_node.label = NodeLabel(node);
  rule_node.opset = opset->i();
  std::vector<std::unique_ptr<Tensor>> constants;
  const onnx::TypeProto* first_input = nullptr;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
    RuleInput input;
    input.name = static_cast<int>(i) < node.input_size() ? node.input(static_cast<int>(i)) : "";
    const onnx::TypeProto* type = ctx.getInputType(i);
    if (i == 0) first_input = type;
    input.type = ValueTypeOf(type);
    const onnx::TensorProto* data = ctx.getInputData(i);
    if (data != nullptr && data->ByteSizeLong() <= kMaxConstantBytes) {
      absl::StatusOr<Tensor> value = TensorFromProto(*data);
      if (value.ok()) {
        constants.push_back(std::make_unique<Tensor>(std::move(*value)));
        input.constant = constants.back().get();
      }
    }
    rule_node.inputs.push_back(std::move(input));
  }
  // A node its rule does not parse (too few inputs, an attribute of the wrong type) is refused when it is
  // planned, naming why; OutputType reads the inputs and attributes the rule's signature promises.
  if (!rule->Parse(rule_node).ok()) return;
  const ValueType output_type = rule->OutputType(rule_node);
  if (output_type.elem_type == 0) return;
  onnx::TypeProto_Tensor* output = ctx.getOutputType(0)->mutable_tensor_type();
  output->set_elem_type(output_type.elem_type);
  if (!output_type.dims.has_value()) return;
  // An output of its input's type keeps the input's shape as inference knows it, symbolic dims included.
  if (first_input != nullptr && first_input->has_tensor_type() && first_input->tensor_type().has_shape() &&
      !rule_node.inputs.empty() && rule_node.inputs[0].type.dims == output_type.dims) {
    *output->mutable_shape() = first_input->tensor_type().shape();
    return;
  }
  onnx::TensorShapeProto* shape = output->mutable_shape();
  for (int64_t dim : *output_type.dims) {
    onnx::TensorShapeProto_Dimension* added = shape->add_dim();
    if (dim >= 0) added->set_dim_value(dim);
  }
}

// A node of ONNX's first opsets that onnx 1.12 cannot type (graph/untyped_era_ops.h) is shown as this.
constexpr char kEraStandIn[] = "FirstOutputLikeFirstInput";
constexpr char kKeepsShapeAttribute[] = "onnx_legalize.keeps_shape";

// A recurrent op of the first opsets: each output has X's element type, and its dims where X's are known.
void InferRecurrentOutputs(onnx::InferenceContext& ctx, const onnx::NodeProto& node, int32_t element_type) {
  const std::optional<std::vector<int64_t>> x = ValueTypeOf(ctx.getInputType(0)).dims;
  for (size_t k = 0; k < ctx.getNumOutputs(); ++k) {
    onnx::TypeProto_Tensor* output = ctx.getOutputType(k)->mutable_tensor_type();
    output->set_elem_type(element_type);
    const std::optional<std::vector<int64_t>> dims =
        x.has_value() ? RecurrentOutputDims(node, *x, static_cast<int>(k)) : std::nullopt;
    if (!dims.has_value()) continue;
    onnx::TensorShapeProto* shape = output->mutable_shape();
    for (int64_t dim : *dims) {
      onnx::TensorShapeProto_Dimension* added = shape->add_dim();
      if (dim >= 0) added->set_dim_value(dim);
    }
  }
}

void InferLikeFirstInput(onnx::InferenceContext& ctx) {
  if (ctx.getNumInputs() == 0 || ctx.getNumOutputs() == 0) return;
  const onnx::TypeProto* input = ctx.getInputType(0);
  if (input == nullptr || !input->has_tensor_type() || input->tensor_type().elem_type() == 0) return;
  const onnx::AttributeProto* carried = ctx.getAttribute(kNodeAttribute);
  onnx::NodeProto carried_node;
  if (carried != nullptr && carried_node.ParseFromString(carried->s()) && IsRecurrentOp(carried_node.op_type())) {
    InferRecurrentOutputs(ctx, carried_node, input->tensor_type().elem_type());
    return;
  }
  onnx::TypeProto_Tensor* output = ctx.getOutputType(0)->mutable_tensor_type();
  output->set_elem_type(input->tensor_type().elem_type());
  const onnx::AttributeProto* keeps_shape = ctx.getAttribute(kKeepsShapeAttribute);
  if (keeps_shape != nullptr && keeps_shape->i() != 0 && input->tensor_type().has_shape()) {
    *output->mutable_shape() = input->tensor_type().shape();
  }
  // A node that carries itself (a Concat-1) has its output dims from its inputs'.
  if (carried == nullptr || carried_node.op_type().empty()) return;
  const std::optional<std::vector<int64_t>> dims = EraOutputDims(carried_node, [&ctx](int i) {
    return static_cast<size_t>(i) < ctx.getNumInputs() ? ValueTypeOf(ctx.getInputType(i)).dims : std::nullopt;
  });
  if (!dims.has_value()) return;
  onnx::TensorShapeProto* shape = output->mutable_shape();
  for (int64_t dim : *dims) {
    onnx::TensorShapeProto_Dimension* added = shape->add_dim();
    if (dim >= 0) added->set_dim_value(dim);
  }
}

// Whether `node`, of the default domain at `opset`, is one of those: shown as the era stand-in if so.
bool ShowUntypedEraNode(onnx::NodeProto& node, int64_t opset) {
  if (!IsUntypedEraNode(node, opset)) return false;
  onnx::AttributeProto keeps_shape;
  keeps_shape.set_name(kKeepsShapeAttribute);
  keeps_shape.set_type(onnx::AttributeProto::INT);
  keeps_shape.set_i(UntypedEraOpKeepsShape(node.op_type()) ? 1 : 0);
  // A Concat-1 carries itself, whose output dims EraOutputDims reads from it, and so does a recurrent op, whose
  // outputs InferRecurrentOutputs types. (The planners' inference has never
  // given Gemm-1's or Reshape-1's output dims, which EraOutputDims also knows: new types for the planners to read
  // would be a change of its own.)
  std::optional<onnx::AttributeProto> itself;
  if (node.op_type() == "Concat" || IsRecurrentOp(node.op_type())) {
    itself.emplace();
    itself->set_name(kNodeAttribute);
    itself->set_type(onnx::AttributeProto::STRING);
    node.SerializeToString(itself->mutable_s());
  }
  node.clear_attribute();
  *node.add_attribute() = std::move(keeps_shape);
  if (itself.has_value()) *node.add_attribute() = *std::move(itself);
  node.set_op_type(kEraStandIn);
  node.set_domain(kTypedStandInDomain);
  return true;
}

void RegisterSchema(const std::string& op_type, onnx::InferenceFunction inference) {
  onnx::OpSchema schema;
  schema.SetName(op_type)
      .SetDomain(kTypedStandInDomain)
      .SinceVersion(1)
      .SetDoc("onnx-legalize's stand-in for a removed op, in the copy of a model its planners infer types on.")
      .Input(0, "inputs", "The removed node's inputs.", "T", onnx::OpSchema::Variadic, /*is_homogeneous=*/false,
             /*min_arity=*/0)
      .Output(0, "outputs", "Typed as the removed op's rule says.", "T", onnx::OpSchema::Variadic,
              /*is_homogeneous=*/false, /*min_arity=*/1)
      .TypeConstraint("T", onnx::OpSchema::all_tensor_types(), "Any tensor type.")
      .TypeAndShapeInferenceFunction(std::move(inference));
  onnx::OpSchemaRegistry::OpSchemaRegisterOnce registration(schema);
}

void RegisterTypedStandIns() {
  static const bool registered = [] {
    onnx::OpSchemaRegistry::DomainToVersionRange::Instance().AddDomainToVersion(kTypedStandInDomain, 1, 1);
    RegisterSchema(kDynamicSliceOp, InferDynamicSlice);
    RegisterSchema(kEraStandIn, InferLikeFirstInput);
    for (const char* op_type : RemovedOpTypes()) RegisterSchema(op_type, InferByRule);
    return true;
  }();
  (void)registered;
}

// Registered as the library is loaded, before any of its threads runs: onnx's OpSchemaRegisterOnce writes the
// registry's map without a lock, and on first use the registration raced with a helper thread reading the map
// (onnx's checker on the input runs beside the planning; AddressSanitizer caught it in one process in thirty).
const bool kTypedStandInsRegisteredAtLoad = (RegisterTypedStandIns(), true);

}  // namespace

InferenceStandIns RemovedOpsTypedForInference(int64_t opset) {
  RegisterTypedStandIns();
  return InferenceStandIns{kTypedStandInDomain, [opset](onnx::NodeProto& node) {
                             if (node.output_size() != 1) {
                               return IsDefaultDomain(node.domain()) && ShowUntypedEraNode(node, opset);
                             }
                             if (IsDefaultDomain(node.domain()) && node.op_type() == kDynamicSliceOp) {
                               node.set_domain(kTypedStandInDomain);
                               return true;
                             }
                             if (FindRemovedOpRule(node, opset) == nullptr) {
                               return IsDefaultDomain(node.domain()) && ShowUntypedEraNode(node, opset);
                             }
                             onnx::AttributeProto serialized;
                             serialized.set_name(kNodeAttribute);
                             serialized.set_type(onnx::AttributeProto::STRING);
                             node.SerializeToString(serialized.mutable_s());
                             onnx::AttributeProto opset_attribute;
                             opset_attribute.set_name(kOpsetAttribute);
                             opset_attribute.set_type(onnx::AttributeProto::INT);
                             opset_attribute.set_i(opset);
                             *node.add_attribute() = std::move(serialized);
                             *node.add_attribute() = std::move(opset_attribute);
                             node.set_domain(kTypedStandInDomain);
                             return true;
                           }};
}

}  // namespace onnx_legalize
