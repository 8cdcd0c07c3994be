// Moving down: the inputs a step needs constant (they are attributes at the older version) that the model computes
// from constants alone (and from the Shape of a value whose dims are fixed: a graph input declared so, or a value
// onnx's shape inference fixes from such inputs). PyTorch writes F.pad's pads as ConstantOfShape, Concat, Reshape, a
// Slice with steps -1, Transpose, Reshape and Cast, every one of them of constants; such a Pad has no form below 11 as
// it stands, and the Slice with steps -1 none below 10. Computed once by the model runner (the value every run of the
// model computes), the pads are a constant, and both have one.
//
// So the down steps' checks read a main-graph value computed from constants as the constant it is (ComputedConstants
// extends their ConstantOf), and when the move goes ahead, the node that computed each value a check read becomes a
// Constant node holding it, and the nodes that then compute nothing anything reads go. The constants they read go
// after the move, as every constant a down move stops reading (opset_upgrade.cc). The proof of the move executes
// the original, chain and all, against the result (verify/opset_move_proof.h).
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "eval/kernels/registry.h"
#include "eval/model_runner.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// The most nodes one computed value may take, and the element operations its run may do: pads and scales take a
// handful of nodes of a few elements each.
constexpr size_t kMostNodes = 256;
constexpr int64_t kMostWork = int64_t{1} << 24;

// The dims of graph input `name` when its declaration fixes every one of them, or nullopt. ONNX Runtime refuses an
// input of other dims, so the Shape of such an input is a constant, and so is the Shape of a value whose dims shape
// inference fixes from such inputs.
std::optional<std::vector<int64_t>> StaticDimsOfInput(const GraphProto& graph, const std::string& name) {
  for (const ValueInfoProto& input : graph.input()) {
    if (input.name() != name) continue;
    if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape()) return std::nullopt;
    std::vector<int64_t> dims;
    for (const auto& dim : input.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
      dims.push_back(dim.dim_value());
    }
    return dims;
  }
  return std::nullopt;
}

// A Constant node that makes `output` the tensor `value` (its name left out).
NodeProto ConstantNodeOf(const std::string& output, TensorProto value) {
  NodeProto constant;
  constant.set_op_type(kConstantOp);
  constant.add_output(output);
  AttributeProto& attribute = *constant.add_attribute();
  attribute.set_name("value");
  attribute.set_type(AttributeProto::TENSOR);
  value.clear_name();
  *attribute.mutable_t() = std::move(value);
  return constant;
}

// A Constant node that makes `output` a 1-D int64 tensor of `values`.
NodeProto Int64sConstant(const std::string& output, const std::vector<int64_t>& values) {
  TensorProto tensor;
  tensor.set_data_type(TensorProto::INT64);
  tensor.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t value : values) tensor.add_int64_data(value);
  return ConstantNodeOf(output, std::move(tensor));
}

// Ops whose output is not a function of their inputs.
bool IsRandom(const std::string& op_type) {
  return op_type.rfind("Random", 0) == 0 || op_type == "Multinomial" || op_type == "Bernoulli";
}

}  // namespace

ComputedConstants::ComputedConstants(const ModelProto& model, const Move& move) : model_(model), move_(move) {
  const GraphProto& graph = model.graph();
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const std::string& output : graph.node(i).output()) {
      if (!output.empty()) producer_.emplace(output, i);
    }
  }
  constants_ = ConstantsOf(graph, nullptr, model.ir_version() >= 4);
  for (const TensorProto& initializer : graph.initializer()) initializers_.emplace(initializer.name(), &initializer);
  for (const ValueInfoProto& output : graph.output()) graph_outputs_.insert(output.name());
}

const Skeleton* ComputedConstants::InferredSkeleton() {
  if (!skeleton_.has_value()) skeleton_ = BuildSkeleton(model_, move_);
  return skeleton_->ok() ? &**skeleton_ : nullptr;
}

int32_t ComputedConstants::ElementType(const std::string& name) {
  const Skeleton* skeleton = InferredSkeleton();
  if (skeleton == nullptr) return TensorProto::UNDEFINED;
  auto found = skeleton->types.elem_types.find(skeleton->codec.Encoded(name));
  return found == skeleton->types.elem_types.end() ? TensorProto::UNDEFINED : found->second;
}

std::optional<std::vector<int64_t>> ComputedConstants::FixedDims(const std::string& name) {
  if (std::optional<std::vector<int64_t>> declared = StaticDimsOfInput(model_.graph(), name)) return declared;
  const Skeleton* skeleton = InferredSkeleton();
  if (skeleton == nullptr) return std::nullopt;
  auto found = skeleton->types.known_dims.find(skeleton->codec.Encoded(name));
  if (found == skeleton->types.known_dims.end()) return std::nullopt;
  for (int64_t dim : found->second) {
    if (dim < 0) return std::nullopt;
  }
  return found->second;
}

ConstantOf ComputedConstants::Over(ConstantOf constants) {
  return [this, constants = std::move(constants)](const std::string& name) -> const TensorProto* {
    if (const TensorProto* constant = constants(name)) return constant;
    return Computed(name);  // names are unique across a model's graphs: a subgraph's own values are not here
  };
}

const TensorProto* ComputedConstants::Computed(const std::string& name) {
  auto known = computed_.find(name);
  if (known == computed_.end()) known = computed_.emplace(name, Compute(name)).first;
  if (!known->second.has_value()) return nullptr;
  if (std::find(read_.begin(), read_.end(), name) == read_.end()) read_.push_back(name);
  return &known->second->value;
}

