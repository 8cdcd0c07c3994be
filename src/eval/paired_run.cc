// RunModelPair (paired_run.h): two forms of one model run step by step as PlanModelPair (pair_plan.cc) scheduled
// them. A pair whose computations are the same and whose inputs are the same tensors runs once; any other runs in
// each form. Each form keeps its own scope, releasing a value after its own last reader, so a tensor both forms
// share is freed when neither reads it any more.
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/status_macros.h"
#include "eval/graph_runner.h"
#include "eval/kernels/kernel_support.h"
#include "eval/model_runner.h"
#include "eval/paired_run.h"
#include "graph/subgraphs.h"

namespace onnx_legalize {
namespace {

using graph_runner::DefineMainGraphValues;
using graph_runner::InitializerValue;
using graph_runner::MainGraphOutput;
using graph_runner::Runner;
using graph_runner::Scope;

// One form as the pair runs it: its model, opset, kernels, scope, and the names its nodes read last.
struct Form {
  Form(const RunForm& form, int64_t opset, const std::vector<std::vector<std::string>>& last_reads, RunMeter* meter)
      : model(form.model),
        opset(opset),
        runner(opset, form.extra, meter),
        scope(kMainGraphPath, nullptr),
        last_reads(last_reads) {}

  const onnx::GraphProto& graph() const { return model.graph(); }
  void ReleaseAfter(int index) {
    for (const std::string& name : last_reads[static_cast<size_t>(index)]) scope.Release(name);
  }

  const onnx::ModelProto& model;
  int64_t opset;
  Runner runner;
  Scope scope;
  const std::vector<std::vector<std::string>>& last_reads;
};

// The runs of both forms, step by step.
class PairRunner {
 public:
  PairRunner(const PairPlan& plan, RunMeter* meter, PairedRun& result)
      : plan_(plan),
        before_(plan.before, *plan.before_opset, plan.before_last_reads, meter),
        after_(plan.after, *plan.after_opset, plan.after_last_reads, meter),
        meter_(meter),
        result_(result) {}

  // Both forms' main-graph values before their first node: the fed tensors, one for both forms, and the
  // initializers, one view for both where the two forms hold the same initializer.
  void DefineInputs(const std::map<std::string, Tensor>& inputs, const InitializersElsewhere& elsewhere) {
    std::map<std::string, Value> fed;
    for (const auto& [name, tensor] : inputs) fed.emplace(name, Share(tensor.Clone()));
    std::unordered_map<std::string, Value> before_initializers;
    result_.before_status = DefineMainGraphValues(
        before_.graph(), fed,
        [&](const onnx::TensorProto& initializer) -> absl::StatusOr<Value> {
          ASSIGN_OR_RETURN(Tensor tensor, InitializerValue(initializer, elsewhere));
          Value value = Share(std::move(tensor));
          if (plan_.shared_initializers.count(initializer.name()) > 0) {
            before_initializers.emplace(initializer.name(), value);
          }
          return value;
        },
        before_.scope);
    if (!result_.before_status.ok()) return;
    result_.after_status = DefineMainGraphValues(
        after_.graph(), fed,
        [&](const onnx::TensorProto& initializer) -> absl::StatusOr<Value> {
          auto same = before_initializers.find(initializer.name());
          if (same != before_initializers.end()) return same->second;
          ASSIGN_OR_RETURN(Tensor tensor, InitializerValue(initializer, elsewhere));
          return Share(std::move(tensor));
        },
        after_.scope);
    after_running_ = result_.after_status.ok();
  }

  void Run() {
    if (!result_.before_status.ok()) return;
    for (const PairStep& step : plan_.steps) {
      if (Stopped()) return;
      if (step.after < 0) {
        RunBefore(step.before);
      } else if (step.before < 0) {
        RunAfter(step.after);
      } else {
        RunPair(step);
      }
    }
    if (Stopped()) return;
    if (meter_ != nullptr) meter_->nodes_skipped += plan_.nodes_skipped;
    const std::unordered_set<std::string> same(plan_.outputs_same_by_construction.begin(),
                                               plan_.outputs_same_by_construction.end());
    result_.before_status = CollectOutputs(before_, same, result_.before_outputs);
    if (after_running_) result_.after_status = CollectOutputs(after_, same, result_.after_outputs);
  }

 private:
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

  void RunPair(const PairStep& step) {
    const int m = step.before;
    const int n = step.after;
    const onnx::NodeProto& before_node = before_.graph().node(m);
    const onnx::NodeProto& after_node = after_.graph().node(n);
    const Sameness sameness = after_running_ ? step.sameness : Sameness::kDiffers;
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

  // The form's graph outputs but those the same by construction, which neither form computed.
  static absl::Status CollectOutputs(const Form& form, const std::unordered_set<std::string>& same,
                                     std::map<std::string, std::shared_ptr<const Tensor>>& outputs) {
    for (const onnx::ValueInfoProto& output : form.graph().output()) {
      if (same.count(output.name()) > 0) continue;
      ASSIGN_OR_RETURN(Value value, MainGraphOutput(output.name(), form.scope));
      outputs.emplace(output.name(), std::move(value));
    }
    return absl::OkStatus();
  }

  const PairPlan& plan_;
  Form before_;
  Form after_;
  RunMeter* meter_;
  PairedRun& result_;
  bool after_running_ = false;
};

}  // namespace

PairedRun RunModelPair(const PairPlan& plan, const std::map<std::string, Tensor>& inputs,
                       const InitializersElsewhere& elsewhere, RunMeter* meter) {
  PairedRun result;
  if (!plan.before_opset.ok()) {
    result.before_status = plan.before_opset.status();
    return result;
  }
  if (!plan.after_opset.ok()) {
    result.after_status = plan.after_opset.status();
    // Before runs alone, so that the caller learns whether it runs on these inputs.
    absl::StatusOr<std::map<std::string, Tensor>> alone =
        RunModel(plan.before.model, inputs, plan.before.extra, elsewhere, meter);
    if (!alone.ok()) result.before_status = alone.status();
    return result;
  }
  PairRunner runner(plan, meter, result);
  runner.DefineInputs(inputs, elsewhere);
  runner.Run();
  return result;
}

PairedRun RunModelPair(const RunForm& before, const RunForm& after, const std::map<std::string, Tensor>& inputs,
                       const InitializersElsewhere& elsewhere, RunMeter* meter) {
  return RunModelPair(PlanModelPair(before, after), inputs, elsewhere, meter);
}

}  // namespace onnx_legalize
