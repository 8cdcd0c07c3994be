// The model runner's engine, shared by RunModel (model_runner.cc) and RunModelPair (paired_run.h): the values one
// graph defines (Scope), the names each node reads last (LastReads, so that a value is freed after its last
// reader), and the Runner that runs a graph's nodes in order, If and Loop with their subgraphs, and charges the
// meter. Internal to src/eval/: callers use model_runner.h.
#ifndef ONNX_LEGALIZE_SRC_EVAL_GRAPH_RUNNER_H_
#define ONNX_LEGALIZE_SRC_EVAL_GRAPH_RUNNER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "eval/kernels/kernel.h"
#include "eval/kernels/sequence.h"
#include "eval/model_runner.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize::graph_runner {

inline constexpr char kIfOp[] = "If";
inline constexpr char kLoopOp[] = "Loop";

// ---------------------------------------------------------------------------------------------------------
// Graphs.

// The values one graph defines, with lookups that fall through to the enclosing graphs.
class Scope {
 public:
  Scope(std::string path, const Scope* outer) : path_(std::move(path)), outer_(outer) {}

  const std::string& path() const { return path_; }

  // The value of `name` here or in an enclosing graph; null when none defines it (yet).
  const Value* Find(const std::string& name) const {
    for (const Scope* scope = this; scope != nullptr; scope = scope->outer_) {
      auto it = scope->values_.find(name);
      if (it != scope->values_.end()) return &it->second;
    }
    return nullptr;
  }

  // The sequence `name` here or in an enclosing graph; null when none defines it (yet).
  const Sequence* FindSequence(const std::string& name) const {
    for (const Scope* scope = this; scope != nullptr; scope = scope->outer_) {
      auto it = scope->sequences_.find(name);
      if (it != scope->sequences_.end()) return &it->second;
    }
    return nullptr;
  }

  // A graph is in SSA form: each name is defined once (a released name counts as defined).
  absl::Status Define(const std::string& name, Value value) {
    if (released_.count(name) > 0 || sequences_.count(name) > 0 || !values_.emplace(name, std::move(value)).second) {
      return Twice(name);
    }
    return absl::OkStatus();
  }
  absl::Status DefineSequence(const std::string& name, Sequence sequence) {
    if (released_.count(name) > 0 || values_.count(name) > 0 || !sequences_.emplace(name, std::move(sequence)).second) {
      return Twice(name);
    }
    return absl::OkStatus();
  }

  // Makes `name`, defined here, the tensor `value`, which equals it bit for bit: RunModelPair keeps one of two
  // equal tensors, so that the nodes reading it in both forms see the same tensor.
  void Replace(const std::string& name, Value value) {
    auto it = values_.find(name);
    if (it != values_.end()) it->second = std::move(value);
  }

  // Drops this graph's value of `name` (its last reader has run), so that a model holds only the values still
  // to be read: an image network's activations, kept all, would take gigabytes.
  void Release(const std::string& name) {
    if (values_.erase(name) + sequences_.erase(name) > 0) released_.insert(name);
  }

 private:
  absl::Status Twice(const std::string& name) const {
    return absl::InvalidArgumentError(absl::StrCat("value '", name, "' is defined twice in graph ", path_));
  }

  std::string path_;
  const Scope* outer_;
  std::unordered_map<std::string, Value> values_;
  // The sequence ops' values (kernels/sequence.h), which only they read.
  std::unordered_map<std::string, Sequence> sequences_;
  std::unordered_set<std::string> released_;
};

// The names each node of `graph` reads last (a node's subgraphs read for it), leaving out the graph's outputs,
// which must stay.
std::vector<std::vector<std::string>> LastReads(const onnx::GraphProto& graph);
// The same among the nodes whose `runs` is true (by index): a node that does not run reads nothing.
std::vector<std::vector<std::string>> LastReads(const onnx::GraphProto& graph, const std::vector<bool>& runs);

class Runner {
 public:
  Runner(int64_t opset, const ExtraKernels* extra, RunMeter* meter) : opset_(opset), extra_(extra), meter_(meter) {}

  // Runs `graph`'s nodes in order, defining their outputs in `scope`.
  absl::Status RunNodes(const onnx::GraphProto& graph, Scope& scope) const;

  // Runs one node whose inputs `scope` holds, defining its outputs there. Errors name the node and its graph.
  absl::Status RunGraphNode(const onnx::NodeProto& node, Scope& scope) const;

  // The inputs of a node of tensors (not a sequence op) from `scope`, null where it leaves one empty.
  static absl::StatusOr<std::vector<Value>> InputsOf(const onnx::NodeProto& node, const Scope& scope);

