// Two forms of one model run node beside node: `before`, and `after` made from it by a transformation that keeps
// the names of what it leaves (onnx's version converter). What the transformation left as it was is computed once
// for both forms, or not at all when nothing it changed reads it; what it changed runs in each form. The opset
// move's proof (verify/opset_move_proof.h) compares the two forms' outputs this way on each input set it draws.
//
// Why that proves what running both forms whole proves: a kernel is a function of the op's version, its
// attributes and its inputs' values (the runner is deterministic), so a node equal in all of them computes the
// same tensors in both forms; running it twice could only find the runner unequal to itself. A node the
// transformation changed in any of them (a new version, a new attribute, an input it rewired) runs in each form,
// and so does everything that reads its outputs until its values are again the same tensors.
#ifndef ONNX_LEGALIZE_SRC_EVAL_PAIRED_RUN_H_
#define ONNX_LEGALIZE_SRC_EVAL_PAIRED_RUN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "eval/model_runner.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// One form of a model for RunModelPair: the model and the kernels it adds to the runner's (may be null).
struct RunForm {
  const onnx::ModelProto& model;
  const ExtraKernels* extra = nullptr;
};

// How far a node of after is known to compute what the before node writing the same outputs does.
enum class Sameness {
  kDiffers,      // run in each form
  kSame,         // the same op version, attributes and input names: computed once for both from the same tensors
  kUnlessOpset,  // the same node, whose op has another version at after's opset: computed once for both when its
                 // kernel's questions about the opset get the same answers at after's (it then computes the same)
};

// One step of a paired run: a node of before alone, a node of after alone, or the two writing the same outputs.
struct PairStep {
  int before = -1;  // the node's index in before's main graph, -1 for none
  int after = -1;   // the node's index in after's main graph, -1 for none
  Sameness sameness = Sameness::kDiffers;
};

// What RunModelPair decides from the two forms alone, whatever their inputs: made once, run on every input set.
//
// The schedule walks after's nodes in their order; each one whose outputs a node of before writes is paired with
// it, the before nodes up to it run first (on their own), then the pair. A value is the same tensor in both forms
// by construction when it is fed (an input of both forms, declared alike, with no initializer or an equal one in
// both), an initializer equal in both, or an output of a pair of Sameness::kSame whose inputs all are. Such a
// pair needs running only when a node that may differ reads it (or reads what it feeds), and a graph output of
// both forms that is the same tensor by construction needs no comparing: the plan leaves both out.
struct PairPlan {
  // The forms and their opsets, nothing planned yet.
  PairPlan(const RunForm& before, const RunForm& after);

  RunForm before;
  RunForm after;
  absl::StatusOr<int64_t> before_opset;  // RunnableOpset of each form
  absl::StatusOr<int64_t> after_opset;
  std::vector<PairStep> steps;  // the steps to run, in order
  // The names each form's nodes read last among the steps that run (graph_runner::LastReads), by node index.
  std::vector<std::vector<std::string>> before_last_reads;
  std::vector<std::vector<std::string>> after_last_reads;
  // Initializers equal in both forms: one view of each serves both.
  std::unordered_set<std::string> shared_initializers;
  // The graph outputs of both forms that are the same tensor by construction, in before's order.
  std::vector<std::string> outputs_same_by_construction;
  int64_t nodes_skipped = 0;  // pairs of kSame left out of `steps`: each a node of each form, counted once
};

// The plan for running `before` and `after` side by side. The models (and the kernels) must outlive it.
PairPlan PlanModelPair(const RunForm& before, const RunForm& after);

// What RunModelPair gives: each form's main-graph outputs by name, shared as the runner holds them (an output
// that is an initializer viewed stays a view: the models and set-aside protos must outlive it), or why a form
// did not run to its end. The outputs the plan found the same by construction are in neither map.
struct PairedRun {
  absl::Status before_status;  // OK when `before` ran to its end
  absl::Status after_status;   // OK when `after` ran to its end; not run on once `before` failed
  std::map<std::string, std::shared_ptr<const Tensor>> before_outputs;
  std::map<std::string, std::shared_ptr<const Tensor>> after_outputs;
  int64_t nodes_shared = 0;  // nodes of `after` whose outputs are the `before` node's, computed once
};

// Runs the plan's two forms on the same inputs. A pair of kSame whose inputs are the same tensors (and one of
// kUnlessOpset whose kernel answers after's opset alike) is computed once: its outputs are then the same tensors in
// both forms. Nodes with subgraphs and the sequence ops always run in each form. Identical output tensors are the
// same tensor in both maps, so a caller compares them without reading them. `meter` counts the nodes run, those
// shared and those the plan skipped.
//
// Inputs and initializers are checked as RunModel checks them. `before` failing (or the meter passing its
// budget) ends both runs; `after` failing ends after's run only, and before's runs on, so that the caller can
// tell a model that does not run on its inputs from a transformation that fails where the model runs. A node the
// plan skipped does not run in either form: it would compute the same in both, or fail alike in both.
PairedRun RunModelPair(const PairPlan& plan, const std::map<std::string, Tensor>& inputs,
                       const InitializersElsewhere& elsewhere = nullptr, RunMeter* meter = nullptr);

// PlanModelPair and RunModelPair in one, for a single input set.
PairedRun RunModelPair(const RunForm& before, const RunForm& after, const std::map<std::string, Tensor>& inputs,
                       const InitializersElsewhere& elsewhere = nullptr, RunMeter* meter = nullptr);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_PAIRED_RUN_H_
