// A small interpreter for whole ONNX models: the library runs a model before and after the opset move on
// seeded inputs and compares the outputs bit for bit (verify/opset_move_proof.h), and pass tests do the same before
// and after legalization (as onnxruntime's TransformerTester does for its graph transformers). Each op
// version's semantics are written from its own spec, so two versions of one op that mean different things
// compute different values here.
//
// It runs the main graph's nodes in the order they are listed (ONNX requires a topological order, so a
// node that reads a value no earlier node produced is an error, which also catches a pass that breaks the
// order). Slice and DynamicSlice are evaluated with src/eval/slice_kernels.h, the kernels verification trusts;
// the runner only wires them up.
//
// The kernels live in src/eval/kernels/, one file per op family, found by op type in its registry
// (kernels/registry.h); this file's .cc runs graphs: values, the order of nodes, If and Loop (M, cond,
// loop-carried values, scan outputs stacked along a new axis 0) with subgraphs that read outer-scope values,
// and errors that name the node and its graph. Opsets 1..28 (kMaxRunnerOpset) of the default domain: the model's
// default-domain opset_import picks each op's version, whose own semantics the kernel applies (Conv,
// ConvTranspose, BatchNormalization, pools, Gemm/MatMul, activations, Softmax, arithmetic with the legacy
// broadcast of opset < 7, shape and data-movement ops, reductions, Pad, Upsample/Resize, Cast, ...: the
// kernel files list theirs), the sequence ops of opset 11 (kernels/sequence.h: a sequence is held beside the
// tensors, read only by them, and never a graph output here), and the ai.onnx.ml ops of kernels/ml.cc and
// kernels/tree_ensemble.cc. Anything
// else is Unimplemented naming the op. A value past
// kernels/kernel_support.h's kMaxValueElements, a Loop past 2^16 iterations, or a run past its meter's budget
// (RunMeter) is ResourceExhausted: the models it runs may come from anyone.
#ifndef ONNX_LEGALIZE_SRC_EVAL_MODEL_RUNNER_H_
#define ONNX_LEGALIZE_SRC_EVAL_MODEL_RUNNER_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/target_opsets.h"

namespace onnx_legalize {

// The newest default-domain opset the runner implements: every opset a request may target (target_opsets.h),
// onnx 1.23's newest, so that every move is proved. The runner's kernels apply each op version up to it; an op
// version they do not implement in full (a type, an attribute value) is refused by name.
inline constexpr int64_t kMaxRunnerOpset = kMaxTargetOpset;

// Ops the runner has no kernel for that a caller computes: the legalizer's removed ops (of any domain: a
// com.microsoft one too), by their rules' reference kernels. They are asked first, before the runner's kernels.
class ExtraKernels {
 public:
  virtual ~ExtraKernels() = default;
  // Whether this computes `node` in a model of default opset `opset`.
  virtual bool Handles(const onnx::NodeProto& node, int64_t opset) const = 0;
  // The node's outputs in order, from its inputs (null for an omitted one).
  virtual absl::StatusOr<std::vector<Tensor>> Run(const onnx::NodeProto& node, int64_t opset,
                                                  const std::vector<const Tensor*>& inputs) const = 0;
  // Whether Run computes `node` alike at every opset (the removed ops' rules apply the opset they were written
  // at, whatever the model's): RunModelPair (paired_run.h) then shares it between two forms of different
  // opsets.
  virtual bool IgnoresOpset(const onnx::NodeProto& /*node*/) const { return false; }
};

// The value of a main-graph initializer the model holds elsewhere (data_location EXTERNAL), viewing its bytes
// where they lie, or nullopt when the caller has none for it: the large initializers the legalizer sets aside
// while it transforms a model, a model's external data mapped from its file (verify/proof_initializers.h). The
// bytes must outlive the run.
using InitializersElsewhere =
    std::function<absl::StatusOr<std::optional<Tensor>>(const onnx::TensorProto& initializer)>;

// What runs of the model runner did, and the work they may do: one meter may follow several runs (a proof's
// input sets, before and after the move), each adding to its counts.
struct RunMeter {
  // Element operations (eval/node_work.h) the runs may do in all. Checked after each node: the node that passes
  // it ends the run with ResourceExhausted and sets past_budget, so a run stops within one node of its budget.
  int64_t budget = std::numeric_limits<int64_t>::max();
  int64_t work = 0;            // element operations done, including the node that passed the budget
  int64_t nodes_executed = 0;  // nodes run, those of If branches and Loop bodies each time they run
  int64_t nodes_shared = 0;    // nodes RunModelPair computed once for two forms (counted once in nodes_executed)
  int64_t nodes_skipped = 0;   // nodes RunModelPair left unrun: the same in both forms by construction, and
                               // read by nothing that differs (paired_run.h)
  bool past_budget = false;
};

// Runs `model`'s main graph on `inputs` (keyed by graph-input name) and returns its graph outputs by name.
//
// An initializer supplies its value unless `inputs` feeds the same name, which it may only when that name
// is also a graph input: from IR 4 that makes the initializer an overridable default, and in IR 3 every
// initializer is listed as an input, so feeding one overrides it too. Feeding a name that is not a graph
// input, omitting a graph input that has no initializer, or feeding a tensor whose type or static dims
// differ from the input's declaration is InvalidArgument. An initializer stored as external data is read
// through `elsewhere`; one it does not have is Unimplemented. Large initializers are viewed, not copied (so
// `model` and the bytes `elsewhere` views must not change during the run). An op it cannot run is Unimplemented; a
// value an op's spec does not allow (shapes that do not broadcast, an index out of range) is InvalidArgument.
// `meter`, when given, counts the nodes and the work of the run and ends it past its budget (RunMeter).
absl::StatusOr<std::map<std::string, Tensor>> RunModel(const onnx::ModelProto& model,
                                                       const std::map<std::string, Tensor>& inputs,
                                                       const ExtraKernels* extra = nullptr,
                                                       const InitializersElsewhere& elsewhere = nullptr,
                                                       RunMeter* meter = nullptr);

// Why RunModel could not run `model` whatever its inputs: the first node, at any depth, of an op (or domain)
// it has no kernel for ("op Conv (graph main)"), or an opset it does not implement. nullopt when it has a
// kernel for every node.
std::optional<std::string> FirstUnsupportedNode(const onnx::ModelProto& model, const ExtraKernels* extra = nullptr);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_MODEL_RUNNER_H_
