// The model runner's engine, shared by RunModel (model_runner.cc) and RunModelPair (paired_run.cc): the values one
// graph defines (Scope), the names each node reads last (LastReads, so that a value is freed after its last
// reader), and the Runner that runs a graph's nodes in order, If and Loop with their subgraphs, and charges the
// meter. Internal to src/eval/: callers use model_runner.h.
#ifndef ONNX_LEGALIZE_SRC_EVAL_GRAPH_RUNNER_H_
#define ONNX_LEGALIZE_SRC_EVAL_GRAPH_RUNNER_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/registry.h"
#include "eval/kernels/sequence.h"
#include "eval/model_runner.h"
#include "eval/node_work.h"
#include "eval/typed_elements.h"
#include "graph/graph_scope.h"
#include "graph/labels.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/target_opsets.h"

namespace onnx_legalize::graph_runner {

using ::absl::StrCat;
using ::onnx::TensorProto;

// A Loop with neither a trip count nor a condition that turns false would never end; stop it here.
inline constexpr int64_t kMaxLoopIterations = int64_t{1} << 16;

inline constexpr char kIfOp[] = "If";
inline constexpr char kLoopOp[] = "Loop";

inline Value Int64Scalar(int64_t value) { return Share(*TensorOf<int64_t>(TensorProto::INT64, {}, {value})); }

inline Value BoolScalar(bool value) {
  return Share(*TensorOf<uint8_t>(TensorProto::BOOL, {}, {static_cast<uint8_t>(value ? 1 : 0)}));
}

// The one element of a bool tensor (If's cond, Loop's cond); ONNX asks for a single element, of any rank.
inline absl::StatusOr<bool> SingleBool(const Tensor& tensor, absl::string_view what) {
  if (tensor.type() != TensorProto::BOOL || tensor.element_count() != 1) {
    return absl::InvalidArgumentError(StrCat(what, " must be a single-element bool tensor, got ", Describe(tensor)));
  }
  return tensor.bytes()[0] != 0;
}

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
    return absl::InvalidArgumentError(StrCat("value '", name, "' is defined twice in graph ", path_));
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
inline std::vector<std::vector<std::string>> LastReads(const onnx::GraphProto& graph) {
  std::unordered_map<std::string, int> last;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    for (const std::string& name : node.input()) {
      if (!name.empty()) last[name] = i;
    }
    ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      ForEachReadName(subgraph, [&](const std::string& name) { last[name] = i; });
    });
  }
  for (const onnx::ValueInfoProto& output : graph.output()) last.erase(output.name());
  std::vector<std::vector<std::string>> reads(static_cast<size_t>(graph.node_size()));
  for (auto& [name, index] : last) reads[static_cast<size_t>(index)].push_back(name);
  return reads;
}

class Runner {
 public:
  Runner(int64_t opset, const ExtraKernels* extra, RunMeter* meter) : opset_(opset), extra_(extra), meter_(meter) {}

  // Runs `graph`'s nodes in order, defining their outputs in `scope`.
  absl::Status RunNodes(const onnx::GraphProto& graph, Scope& scope) const {
    const std::vector<std::vector<std::string>> last_reads = LastReads(graph);
    for (int n = 0; n < graph.node_size(); ++n) {
      RETURN_IF_ERROR(RunGraphNode(graph.node(n), scope));
      for (const std::string& name : last_reads[static_cast<size_t>(n)]) scope.Release(name);
    }
    return absl::OkStatus();
  }

  // Runs one node whose inputs `scope` holds, defining its outputs there. Errors name the node and its graph.
  absl::Status RunGraphNode(const onnx::NodeProto& node, Scope& scope) const {
    if (IsSequenceOp(node)) {
      if (absl::Status ran = RunSequenceNode(node, scope); !ran.ok()) return Prefixed(ran, Label(node, scope));
      if (absl::Status within = WithinBudget(); !within.ok()) return Prefixed(within, Label(node, scope));
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Outputs outputs, ComputeNode(node, scope));
    return DefineOutputs(node, std::move(outputs), scope);
  }

