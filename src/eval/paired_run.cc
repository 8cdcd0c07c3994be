// RunModelPair (model_runner.h): two forms of one model run node beside node, each node the transformation left
// as it was computed once (also where its op has another version in the other form, when the runner's kernel
// computes both versions alike for it: KernelContext::OpsetAtLeast). The schedule walks after's nodes in their order;
// each one whose outputs a node of before writes is paired with it, the before nodes up to it run first (on their own),
// then the pair. A pair whose computations are the same (SameComputation) and whose inputs are the same tensors runs
// once; any other runs in each form. Each form keeps its own scope, releasing a value after its own last reader, so a
// tensor both forms share is freed when neither reads it any more.
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/graph_runner.h"
#include "eval/kernels/kernel_support.h"
#include "eval/model_runner.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/attributes.h"
#include "graph/graph_scope.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/subgraphs.h"
#include "onnx/defs/schema.h"

namespace onnx_legalize {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using graph_runner::DefineMainGraphValues;
using graph_runner::InitializerValue;
using graph_runner::LastReads;
using graph_runner::MainGraphOutput;
using graph_runner::Runner;
using graph_runner::Scope;

// One form as the pair runs it: its model, opset, kernels and scope.
struct Form {
  Form(const RunForm& form, int64_t opset, RunMeter* meter)
      : model(form.model),
        extra(form.extra),
        opset(opset),
        imports(ModelOpsetImports(form.model).value_or(OpsetImports())),
        runner(opset, form.extra, meter),
        scope(kMainGraphPath, nullptr),
        last_reads(LastReads(form.model.graph())) {}

  const onnx::GraphProto& graph() const { return model.graph(); }
  // The version of `domain` the model imports (0 when none).
  int64_t DomainVersion(const std::string& domain) const {
    auto import = imports.find(NormalizedDomain(domain));
    return import == imports.end() ? 0 : import->second;
  }
  void ReleaseAfter(int index) {
    for (const std::string& name : last_reads[static_cast<size_t>(index)]) scope.Release(name);
  }

  const onnx::ModelProto& model;
  const ExtraKernels* extra;
  int64_t opset;
  OpsetImports imports;  // read once: SameVersion asks for each node of another domain
  Runner runner;
  Scope scope;
  std::vector<std::vector<std::string>> last_reads;
};

// The same attributes, whatever their order (onnx's IR writes a converted node's attributes anew).
bool SameAttributes(const onnx::NodeProto& a, const onnx::NodeProto& b) {
  if (a.attribute_size() != b.attribute_size()) return false;
  for (const onnx::AttributeProto& attribute : a.attribute()) {
    const onnx::AttributeProto* other = FindAttribute(b, attribute.name());
    if (other == nullptr || !MessageDifferencer::Equals(attribute, *other)) return false;
  }
  return true;
}

// Whether the node means the same in both forms: the same op version at each form's opset (by onnx's schemas for
// the default domain, by the imported version for another), or the same opset-blind kernel in both.
bool SameVersion(const onnx::NodeProto& node, const Form& before, const Form& after) {
  const bool before_extra = before.extra != nullptr && before.extra->Handles(node, before.opset);
  const bool after_extra = after.extra != nullptr && after.extra->Handles(node, after.opset);
  if (before_extra || after_extra) {
    return before_extra && after_extra && before.extra->IgnoresOpset(node) && after.extra->IgnoresOpset(node);
  }
  if (!IsDefaultDomain(node.domain())) {
    return before.DomainVersion(node.domain()) == after.DomainVersion(node.domain());
  }
  const onnx::OpSchema* at_before =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(before.opset), kDefaultDomain);
  const onnx::OpSchema* at_after =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(after.opset), kDefaultDomain);
  // DynamicSlice, removed from onnx, had one version; the runner's kernel for it reads no opset.
  if (at_before == nullptr && at_after == nullptr) return node.op_type() == kDynamicSliceOp;
  return at_before != nullptr && at_before == at_after;
}

// Whether a node of the default domain runs the registry's kernel in both forms (not a removed op's kernel of
// either form's extra ones): the one kernel, told each form's opset.
bool SameKernel(const onnx::NodeProto& node, const Form& before, const Form& after) {
  return IsDefaultDomain(node.domain()) && !(before.extra != nullptr && before.extra->Handles(node, before.opset)) &&
         !(after.extra != nullptr && after.extra->Handles(node, after.opset));
}

// How far `a` (of after) is known to compute what `b` (of before) does from the same inputs.
enum class Sameness {
  kDiffers,      // run in each form
  kSame,         // computed once for both
  kUnlessOpset,  // the same node, whose op has another version at after's opset: computed once for both when its
                 // kernel's questions about the opset get the same answers at after's (it then computes the same)
};

