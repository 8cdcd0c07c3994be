#include "eval/graph_runner.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/registry.h"
#include "eval/node_work.h"
#include "eval/typed_elements.h"
#include "graph/graph_scope.h"
#include "graph/labels.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx_legalize/target_opsets.h"

namespace onnx_legalize::graph_runner {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

// A Loop with neither a trip count nor a condition that turns false would never end; stop it here.
constexpr int64_t kMaxLoopIterations = int64_t{1} << 16;

Value Int64Scalar(int64_t value) { return Share(*TensorOf<int64_t>(TensorProto::INT64, {}, {value})); }

Value BoolScalar(bool value) {
  return Share(*TensorOf<uint8_t>(TensorProto::BOOL, {}, {static_cast<uint8_t>(value ? 1 : 0)}));
}

// The one element of a bool tensor (If's cond, Loop's cond); ONNX asks for a single element, of any rank.
absl::StatusOr<bool> SingleBool(const Tensor& tensor, absl::string_view what) {
  if (tensor.type() != TensorProto::BOOL || tensor.element_count() != 1) {
    return absl::InvalidArgumentError(StrCat(what, " must be a single-element bool tensor, got ", Describe(tensor)));
  }
  return tensor.bytes()[0] != 0;
}

// A fed tensor must match the graph input's declared element type and static dims (a negative dim_value, which
// ML.NET's exporter writes for an open one, is open: ONNX Runtime reads it so).
absl::Status CheckFeed(const onnx::ValueInfoProto& input, const Tensor& fed) {
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

}  // namespace

std::vector<std::vector<std::string>> LastReads(const onnx::GraphProto& graph) {
  return LastReads(graph, std::vector<bool>(static_cast<size_t>(graph.node_size()), true));
}

std::vector<std::vector<std::string>> LastReads(const onnx::GraphProto& graph, const std::vector<bool>& runs) {
  std::unordered_map<std::string, int> last;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (!runs[static_cast<size_t>(i)]) continue;
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

absl::Status Runner::RunNodes(const onnx::GraphProto& graph, Scope& scope) const {
  const std::vector<std::vector<std::string>> last_reads = LastReads(graph);
  for (int n = 0; n < graph.node_size(); ++n) {
    RETURN_IF_ERROR(RunGraphNode(graph.node(n), scope));
    for (const std::string& name : last_reads[static_cast<size_t>(n)]) scope.Release(name);
  }
  return absl::OkStatus();
}

absl::Status Runner::RunGraphNode(const onnx::NodeProto& node, Scope& scope) const {
  if (IsSequenceOp(node)) {
    if (absl::Status ran = RunSequenceNode(node, scope); !ran.ok()) return Prefixed(ran, Label(node, scope));
    if (absl::Status within = WithinBudget(); !within.ok()) return Prefixed(within, Label(node, scope));
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Outputs outputs, ComputeNode(node, scope));
  return DefineOutputs(node, std::move(outputs), scope);
}

absl::StatusOr<std::vector<Value>> Runner::InputsOf(const onnx::NodeProto& node, const Scope& scope) {
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

absl::StatusOr<Outputs> Runner::ComputeNode(const onnx::NodeProto& node, const Scope& scope,
                                            SameAtOpset* same_at) const {
  if (!IsDefaultDomain(node.domain()) && FindKernel(node.domain(), node.op_type()) == nullptr &&
      (extra_ == nullptr || !extra_->Handles(node, opset_))) {
    return absl::UnimplementedError(StrCat(Label(node, scope), ": domain '", node.domain(), "' is not supported"));
  }
  KernelContext ctx{node, {}, opset_};
  ASSIGN_OR_RETURN(ctx.inputs, InputsOf(node, scope));
  if (meter_ != nullptr) ctx.work_allowed = std::max<int64_t>(meter_->budget - meter_->work, 0);
  absl::StatusOr<Outputs> outputs = RunNode(ctx, scope);
  if (same_at != nullptr) same_at->same = ctx.OpsetsAnsweredAlike(same_at->opset);
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

absl::Status Runner::DefineOutputs(const onnx::NodeProto& node, Outputs outputs, Scope& scope) {
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    absl::Status defined = scope.Define(node.output(i), std::move(outputs[static_cast<size_t>(i)]));
    if (!defined.ok()) return Prefixed(defined, Label(node, scope));
  }
  return absl::OkStatus();
}

std::string Runner::Label(const onnx::NodeProto& node, const Scope& scope) {
  return InGraph(NodeLabel(node), scope.path());
}

absl::Status Runner::Undefined(const Scope& scope, const std::string& label, const std::string& name) {
  if (scope.FindSequence(name) != nullptr) {
    return absl::UnimplementedError(
        StrCat(label, ": input '", name, "' is a sequence, which only the sequence ops read in the model runner"));
  }
  return absl::InvalidArgumentError(
      StrCat(label, ": input '", name, "' is not defined by a graph input, an initializer or an earlier node"));
}

absl::Status Runner::RunSequenceNode(const onnx::NodeProto& node, Scope& scope) const {
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

absl::StatusOr<Outputs> Runner::RunSubgraph(const onnx::GraphProto& graph, const std::string& path, const Scope& outer,
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
    ASSIGN_OR_RETURN(Tensor value,
                     TensorFromProto(initializer, StrCat("initializer '", initializer.name(), "' (graph ", path, ")")));
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

void Runner::Charge(int64_t work) const {
  meter_->nodes_executed += 1;
  meter_->work = SaturatingAdd(meter_->work, work);
}

absl::Status Runner::WithinBudget() const {
  if (meter_ == nullptr || meter_->work <= meter_->budget) return absl::OkStatus();
  meter_->past_budget = true;
  return absl::ResourceExhaustedError(
      StrCat("the run passed its budget of ", meter_->budget, " element operations (", meter_->work, " done)"));
}

absl::StatusOr<Outputs> Runner::RunNode(const KernelContext& ctx, const Scope& scope) const {
  const std::string& op = ctx.node.op_type();
  // Which kernel runs is the runner's choice, not a read of the opset by the kernel: opset_, not ctx.opset().
  if (extra_ != nullptr && extra_->Handles(ctx.node, opset_)) return RunExtra(ctx);
  if (IsDefaultDomain(ctx.node.domain()) && op == kIfOp) return RunIf(ctx, scope);
  if (IsDefaultDomain(ctx.node.domain()) && op == kLoopOp) return RunLoop(ctx, scope);
  // Another domain's node reaches here only when its kernel is in the registry (ai.onnx.ml's).
  const Kernel* kernel = FindKernel(ctx.node.domain(), op);
  if (kernel == nullptr) {
    return absl::UnimplementedError(StrCat("op ", op, " is not supported by the model runner"));
  }
  return (*kernel)(ctx);
}

absl::StatusOr<Outputs> Runner::RunExtra(const KernelContext& ctx) const {
  std::vector<const Tensor*> inputs;
  for (const Value& value : ctx.inputs) inputs.push_back(value.get());
  ASSIGN_OR_RETURN(std::vector<Tensor> results, extra_->Run(ctx.node, ctx.opset(), inputs));
  Outputs outputs;
  for (Tensor& result : results) outputs.push_back(Share(std::move(result)));
  return outputs;
}

absl::StatusOr<const onnx::GraphProto*> Runner::GraphAttribute(const KernelContext& ctx, absl::string_view name) {
  const onnx::AttributeProto* attribute = FindAttribute(ctx.node, name);
  if (attribute == nullptr || !attribute->has_g()) {
    return absl::InvalidArgumentError(StrCat("graph attribute '", name, "' is missing"));
  }
  return &attribute->g();
}

std::string Runner::SubgraphPath(const KernelContext& ctx, const Scope& scope, const std::string& attribute,
                                 const onnx::GraphProto& graph) {
  return onnx_legalize::SubgraphPath(scope.path(), ctx.node, attribute, graph);
}

absl::StatusOr<Outputs> Runner::RunIf(const KernelContext& ctx, const Scope& scope) const {
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

absl::StatusOr<Outputs> Runner::RunLoop(const KernelContext& ctx, const Scope& scope) const {
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
                                             carried_count, " loop-carried values and ", scan_count, " scan outputs"));
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

absl::StatusOr<Tensor> Runner::StackScanOutput(const Outputs& values, const onnx::ValueInfoProto& declared) {
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

absl::StatusOr<Tensor> InitializerValue(const onnx::TensorProto& initializer, const InitializersElsewhere& elsewhere) {
  const std::string what = StrCat("initializer '", initializer.name(), "' (graph ", kMainGraphPath, ")");
  if (initializer.data_location() != TensorProto::EXTERNAL) return TensorViewFromProto(initializer, what);
  if (elsewhere) {
    ASSIGN_OR_RETURN(std::optional<Tensor> value, elsewhere(initializer));
    if (value.has_value()) return *std::move(value);
  }
  return absl::UnimplementedError(StrCat(what, " is external data, which the model runner is not given"));
}

absl::Status DefineMainGraphValues(
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

absl::StatusOr<Value> MainGraphOutput(const std::string& name, const Scope& scope) {
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

absl::StatusOr<int64_t> RunnableOpset(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(const int64_t opset, DefaultOpset(model));
  if (opset < kMinTargetOpset || opset > kMaxRunnerOpset) {
    return absl::UnimplementedError(StrCat("opset ", opset, " (the model runner implements opsets ", kMinTargetOpset,
                                           " to ", kMaxRunnerOpset, ")"));
  }
  return opset;
}

}  // namespace onnx_legalize::graph_runner