  // What ComputeNode can say beside a node's outputs: whether its kernel, asked the same node and inputs at
  // another opset, computes the same (KernelContext::OpsetsAnsweredAlike).
  struct SameAtOpset {
    int64_t opset;
    bool same = false;
  };
  // The outputs of a node of tensors from its inputs in `scope`, charged to the meter; with `same_at`, whether its
  // kernel computes the same at `same_at->opset`.
  absl::StatusOr<Outputs> ComputeNode(const onnx::NodeProto& node, const Scope& scope,
                                      SameAtOpset* same_at = nullptr) const;

  // Defines the node's outputs (as many as it names) in `scope`.
  static absl::Status DefineOutputs(const onnx::NodeProto& node, Outputs outputs, Scope& scope);

  // "Conv 'conv1' (graph main)": built only for an error, as a model of many nodes runs them all.
  static std::string Label(const onnx::NodeProto& node, const Scope& scope);

  // The error for a name no value of `scope` has: a sequence read by an op of tensors, or a name not defined.
  static absl::Status Undefined(const Scope& scope, const std::string& label, const std::string& name);

  // A sequence op (kernels/sequence.h): its inputs are tensors or sequences, its one output either.
  absl::Status RunSequenceNode(const onnx::NodeProto& node, Scope& scope) const;

  // Runs a subgraph (an If branch, a Loop body) with `inputs` bound to its inputs in order, inside
  // `outer`, whose values it may read. Returns the subgraph's outputs in order.
  absl::StatusOr<Outputs> RunSubgraph(const onnx::GraphProto& graph, const std::string& path, const Scope& outer,
                                      Outputs inputs) const;

 private:
  // Counts one node run and its work on the meter, if any.
  void Charge(int64_t work) const;

  // ResourceExhausted once the meter's work passes its budget (checked after each node, If and Loop nodes
  // after their subgraphs' nodes, so the run stops within one node of the budget).
  absl::Status WithinBudget() const;

  absl::StatusOr<Outputs> RunNode(const KernelContext& ctx, const Scope& scope) const;

  absl::StatusOr<Outputs> RunExtra(const KernelContext& ctx) const;

  static absl::StatusOr<const onnx::GraphProto*> GraphAttribute(const KernelContext& ctx, absl::string_view name);

  static std::string SubgraphPath(const KernelContext& ctx, const Scope& scope, const std::string& attribute,
                                  const onnx::GraphProto& graph);

  // If: runs one branch, which sees the enclosing graphs' values and has no inputs of its own.
  absl::StatusOr<Outputs> RunIf(const KernelContext& ctx, const Scope& scope) const;

  // Loop: inputs (M, cond, v_initial...), body (iter_num, cond, v...) -> (cond, v..., scan...), outputs
  // (v_final..., scan outputs stacked along a new axis 0). An omitted cond input makes the body's cond
  // output ignored (Loop's "for loop" form).
  absl::StatusOr<Outputs> RunLoop(const KernelContext& ctx, const Scope& scope) const;

  // One Loop scan output: the per-iteration values stacked along a new axis 0. They must agree in type and
  // dims. With no iterations, the body output's declared type must be fully static to give the result.
  static absl::StatusOr<Tensor> StackScanOutput(const Outputs& values, const onnx::ValueInfoProto& declared);

  int64_t opset_;
  const ExtraKernels* extra_;
  // Not owned; null when the caller does not meter the run. The runner is const while it runs: the meter is
  // the one thing it writes besides the scopes.
  RunMeter* meter_;
};

// The value of a main-graph initializer: its bytes viewed where it holds them, or where `elsewhere` has them
// for one stored as external data.
absl::StatusOr<Tensor> InitializerValue(const onnx::TensorProto& initializer, const InitializersElsewhere& elsewhere);

// Defines the main graph's values before its first node in `scope`: `fed` by name (each must be a graph input,
// fed as its declaration allows), then every initializer not fed, valued by `initializer_value` (a fed name that
// is also an initializer overrides it: an IR 4 initializer listed as an input is a default, and in IR 3 every
// initializer is listed). Every graph input must then have a value.
absl::Status DefineMainGraphValues(
    const onnx::GraphProto& graph, const std::map<std::string, Value>& fed,
    const std::function<absl::StatusOr<Value>(const onnx::TensorProto&)>& initializer_value, Scope& scope);

// The value of the main graph's output `name` once its nodes have run.
absl::StatusOr<Value> MainGraphOutput(const std::string& name, const Scope& scope);

// The model's default-domain opset, when the runner implements it: the kernels apply the op version each opset
// of onnx 1.23 selects, up to kMaxRunnerOpset (model_runner.h).
absl::StatusOr<int64_t> RunnableOpset(const onnx::ModelProto& model);

}  // namespace onnx_legalize::graph_runner

#endif  // ONNX_LEGALIZE_SRC_EVAL_GRAPH_RUNNER_H_