  // The inputs of a node of tensors (not a sequence op) from `scope`, null where it leaves one empty.
  static absl::StatusOr<std::vector<Value>> InputsOf(const onnx::NodeProto& node, const Scope& scope) {
    std::vector<Value> inputs;
    inputs.reserve(static_cast<size_t>(node.input_size()));
    for (const std::string& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      const Value* value = scope.Find(name);
      if (value == nullptr) return Undefined(scope, Label(node, scope), name);
      inputs.push_back(*value);
    }
    return inputs;
  }

  // The outputs of a node of tensors from its inputs in `scope`, charged to the meter.
  absl::StatusOr<Outputs> ComputeNode(const onnx::NodeProto& node, const Scope& scope) const {
    if (!IsDefaultDomain(node.domain()) && FindKernel(node.domain(), node.op_type()) == nullptr &&
        (extra_ == nullptr || !extra_->Handles(node, opset_))) {
      return absl::UnimplementedError(StrCat(Label(node, scope), ": domain '", node.domain(), "' is not supported"));
    }
    KernelContext ctx{node, {}, opset_};
    ASSIGN_OR_RETURN(ctx.inputs, InputsOf(node, scope));
    if (meter_ != nullptr) ctx.work_allowed = std::max<int64_t>(meter_->budget - meter_->work, 0);
    absl::StatusOr<Outputs> outputs = RunNode(ctx, scope);
    // A kernel that would pass the budget stops before its work: the run is past its budget as it would have
    // been after the node.
    if (ctx.past_work_allowed) meter_->past_budget = true;
    if (!outputs.ok()) return Prefixed(outputs.status(), Label(node, scope));
    if (meter_ != nullptr) Charge(NodeWork(node, ctx.inputs, *outputs));
    if (absl::Status within = WithinBudget(); !within.ok()) return Prefixed(within, Label(node, scope));
    if (static_cast<int>(outputs->size()) < node.output_size()) {
      return absl::InvalidArgumentError(
          StrCat(Label(node, scope), ": has ", node.output_size(), " outputs, but the op produces ", outputs->size()));
    }
    return outputs;
  }