Sameness SameComputation(const onnx::NodeProto& b, const onnx::NodeProto& a, const Form& before, const Form& after) {
  if (b.op_type() != a.op_type() || NormalizedDomain(b.domain()) != NormalizedDomain(a.domain())) {
    return Sameness::kDiffers;
  }
  if (b.input_size() != a.input_size() || b.output_size() != a.output_size()) return Sameness::kDiffers;
  for (int i = 0; i < b.input_size(); ++i) {
    if (b.input(i) != a.input(i)) return Sameness::kDiffers;
  }
  for (int i = 0; i < b.output_size(); ++i) {
    if (b.output(i) != a.output(i)) return Sameness::kDiffers;
  }
  if (IsSequenceOp(b) || HoldsSubgraph(b) || HoldsSubgraph(a) || !SameAttributes(b, a)) return Sameness::kDiffers;
  if (SameVersion(b, before, after)) return Sameness::kSame;
  return SameKernel(b, before, after) ? Sameness::kUnlessOpset : Sameness::kDiffers;
}

// The runs of both forms, node by node.
class PairRunner {
 public:
  PairRunner(const RunForm& before, int64_t before_opset, const RunForm& after, int64_t after_opset, RunMeter* meter,
             PairedRun& result)
      : before_(before, before_opset, meter), after_(after, after_opset, meter), meter_(meter), result_(result) {}

  // Both forms' main-graph values before their first node: the fed tensors, one for both forms, and the
  // initializers, one view for both where the two forms hold the same initializer.
  void DefineInputs(const std::map<std::string, Tensor>& inputs, const InitializersElsewhere& elsewhere) {
    std::map<std::string, Value> fed;
    for (const auto& [name, tensor] : inputs) fed.emplace(name, Share(tensor.Clone()));
    std::unordered_map<std::string, std::pair<const onnx::TensorProto*, Value>> before_initializers;
    result_.before_status = DefineMainGraphValues(
        before_.graph(), fed,
        [&](const onnx::TensorProto& initializer) -> absl::StatusOr<Value> {
          ASSIGN_OR_RETURN(Tensor tensor, InitializerValue(initializer, elsewhere));
          Value value = Share(std::move(tensor));
          before_initializers.emplace(initializer.name(), std::make_pair(&initializer, value));
          return value;
        },
        before_.scope);
    if (!result_.before_status.ok()) return;
    result_.after_status = DefineMainGraphValues(
        after_.graph(), fed,
        [&](const onnx::TensorProto& initializer) -> absl::StatusOr<Value> {
          // An external initializer's proto is its reference: equal references name the same set-aside data.
          auto same = before_initializers.find(initializer.name());
          if (same != before_initializers.end() && MessageDifferencer::Equals(*same->second.first, initializer)) {
            return same->second.second;
          }
          ASSIGN_OR_RETURN(Tensor tensor, InitializerValue(initializer, elsewhere));
          return Share(std::move(tensor));
        },
        after_.scope);
    after_running_ = result_.after_status.ok();
  }

  void Run() {
    if (!result_.before_status.ok()) return;
    std::unordered_map<std::string, int> before_writer;
    const onnx::GraphProto& before_graph = before_.graph();
    for (int m = 0; m < before_graph.node_size(); ++m) {
      for (const std::string& name : before_graph.node(m).output()) {
        if (!name.empty()) before_writer.emplace(name, m);
      }
    }
    int next_before = 0;
    const onnx::GraphProto& after_graph = after_.graph();
    for (int n = 0; n < after_graph.node_size() && !Stopped(); ++n) {
      const onnx::NodeProto& node = after_graph.node(n);
      const int m = WriterOf(node, before_writer);
      if (m < next_before) {
        RunAfter(n);
        continue;
      }
      while (next_before < m && !Stopped()) RunBefore(next_before++);
      if (Stopped()) break;
      RunPair(next_before++, n);
    }
    while (next_before < before_graph.node_size() && !Stopped()) RunBefore(next_before++);
    if (Stopped()) return;
    result_.before_status = CollectOutputs(before_, result_.before_outputs);
    if (after_running_) result_.after_status = CollectOutputs(after_, result_.after_outputs);
  }

 private:
  // The index of the before node writing `node`'s first output, or -1.
  static int WriterOf(const onnx::NodeProto& node, const std::unordered_map<std::string, int>& before_writer) {
    for (const std::string& name : node.output()) {
      if (name.empty()) continue;
      auto writer = before_writer.find(name);
      return writer == before_writer.end() ? -1 : writer->second;
    }
    return -1;
  }

  // Before failing, or the meter past its budget, ends both runs.
  bool Stopped() const { return !result_.before_status.ok() || (meter_ != nullptr && meter_->past_budget); }

  void RunBefore(int m) {
    result_.before_status = before_.runner.RunGraphNode(before_.graph().node(m), before_.scope);
    before_.ReleaseAfter(m);
  }

