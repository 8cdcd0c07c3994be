#include "graph/model_skeleton.h"

#include <string>
#include <unordered_set>

#include "graph/subgraphs.h"
#include "onnx/shape_inference/implementation.h"

namespace onnx_legalize {
namespace {

int64_t StoredBytes(const onnx::TensorProto& tensor) {
  return static_cast<int64_t>(tensor.raw_data().size()) + 4 * int64_t{tensor.float_data_size()} +
         4 * int64_t{tensor.int32_data_size()} + 8 * int64_t{tensor.int64_data_size()} +
         8 * int64_t{tensor.double_data_size()} + 8 * int64_t{tensor.uint64_data_size()} +
         16 * int64_t{tensor.string_data_size()};
}

void DeclareAsInput(const onnx::TensorProto& initializer, onnx::GraphProto& graph) {
  onnx::ValueInfoProto* input = graph.add_input();
  input->set_name(initializer.name());
  auto* tensor_type = input->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(initializer.data_type());
  auto* shape = tensor_type->mutable_shape();
  for (int64_t dim : initializer.dims()) shape->add_dim()->set_dim_value(dim);
}

// Builds `target` from `source` field by field, so the main graph's large initializers are never copied.
// (A node is copied whole and its subgraphs then rebuilt: subgraph weights are rare and small.)
void CopyGraphSkeleton(const onnx::GraphProto& source, onnx::GraphProto& target) {
  target.set_name(source.name());
  target.set_doc_string(source.doc_string());
  *target.mutable_input() = source.input();
  *target.mutable_output() = source.output();
  *target.mutable_value_info() = source.value_info();
  *target.mutable_sparse_initializer() = source.sparse_initializer();
  *target.mutable_quantization_annotation() = source.quantization_annotation();

  std::unordered_set<std::string> inputs;
  for (const auto& input : source.input()) inputs.insert(input.name());
  for (const auto& initializer : source.initializer()) {
    // External data is left out too: onnx's checker would look for its file relative to the working
    // folder, and shape inference cannot read it.
    if (!SkeletonLeavesOut(initializer)) {
      *target.add_initializer() = initializer;
    } else if (!inputs.count(initializer.name())) {
      DeclareAsInput(initializer, target);
    }
  }

  for (const auto& node : source.node()) {
    onnx::NodeProto* copy = target.add_node();
    *copy = node;
    for (int a = 0; a < node.attribute_size(); ++a) {
      const onnx::AttributeProto& original = node.attribute(a);
      onnx::AttributeProto& attribute = *copy->mutable_attribute(a);
      if (original.has_g()) {
        attribute.clear_g();
        CopyGraphSkeleton(original.g(), *attribute.mutable_g());
      }
      for (int g = 0; g < original.graphs_size(); ++g) {
        attribute.mutable_graphs(g)->Clear();
        CopyGraphSkeleton(original.graphs(g), *attribute.mutable_graphs(g));
      }
    }
  }
}

// Rewrites the nodes of `graph` and of its subgraphs at any depth that `stand_ins` shows; true when any was.
bool ShowStandIns(onnx::GraphProto& graph, const InferenceStandIns& stand_ins) {
  bool shown = false;
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    ForEachMutableSubgraph(node, [&](const std::string&, onnx::GraphProto& subgraph) {
      shown = ShowStandIns(subgraph, stand_ins) || shown;
    });
    shown = stand_ins.show(node) || shown;
  }
  return shown;
}

}  // namespace

bool SkeletonLeavesOut(const onnx::TensorProto& initializer) {
  return StoredBytes(initializer) > kSkeletonKeepBytes || initializer.data_location() == onnx::TensorProto::EXTERNAL;
}

void BuildModelSkeleton(const onnx::ModelProto& model, onnx::ModelProto& skeleton) {
  skeleton.set_ir_version(model.ir_version());
  *skeleton.mutable_opset_import() = model.opset_import();
  skeleton.set_producer_name(model.producer_name());
  skeleton.set_producer_version(model.producer_version());
  skeleton.set_domain(model.domain());
  skeleton.set_model_version(model.model_version());
  skeleton.set_doc_string(model.doc_string());
  *skeleton.mutable_metadata_props() = model.metadata_props();
  *skeleton.mutable_functions() = model.functions();
  CopyGraphSkeleton(model.graph(), *skeleton.mutable_graph());
}

onnx::ModelProto* InferTypesOnSkeleton(const onnx::ModelProto& model, google::protobuf::Arena& arena,
                                       const InferenceStandIns& stand_ins) {
  auto* inferred = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  auto build = [&] {
    BuildModelSkeleton(model, *inferred);
    // onnx's inference reads the types of initializers a graph does not list as inputs only from IR 4, when
    // that became legal; WinMLTools 0.1 wrote IR 3 models so. The copy is for inference alone.
    if (inferred->ir_version() < 4) inferred->set_ir_version(4);
    if (!stand_ins.show) return;
    if (!ShowStandIns(*inferred->mutable_graph(), stand_ins)) return;
    onnx::OperatorSetIdProto* import = inferred->add_opset_import();
    import->set_domain(stand_ins.domain);
    import->set_version(1);
  };
  build();
  try {
    onnx::shape_inference::InferShapes(*inferred);
  } catch (const std::exception&) {
    inferred->Clear();
    build();
  }
  return inferred;
}

}  // namespace onnx_legalize