  // Defines the node's outputs (as many as it names) in `scope`.
  static absl::Status DefineOutputs(const onnx::NodeProto& node, Outputs outputs, Scope& scope) {
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty()) continue;
      absl::Status defined = scope.Define(node.output(i), std::move(outputs[static_cast<size_t>(i)]));
      if (!defined.ok()) return Prefixed(defined, Label(node, scope));
    }
    return absl::OkStatus();
  }

  // "Conv 'conv1' (graph main)": built only for an error, as a model of many nodes runs them all.
  static std::string Label(const onnx::NodeProto& node, const Scope& scope) {
    return InGraph(NodeLabel(node), scope.path());
  }

  // The error for a name no value of `scope` has: a sequence read by an op of tensors, or a name not defined.
  static absl::Status Undefined(const Scope& scope, const std::string& label, const std::string& name) {
    if (scope.FindSequence(name) != nullptr) {
      return absl::UnimplementedError(
          StrCat(label, ": input '", name, "' is a sequence, which only the sequence ops read in the model runner"));
    }
    return absl::InvalidArgumentError(
        StrCat(label, ": input '", name, "' is not defined by a graph input, an initializer or an earlier node"));
  }

  // A sequence op (kernels/sequence.h): its inputs are tensors or sequences, its one output either.
  absl::Status RunSequenceNode(const onnx::NodeProto& node, Scope& scope) const {
    std::vector<SequenceOpValue> inputs;
    for (const std::string& name : node.input()) {
      SequenceOpValue input;
      if (!name.empty()) {
        if (const Sequence* sequence = scope.FindSequence(name)) {
          input.sequence = *sequence;
        } else if (const Value* value = scope.Find(name)) {
          input.tensor = *value;
        } else {
          return absl::InvalidArgumentError(
              StrCat("input '", name, "' is not defined by a graph input, an initializer or an earlier node"));
        }
      }
      inputs.push_back(std::move(input));
    }
    ASSIGN_OR_RETURN(SequenceOpValue output, RunSequenceOp(node, opset_, inputs));
    if (meter_ != nullptr) Charge(SequenceNodeWork(inputs, output));
    if (node.output_size() != 1 || node.output(0).empty()) return absl::OkStatus();
    if (output.sequence != nullptr) return scope.DefineSequence(node.output(0), std::move(output.sequence));
    return scope.Define(node.output(0), std::move(output.tensor));
  }

  // Runs a subgraph (an If branch, a Loop body) with `inputs` bound to its inputs in order, inside
  // `outer`, whose values it may read. Returns the subgraph's outputs in order.
  absl::StatusOr<Outputs> RunSubgraph(const onnx::GraphProto& graph, const std::string& path, const Scope& outer,
                                      Outputs inputs) const {
    if (graph.input_size() != static_cast<int>(inputs.size())) {
      return absl::InvalidArgumentError(
          StrCat("graph ", path, " declares ", graph.input_size(), " inputs; the op binds ", inputs.size()));
    }
    Scope scope(path, &outer);
    for (int i = 0; i < graph.input_size(); ++i) {
      RETURN_IF_ERROR(scope.Define(graph.input(i).name(), std::move(inputs[i])));
    }
    for (const onnx::TensorProto& initializer : graph.initializer()) {
      ASSIGN_OR_RETURN(Tensor value, TensorFromProto(initializer, StrCat("initializer '", initializer.name(),
                                                                         "' (graph ", path, ")")));
      RETURN_IF_ERROR(scope.Define(initializer.name(), Share(std::move(value))));
    }
    RETURN_IF_ERROR(RunNodes(graph, scope));
    Outputs outputs;
    for (const onnx::ValueInfoProto& output : graph.output()) {
      const Value* value = scope.Find(output.name());
      if (value == nullptr) {
        return absl::InvalidArgumentError(StrCat("graph ", path, ": output '", output.name(), "' is never defined"));
      }
      outputs.push_back(*value);
    }
    return outputs;
  }

 private:
  // Counts one node run and its work on the meter, if any.
  void Charge(int64_t work) const {
    meter_->nodes_executed += 1;
    meter_->work = SaturatingAdd(meter_->work, work);
  }

  // ResourceExhausted once the meter's work passes its budget (checked after each node, If and Loop nodes
  // after their subgraphs' nodes, so the run stops within one node of the budget).
  absl::Status WithinBudget() const {
    if (meter_ == nullptr || meter_->work <= meter_->budget) return absl::OkStatus();
    meter_->past_budget = true;
    return absl::ResourceExhaustedError(
        StrCat("the run passed its budget of ", meter_->budget, " element operations (", meter_->work, " done)"));
  }

  absl::StatusOr<Outputs> RunNode(const KernelContext& ctx, const Scope& scope) const {
    const std::string& op = ctx.node.op_type();
    if (extra_ != nullptr && extra_->Handles(ctx.node, ctx.opset)) return RunExtra(ctx);
    if (IsDefaultDomain(ctx.node.domain()) && op == kIfOp) return RunIf(ctx, scope);
    if (IsDefaultDomain(ctx.node.domain()) && op == kLoopOp) return RunLoop(ctx, scope);
    // Another domain's node reaches here only when its kernel is in the registry (ai.onnx.ml's).
    const Kernel* kernel = FindKernel(ctx.node.domain(), op);
    if (kernel == nullptr) {
      return absl::UnimplementedError(StrCat("op ", op, " is not supported by the model runner"));
    }
    return (*kernel)(ctx);
  }

  absl::StatusOr<Outputs> RunExtra(const KernelContext& ctx) const {
    std::vector<const Tensor*> inputs;
    for (const Value& value : ctx.inputs) inputs.push_back(value.get());
    ASSIGN_OR_RETURN(std::vector<Tensor> results, extra_->Run(ctx.node, ctx.opset, inputs));
    Outputs outputs;
    for (Tensor& result : results) outputs.push_back(Share(std::move(result)));
    return outputs;
  }

  static absl::StatusOr<const onnx::GraphProto*> GraphAttribute(const KernelContext& ctx, absl::string_view name) {
    const onnx::AttributeProto* attribute = FindAttribute(ctx.node, name);
    if (attribute == nullptr || !attribute->has_g()) {
      return absl::InvalidArgumentError(StrCat("graph attribute '", name, "' is missing"));
    }
    return &attribute->g();
  }

  static std::string SubgraphPath(const KernelContext& ctx, const Scope& scope, const std::string& attribute,
                                  const onnx::GraphProto& graph) {
    return onnx_legalize::SubgraphPath(scope.path(), ctx.node, attribute, graph);
  }

  // If: runs one branch, which sees the enclosing graphs' values and has no inputs of its own.
  absl::StatusOr<Outputs> RunIf(const KernelContext& ctx, const Scope& scope) const {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const Tensor* cond_tensor, RequiredInput(ctx, 0, "cond"));
    ASSIGN_OR_RETURN(const bool cond, SingleBool(*cond_tensor, "cond"));
    const std::string attribute = cond ? "then_branch" : "else_branch";
    ASSIGN_OR_RETURN(const onnx::GraphProto* branch, GraphAttribute(ctx, attribute));
    ASSIGN_OR_RETURN(Outputs outputs, RunSubgraph(*branch, SubgraphPath(ctx, scope, attribute, *branch), scope, {}));
    if (static_cast<int>(outputs.size()) != ctx.node.output_size()) {
      return absl::InvalidArgumentError(
          StrCat(attribute, " has ", outputs.size(), " outputs; the node has ", ctx.node.output_size()));
    }
    return outputs;
  }

  // Loop: inputs (M, cond, v_initial...), body (iter_num, cond, v...) -> (cond, v..., scan...), outputs
  // (v_final..., scan outputs stacked along a new axis 0). An omitted cond input makes the body's cond
  // output ignored (Loop's "for loop" form).
  absl::StatusOr<Outputs> RunLoop(const KernelContext& ctx, const Scope& scope) const {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, std::numeric_limits<int>::max()));
    ASSIGN_OR_RETURN(const onnx::GraphProto* body, GraphAttribute(ctx, "body"));
    const std::string path = SubgraphPath(ctx, scope, "body", *body);
    std::optional<int64_t> trip_count;
    if (const Tensor* m = ctx.Input(0)) {
      if (m->type() != TensorProto::INT64 || m->element_count() != 1) {
        return absl::InvalidArgumentError(StrCat("M must be a single-element int64 tensor, got ", Describe(*m)));
      }
      trip_count = ElementsOf<int64_t>(*m)[0];
    }
    const bool has_cond = ctx.Input(1) != nullptr;
    bool cond = true;
    if (has_cond) {
      ASSIGN_OR_RETURN(cond, SingleBool(*ctx.Input(1), "cond"));
    }
    const int carried_count = ctx.node.input_size() - 2;
    Outputs carried;
    for (int i = 0; i < carried_count; ++i) {
      RETURN_IF_ERROR(RequiredInput(ctx, 2 + i, "v_initial").status());
      carried.push_back(ctx.inputs[2 + i]);
    }
    const int scan_count = body->output_size() - 1 - carried_count;
    if (body->input_size() != 2 + carried_count || scan_count < 0) {
      return absl::InvalidArgumentError(StrCat(
          "body has ", body->input_size(), " inputs and ", body->output_size(), " outputs; with ", carried_count,
          " loop-carried values it needs ", 2 + carried_count, " inputs and at least ", 1 + carried_count, " outputs"));
    }
    if (ctx.node.output_size() > carried_count + scan_count) {
      return absl::InvalidArgumentError(StrCat("has ", ctx.node.output_size(), " outputs; the body yields ",
                                               carried_count, " loop-carried values and ", scan_count,
                                               " scan outputs"));
    }
    std::vector<Outputs> scans(scan_count);
    int64_t scan_elements = 0;
    int64_t iteration = 0;
    for (; (!trip_count || iteration < *trip_count) && cond; ++iteration) {
      if (iteration >= kMaxLoopIterations) {
        return absl::ResourceExhaustedError(StrCat("stopped after ", kMaxLoopIterations, " iterations"));
      }
      Outputs body_inputs = {Int64Scalar(iteration), BoolScalar(cond)};
      body_inputs.insert(body_inputs.end(), carried.begin(), carried.end());
      absl::StatusOr<Outputs> body_outputs = RunSubgraph(*body, path, scope, std::move(body_inputs));
      if (!body_outputs.ok()) return Prefixed(body_outputs.status(), StrCat("iteration ", iteration));
      if (has_cond) {
        ASSIGN_OR_RETURN(cond, SingleBool(*(*body_outputs)[0], "the body's cond output"));
      }
      for (int i = 0; i < carried_count; ++i) carried[i] = (*body_outputs)[1 + i];
      for (int j = 0; j < scan_count; ++j) {
        scan_elements += (*body_outputs)[1 + carried_count + j]->element_count();
        scans[j].push_back((*body_outputs)[1 + carried_count + j]);
      }
      RETURN_IF_ERROR(CheckValueSize(scan_elements, "the scan outputs"));
    }
    Outputs outputs = std::move(carried);
    for (int j = 0; j < scan_count; ++j) {
      ASSIGN_OR_RETURN(Tensor stacked, StackScanOutput(scans[j], body->output(1 + carried_count + j)));
      outputs.push_back(Share(std::move(stacked)));
    }
    return outputs;
  }

  // One Loop scan output: the per-iteration values stacked along a new axis 0. They must agree in type and
  // dims. With no iterations, the body output's declared type must be fully static to give the result.
  static absl::StatusOr<Tensor> StackScanOutput(const Outputs& values, const onnx::ValueInfoProto& declared) {
    if (values.empty()) {
      const auto& type = declared.type().tensor_type();
      std::vector<int64_t> dims = {0};
      bool known = type.elem_type() != 0 && type.has_shape();
      for (const auto& dim : type.shape().dim()) {
        known = known && dim.has_dim_value();
        dims.push_back(dim.dim_value());
      }
      if (!known) {
        return absl::UnimplementedError(
            StrCat("scan output '", declared.name(), "' after zero iterations: its declared type is not fully static"));
      }
      return Tensor::Zeros(type.elem_type(), std::move(dims));
    }
    const Tensor& first = *values.front();
    std::vector<const Tensor*> parts;
    for (const Value& value : values) {
      if (value->type() != first.type() || value->dims() != first.dims()) {
        return absl::InvalidArgumentError(StrCat("scan output '", declared.name(), "' is ", Describe(*value),
                                                 " in iteration ", parts.size(), " but ", Describe(first),
                                                 " in iteration 0"));
      }
      parts.push_back(value.get());
    }
    std::vector<int64_t> out_dims = {static_cast<int64_t>(values.size())};
    out_dims.insert(out_dims.end(), first.dims().begin(), first.dims().end());
    // Stacking is concatenation along axis 0 of the values seen as [1, dims...].
    return ConcatenateAlong(parts, 0, std::move(out_dims));
  }

  int64_t opset_;
  const ExtraKernels* extra_;
  // Not owned; null when the caller does not meter the run. The runner is const while it runs: the meter is
  // the one thing it writes besides the scopes.
  RunMeter* meter_;
};

