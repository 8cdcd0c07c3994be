#include "driver/declared_output_shapes.h"

#include <string>
#include <unordered_map>

#include "google/protobuf/arena.h"
#include "graph/model_skeleton.h"
#include "graph/type_text.h"

namespace onnx_legalize {
namespace {

bool LacksShape(const onnx::ValueInfoProto& output) {
  return output.type().has_tensor_type() && !output.type().tensor_type().has_shape();
}

}  // namespace

std::vector<InterfaceChange> DeclareInferredOutputShapes(onnx::ModelProto& model) {
  std::vector<InterfaceChange> changes;
  bool any = false;
  for (const onnx::ValueInfoProto& output : model.graph().output()) any = any || LacksShape(output);
  if (!any) return changes;

  google::protobuf::Arena arena;
  const onnx::ModelProto* inferred = InferTypesOnSkeleton(model, arena, InferenceStandIns{});
  // What inference found of each value: graph outputs first (inference writes into their declarations), then
  // the values inside the graph.
  std::unordered_map<std::string, const onnx::TypeProto*> found;
  for (const onnx::ValueInfoProto& value : inferred->graph().value_info()) found[value.name()] = &value.type();
  for (const onnx::ValueInfoProto& value : inferred->graph().output()) {
    if (value.type().has_tensor_type() && value.type().tensor_type().has_shape()) found[value.name()] = &value.type();
  }
  for (onnx::ValueInfoProto& output : *model.mutable_graph()->mutable_output()) {
    if (!LacksShape(output)) continue;
    auto it = found.find(output.name());
    if (it == found.end() || !it->second->has_tensor_type() || !it->second->tensor_type().has_shape()) continue;
    const std::string before = TypeText(output.type());
    *output.mutable_type()->mutable_tensor_type()->mutable_shape() = it->second->tensor_type().shape();
    changes.push_back(InterfaceChange{output.name(), before, TypeText(output.type()),
                                      "onnx's checker requires a shape on every output of the main graph: the one "
                                      "inference finds, its unknown dims left unknown"});
  }
  return changes;
}

}  // namespace onnx_legalize
