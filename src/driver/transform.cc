#include "driver/transform.h"

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/status_macros.h"
#include "driver/opset_move_changes.h"
#include "google/protobuf/io/coded_stream.h"
#include "graph/graph_locator.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/subgraphs.h"
#include "upgrade/opset_upgrade.h"
#include "verify/dynamic_slice_verify.h"

namespace onnx_legalize {
namespace {

// Rewrites the domain of nodes written "ai.onnx" to "" in every graph. Both spell the default domain, but
// onnx's checker accepts "ai.onnx" only when the model imports an opset under that very name, so a model
// that does not is made valid this way whenever it is changed anyway.
void CanonicalizeDefaultDomainSpelling(onnx::GraphProto& graph) {
  for (auto& node : *graph.mutable_node()) {
    if (node.domain() == kDefaultDomainAlias) node.set_domain(kDefaultDomain);
    ForEachMutableSubgraph(
        node, [](const std::string&, onnx::GraphProto& subgraph) { CanonicalizeDefaultDomainSpelling(subgraph); });
  }
}

bool ImportsDefaultDomainAlias(const onnx::ModelProto& model) {
  for (const auto& import : model.opset_import()) {
    if (import.domain() == kDefaultDomainAlias) return true;
  }
  return false;
}

// MoveDefaultOpset, with the types of the values the passes fold declared (value_info) while it runs: the
// folds are written after the move, and onnx's adapters read the dims of what they convert (Gemm-6's B, a
// legacy broadcast's operands). The declarations are taken out again, so the model keeps its own.
// A value the graph declares already keeps its own declaration. The outputs the move renamed go to `renamed`.
absl::Status MoveSeeingFolds(int64_t target, const std::vector<FoldedValueType>& folds, onnx::ModelProto& model,
                             RenamedOutputs& renamed) {
  std::unordered_map<const onnx::GraphProto*, std::unordered_set<std::string>> declared_before;
  std::vector<const GraphLocator*> declared;  // in the order the entries were added at the end of their graphs
  for (const FoldedValueType& fold : folds) {
    ASSIGN_OR_RETURN(onnx::GraphProto * resolved, ResolveGraph(model, fold.graph));
    onnx::GraphProto& graph = *resolved;
    auto [names, first] = declared_before.try_emplace(&graph);
    if (first) {
      for (const auto& value : graph.value_info()) names->second.insert(value.name());
    }
    if (!names->second.insert(fold.name).second) continue;
    onnx::ValueInfoProto* value = graph.add_value_info();
    value->set_name(fold.name);
    auto* tensor_type = value->mutable_type()->mutable_tensor_type();
    tensor_type->set_elem_type(fold.type);
    auto* shape = tensor_type->mutable_shape();
    for (int64_t dim : fold.dims) shape->add_dim()->set_dim_value(dim);
    declared.push_back(&fold.graph);
  }
  absl::Status moved = MoveDefaultOpset(model, target, OpsThePassesRewrite(), &renamed);
  // The move rebuilds node lists (and the subgraphs in them) but keeps each graph's value_info as it was:
  // the entries added last are still last, found again by their locators (which follow what it renamed).
  for (auto it = declared.rbegin(); it != declared.rend(); ++it) {
    ASSIGN_OR_RETURN(onnx::GraphProto * graph, ResolveGraph(model, **it, renamed));
    graph->mutable_value_info()->RemoveLast();
  }
  return moved;
}

// The opset move, its moved form kept for the proof (OpsetMoveToProve) unless the model runner cannot run the
// model, which is checked before the model is copied. The proof will read the large initializers' data where
// `aside` holds it.
absl::Status MoveAndProve(int64_t target, const std::vector<FoldedValueType>& folds, const Options& options,
                          const LargeInitializersAside& aside, onnx::ModelProto& model,
                          OpsetMoveProofResult& opset_move, std::optional<OpsetMoveToProve>& to_prove,
                          RenamedOutputs& renamed) {
  if (!options.verify) {
    opset_move.text = kVerificationSkipped;
    opset_move.proof.why_not = kVerificationOff;
    return MoveSeeingFolds(target, folds, model, renamed);
  }
  const SetAsideInitializers set_aside = [&aside](const std::string& name) { return aside.Find(name); };
  if (std::optional<std::string> why = WhyOpsetMoveCannotBeExecuted(model, set_aside, options.external_data)) {
    opset_move = OpsetMoveNotExecuted(*why);
    return MoveSeeingFolds(target, folds, model, renamed);
  }
  RETURN_IF_ERROR(MoveSeeingFolds(target, folds, model, renamed));
  to_prove.emplace(model);
  return absl::OkStatus();
}

// The opset move (MoveAndProve), and what it did to the model's nodes (Report::opset_move_changes).
absl::Status MoveOpset(int64_t current, int64_t target, const std::vector<FoldedValueType>& folds,
                       const Options& options, const LargeInitializersAside& aside, onnx::ModelProto& model,
                       OpsetMoveProofResult& opset_move, std::optional<OpsetMoveToProve>& to_prove,
                       std::vector<OpsetMoveChange>& changes, RenamedOutputs& renamed) {
  const NodesBeforeMove before(model, current);
  RETURN_IF_ERROR(MoveAndProve(target, folds, options, aside, model, opset_move, to_prove, renamed));
  changes = before.Changes(model, target);
  return absl::OkStatus();
}

// Whether `graph` or a graph in it holds an initializer that is not also a graph input of its graph.
bool HoldsUnlistedInitializer(const onnx::GraphProto& graph) {
  std::unordered_set<std::string> inputs;
  for (const auto& input : graph.input()) inputs.insert(input.name());
  for (const auto& initializer : graph.initializer()) {
    if (inputs.count(initializer.name()) == 0) return true;
  }
  bool found = false;
  for (const onnx::NodeProto& node : graph.node()) {
    ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      found = found || HoldsUnlistedInitializer(subgraph);
    });
  }
  return found;
}

}  // namespace