// The value of a main-graph initializer: its bytes viewed where it holds them, or where `elsewhere` has them
// for one stored as external data.
inline absl::StatusOr<Tensor> InitializerValue(const onnx::TensorProto& initializer,
                                               const InitializersElsewhere& elsewhere) {
  const std::string what = StrCat("initializer '", initializer.name(), "' (graph ", kMainGraphPath, ")");
  if (initializer.data_location() != TensorProto::EXTERNAL) return TensorViewFromProto(initializer, what);
  if (elsewhere) {
    ASSIGN_OR_RETURN(std::optional<Tensor> value, elsewhere(initializer));
    if (value.has_value()) return *std::move(value);
  }
  return absl::UnimplementedError(StrCat(what, " is external data, which the model runner is not given"));
}

// A fed tensor must match the graph input's declared element type and static dims (a negative dim_value, which
// ML.NET's exporter writes for an open one, is open: ONNX Runtime reads it so).
inline absl::Status CheckFeed(const onnx::ValueInfoProto& input, const Tensor& fed) {
  if (!input.type().has_tensor_type()) return absl::OkStatus();
  const auto& type = input.type().tensor_type();
  bool matches = type.elem_type() == 0 || type.elem_type() == fed.type();
  if (type.has_shape()) {
    matches = matches && type.shape().dim_size() == fed.rank();
    for (int d = 0; matches && d < type.shape().dim_size(); ++d) {
      const auto& dim = type.shape().dim(d);
      matches = !dim.has_dim_value() || dim.dim_value() < 0 || dim.dim_value() == fed.dims()[d];
    }
  }
  if (!matches) {
    return absl::InvalidArgumentError(
        StrCat("input '", input.name(), "' is fed ", Describe(fed), ", which its declaration does not allow"));
  }
  return absl::OkStatus();
}