  void RunAfter(int n) {
    if (!after_running_) return;
    result_.after_status = after_.runner.RunGraphNode(after_.graph().node(n), after_.scope);
    after_running_ = result_.after_status.ok();
    after_.ReleaseAfter(n);
  }

  void RunPair(int m, int n) {
    const onnx::NodeProto& before_node = before_.graph().node(m);
    const onnx::NodeProto& after_node = after_.graph().node(n);
    const Sameness sameness =
        after_running_ ? SameComputation(before_node, after_node, before_, after_) : Sameness::kDiffers;
    if (sameness == Sameness::kDiffers || !SameInputs(before_node, after_node)) {
      RunBefore(m);
      if (Stopped()) return;
      RunAfter(n);
      if (after_running_) Reconverge(before_node, after_node);
      return;
    }
    Runner::SameAtOpset same_at_after{after_.opset};
    absl::StatusOr<Outputs> outputs = before_.runner.ComputeNode(before_node, before_.scope, &same_at_after);
    if (!outputs.ok()) {
      result_.before_status = outputs.status();
      return;
    }
    result_.before_status = Runner::DefineOutputs(before_node, *outputs, before_.scope);
    if (!result_.before_status.ok()) return;
    if (sameness == Sameness::kUnlessOpset && !same_at_after.same) {
      before_.ReleaseAfter(m);
      RunAfter(n);
      if (after_running_) Reconverge(before_node, after_node);
      return;
    }
    result_.after_status = Runner::DefineOutputs(after_node, *std::move(outputs), after_.scope);
    after_running_ = result_.after_status.ok();
    result_.nodes_shared += 1;
    if (meter_ != nullptr) meter_->nodes_shared += 1;
    before_.ReleaseAfter(m);
    after_.ReleaseAfter(n);
  }

  // After a pair that ran in each form: an output equal bit for bit in both becomes one tensor, so that the nodes
  // reading it are shared again (a Conv-1 moved to Conv-11 computes the same tensor; what follows it need not
  // run twice).
  void Reconverge(const onnx::NodeProto& before_node, const onnx::NodeProto& after_node) {
    for (int i = 0; i < after_node.output_size() && i < before_node.output_size(); ++i) {
      const std::string& name = after_node.output(i);
      if (name.empty() || name != before_node.output(i)) continue;
      const Value* before_value = before_.scope.Find(name);
      const Value* after_value = after_.scope.Find(name);
      if (before_value != nullptr && after_value != nullptr && (*before_value)->BitwiseEquals(**after_value)) {
        after_.scope.Replace(name, *before_value);
      }
    }
  }

  // Whether each input of the two nodes is the same tensor in both forms (a value neither form defines is left
  // for the run to report).
  bool SameInputs(const onnx::NodeProto& before_node, const onnx::NodeProto& after_node) const {
    absl::StatusOr<std::vector<Value>> before_inputs = Runner::InputsOf(before_node, before_.scope);
    absl::StatusOr<std::vector<Value>> after_inputs = Runner::InputsOf(after_node, after_.scope);
    return before_inputs.ok() && after_inputs.ok() && *before_inputs == *after_inputs;
  }

  static absl::Status CollectOutputs(const Form& form, std::map<std::string, std::shared_ptr<const Tensor>>& outputs) {
    for (const onnx::ValueInfoProto& output : form.graph().output()) {
      ASSIGN_OR_RETURN(Value value, MainGraphOutput(output.name(), form.scope));
      outputs.emplace(output.name(), std::move(value));
    }
    return absl::OkStatus();
  }

  Form before_;
  Form after_;
  RunMeter* meter_;
  PairedRun& result_;
  bool after_running_ = false;
};

}  // namespace

PairedRun RunModelPair(const RunForm& before, const RunForm& after, const std::map<std::string, Tensor>& inputs,
                       const InitializersElsewhere& elsewhere, RunMeter* meter) {
  PairedRun result;
  absl::StatusOr<int64_t> before_opset = graph_runner::RunnableOpset(before.model);
  if (!before_opset.ok()) {
    result.before_status = before_opset.status();
    return result;
  }
  absl::StatusOr<int64_t> after_opset = graph_runner::RunnableOpset(after.model);
  if (!after_opset.ok()) {
    result.after_status = after_opset.status();
    // Before runs alone, so that the caller learns whether it runs on these inputs.
    absl::StatusOr<std::map<std::string, Tensor>> alone =
        RunModel(before.model, inputs, before.extra, elsewhere, meter);
    if (!alone.ok()) result.before_status = alone.status();
    return result;
  }
  PairRunner runner(before, *before_opset, after, *after_opset, meter, result);
  runner.DefineInputs(inputs, elsewhere);
  runner.Run();
  return result;
}

}  // namespace onnx_legalize