OpsetMoveToProve::OpsetMoveToProve(const onnx::ModelProto& after) {
  if (after.ByteSizeLong() > static_cast<size_t>(INT_MAX) || !after.SerializeToString(&bytes_)) {
    bytes_.clear();
    unserialized_ = after;
  }
}

absl::StatusOr<onnx::ModelProto> OpsetMoveToProve::After() const {
  if (unserialized_.has_value()) return *unserialized_;
  onnx::ModelProto after;
  google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(bytes_.data()),
                                               static_cast<int>(bytes_.size()));
  // As deep as the model in memory was: it was made here, from a model whose depth the loader bounded.
  coded.SetRecursionLimit(INT_MAX);
  if (!after.ParseFromCodedStream(&coded)) {
    return absl::InternalError("the opset move's moved form, kept as bytes for its proof, does not parse back");
  }
  return after;
}

void RaiseIrVersionAsTheCheckerNeeds(onnx::ModelProto& model) {
  // IR 1-2 cannot import opsets ("IR version < 3 cannot have opset_import"); PyTorch 0.3 wrote such models, and
  // IR 3 is the lowest that can.
  if (model.ir_version() < 3 && model.opset_import_size() > 0) model.set_ir_version(3);
  // IR 3 wants every initializer listed as a graph input too; WinMLTools 0.1 did not list them. IR 4 (onnx 1.4)
  // dropped the rule: raised to 4 rather than listing them, which would make them inputs a caller may override.
  if (model.ir_version() == 3 && HoldsUnlistedInitializer(model.graph())) model.set_ir_version(4);
}

// Moves the model to `target`, proving the move where the model runner can execute the model (its text goes
// to `opset_move`), and applies the passes; returns the values they left to fill later. MoveDefaultOpset is
// transactional. The passes are applied last first: DynamicSlice's new names were chosen while planning, from the
// model as it was, and the removed ops' replacements, which make theirs while applying, must see them.
absl::StatusOr<std::vector<ValuesToCome>> Transform(const std::vector<std::unique_ptr<Pass>>& passes, int64_t current,
                                                    int64_t target, const Options& options,
                                                    const LargeInitializersAside& aside, onnx::ModelProto& model,
                                                    OpsetMoveProofResult& opset_move,
                                                    std::optional<OpsetMoveToProve>& to_prove,
                                                    std::vector<OpsetMoveChange>& move_changes) {
  RenamedOutputs renamed;  // by the opset move
  if (target != current) {
    std::vector<FoldedValueType> folds;
    for (const auto& pass : passes) {
      std::vector<FoldedValueType> of_pass = pass->FoldedValueTypes();
      folds.insert(folds.end(), of_pass.begin(), of_pass.end());
    }
    RETURN_IF_ERROR(
        MoveOpset(current, target, folds, options, aside, model, opset_move, to_prove, move_changes, renamed));
  }
  // Before the passes apply: they write their constants as the IR version says.
  RaiseIrVersionAsTheCheckerNeeds(model);
  std::vector<ValuesToCome> to_come;
  for (auto pass = passes.rbegin(); pass != passes.rend(); ++pass) {
    ASSIGN_OR_RETURN(ValuesToCome values, (*pass)->Apply(model, target, renamed));
    to_come.push_back(std::move(values));
  }
  if (!ImportsDefaultDomainAlias(model)) CanonicalizeDefaultDomainSpelling(*model.mutable_graph());
  return to_come;
}

}  // namespace onnx_legalize