// Defines the main graph's values before its first node in `scope`: `fed` by name (each must be a graph input,
// fed as its declaration allows), then every initializer not fed, valued by `initializer_value` (a fed name that
// is also an initializer overrides it: an IR 4 initializer listed as an input is a default, and in IR 3 every
// initializer is listed). Every graph input must then have a value.
inline absl::Status DefineMainGraphValues(
    const onnx::GraphProto& graph, const std::map<std::string, Value>& fed,
    const std::function<absl::StatusOr<Value>(const onnx::TensorProto&)>& initializer_value, Scope& scope) {
  std::unordered_map<std::string, const onnx::ValueInfoProto*> graph_inputs;
  for (const auto& input : graph.input()) graph_inputs.emplace(input.name(), &input);
  for (const auto& [name, value] : fed) {
    auto input = graph_inputs.find(name);
    if (input == graph_inputs.end()) {
      return absl::InvalidArgumentError(StrCat("'", name, "' is fed but is not an input of graph ", kMainGraphPath));
    }
    RETURN_IF_ERROR(CheckFeed(*input->second, *value));
    RETURN_IF_ERROR(scope.Define(name, value));
  }
  for (const auto& initializer : graph.initializer()) {
    if (fed.count(initializer.name()) > 0) continue;
    ASSIGN_OR_RETURN(Value value, initializer_value(initializer));
    RETURN_IF_ERROR(scope.Define(initializer.name(), std::move(value)));
  }
  for (const auto& input : graph.input()) {
    if (scope.Find(input.name()) == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("graph input '", input.name(), "' is neither fed nor given by an initializer"));
    }
  }
  return absl::OkStatus();
}