std::optional<ComputedConstants::Value> ComputedConstants::Compute(const std::string& name) {
  auto producer = producer_.find(name);
  if (producer == producer_.end() || graph_outputs_.count(name) > 0) return std::nullopt;
  const GraphProto& graph = model_.graph();
  if (graph.node(producer->second).output_size() != 1) return std::nullopt;  // the node becomes a Constant
  // The nodes that compute `name`, back to constants: none may read a graph input or an outer value.
  std::set<int> nodes;
  std::map<std::string, const TensorProto*> leaves;
  std::map<int, std::vector<int64_t>> input_shapes;  // Shape nodes of a graph input of fixed dims, by index
  std::vector<int> pending = {producer->second};
  while (!pending.empty()) {
    const int index = pending.back();
    pending.pop_back();
    if (!nodes.insert(index).second) continue;
    if (nodes.size() > kMostNodes) return std::nullopt;
    const NodeProto& node = graph.node(index);
    if (node.op_type() == kShape && IsDefaultDomain(node.domain()) && node.attribute_size() == 0 &&
        node.input_size() == 1) {
      if (std::optional<std::vector<int64_t>> dims = FixedDims(node.input(0))) {
        input_shapes.emplace(index, *std::move(dims));
        continue;
      }
    }
    if (!IsDefaultDomain(node.domain()) || HoldsSubgraph(node) || IsRandom(node.op_type()) ||
        FindKernel(node.op_type()) == nullptr) {
      return std::nullopt;
    }
    for (const std::string& input : node.input()) {
      if (input.empty()) continue;
      auto initializer = initializers_.find(input);
      if (initializer != initializers_.end()) {
        if (constants_(input) == nullptr || !InlineConstant(*initializer->second)) return std::nullopt;
        leaves.emplace(input, initializer->second);
        continue;
      }
      auto from = producer_.find(input);
      if (from == producer_.end()) return std::nullopt;  // a graph input
      pending.push_back(from->second);
    }
  }
  // The chain alone, as a model of its own, run by the model runner.
  ModelProto chain;
  chain.set_ir_version(model_.ir_version());
  *chain.mutable_opset_import() = model_.opset_import();
  GraphProto& chain_graph = *chain.mutable_graph();
  chain_graph.set_name("computed_constant");
  for (int index : nodes) {
    auto shape = input_shapes.find(index);
    *chain_graph.add_node() =
        shape == input_shapes.end() ? graph.node(index) : Int64sConstant(graph.node(index).output(0), shape->second);
  }
  for (const auto& [leaf, tensor] : leaves) *chain_graph.add_initializer() = *tensor;
  chain_graph.add_output()->set_name(name);
  RunMeter meter;
  meter.budget = kMostWork;
  absl::StatusOr<std::map<std::string, Tensor>> outputs = RunModel(chain, {}, nullptr, nullptr, &meter);
  if (!outputs.ok() || outputs->count(name) == 0) return std::nullopt;
  Value value{TensorToProto(std::move(outputs->at(name)), name), std::move(nodes)};
  if (!InlineConstant(value.value)) return std::nullopt;  // the converter would not see its data
  return value;
}

std::vector<bool> ComputedConstants::NodesThatGo() const {
  const GraphProto& graph = model_.graph();
  std::vector<bool> goes(static_cast<size_t>(graph.node_size()), false);
  if (read_.empty()) return goes;
  std::set<int> chains;  // the nodes of every chain, which go when nothing reads them any more
  std::unordered_set<int> becoming_constants;
  for (const std::string& name : read_) {
    const std::set<int>& nodes = computed_.at(name)->nodes;
    chains.insert(nodes.begin(), nodes.end());
    becoming_constants.insert(producer_.at(name));
  }
  // Again while that leaves more unread: a chain's nodes read one another.
  for (bool went = true; went;) {
    went = false;
    std::unordered_set<std::string> read;
    for (int i = 0; i < graph.node_size(); ++i) {
      if (goes[static_cast<size_t>(i)] || becoming_constants.count(i) > 0) continue;  // a Constant reads nothing
      for (const std::string& input : graph.node(i).input()) read.insert(input);
      ForEachSubgraph(graph.node(i), [&](const std::string&, const GraphProto& subgraph) {
        ForEachReadName(subgraph, [&](const std::string& name) { read.insert(name); });
      });
    }
    for (const ValueInfoProto& output : graph.output()) read.insert(output.name());
    for (int index : chains) {
      const auto& outputs = graph.node(index).output();
      if (goes[static_cast<size_t>(index)] ||
          std::any_of(outputs.begin(), outputs.end(), [&](const std::string& o) { return read.count(o) > 0; })) {
        continue;
      }
      goes[static_cast<size_t>(index)] = went = true;
    }
  }
  return goes;
}

std::optional<google::protobuf::RepeatedPtrField<NodeProto>> ComputedConstants::WriteInto(ModelProto& model) const {
  if (read_.empty()) return std::nullopt;
  const std::vector<bool> goes = NodesThatGo();
  GraphProto& graph = *model.mutable_graph();
  google::protobuf::RepeatedPtrField<NodeProto> before = graph.node();
  for (const std::string& name : read_) {
    if (goes[static_cast<size_t>(producer_.at(name))]) continue;  // read only by a node that goes too
    NodeProto& node = *graph.mutable_node(producer_.at(name));
    NodeProto constant = ConstantNodeOf(name, computed_.at(name)->value);
    constant.set_name(node.name());
    node = std::move(constant);
  }
  google::protobuf::RepeatedPtrField<NodeProto> kept;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (!goes[static_cast<size_t>(i)]) kept.Add()->Swap(graph.mutable_node(i));
  }
  graph.mutable_node()->Swap(&kept);
  return before;
}

}  // namespace onnx_legalize::opset_upgrade