// The value of the main graph's output `name` once its nodes have run.
inline absl::StatusOr<Value> MainGraphOutput(const std::string& name, const Scope& scope) {
  const Value* value = scope.Find(name);
  if (value == nullptr && scope.FindSequence(name) != nullptr) {
    return absl::UnimplementedError(
        StrCat("graph ", kMainGraphPath, ": output '", name, "' is a sequence; the model runner returns tensors only"));
  }
  if (value == nullptr) {
    return absl::InvalidArgumentError(StrCat("graph ", kMainGraphPath, ": output '", name, "' is never defined"));
  }
  return *value;
}

// The model's default-domain opset, when the runner implements it: the kernels apply the op version each opset
// of onnx 1.23 selects, up to kMaxRunnerOpset (model_runner.h).
inline absl::StatusOr<int64_t> RunnableOpset(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(const int64_t opset, DefaultOpset(model));
  if (opset < kMinTargetOpset || opset > kMaxRunnerOpset) {
    return absl::UnimplementedError(StrCat("opset ", opset, " (the model runner implements opsets ", kMinTargetOpset,
                                           " to ", kMaxRunnerOpset, ")"));
  }
  return opset;
}

}  // namespace onnx_legalize::graph_runner

#endif  // ONNX_LEGALIZE_SRC_EVAL_GRAPH_RUNNER_H_
