#include "verify/opset_move_proof.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error_kind.h"
#include "core/float16.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "eval/model_runner.h"
#include "eval/node_work.h"
#include "eval/paired_run.h"
#include "graph/graph_scope.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx_legalize/error_kind.h"
#include "rules/removed_op_rule.h"
#include "verify/dynamic_slice_verify.h"
#include "verify/proof_inputs.h"
#include "verify/removed_op_kernels.h"

namespace onnx_legalize {
namespace {

// Bounds that keep the proof to seconds beside the rest of legalizing. The constants are read where they are
// (viewed, not copied), so their size costs little but the work they take part in: 2 GiB, protobuf's own
// limit on a model, lets every model through. A model whose fed inputs hold more than kManyTrialsElements in
// all (verify/proof_inputs.h) runs on one input set, not kOpsetMoveTrials: an image network's activations make
// each run cost ~0.1-1 s in the runner, a small model's each costs microseconds.
constexpr int64_t kMaxConstantBytes = int64_t{2} << 30;

constexpr char kTrainingDomain[] = "ai.onnx.preview.training";

// For messages: 0 when the model has no one default opset (the proof refused it before then).
int64_t DefaultOpsetOf(const onnx::ModelProto& model) { return DefaultOpset(model).value_or(0); }

// ai.onnx.ml's ZipMap pairs each row of scores with its attribute's class labels into a map, and its output is a
// sequence of those maps, which the runner's values cannot hold. The move changes only the default domain (onnx's
// converter leaves ai.onnx.ml nodes as they are), so a ZipMap whose output no node reads holds the same labels in
// both forms, and the proof compares its input, the scores, in its output's place (the report says so). The
// ZipMaps of the main graph whose output no node of it reads, by output name.
std::set<std::string> ComparedZipMaps(const onnx::GraphProto& graph) {
  std::set<std::string> read;
  for (const onnx::NodeProto& node : graph.node()) read.insert(node.input().begin(), node.input().end());
  std::set<std::string> zipmaps;
  for (const onnx::NodeProto& node : graph.node()) {
    if (node.op_type() == kZipMapOp && node.domain() == kMlDomain && node.input_size() == 1 &&
        node.output_size() == 1 && read.count(node.output(0)) == 0) {
      zipmaps.insert(node.output(0));
    }
  }
  return zipmaps;
}

// The kernels the proof adds to the runner's for `model`: the removed ops' as written at opset `written_at` (the
// opset before the move, for both forms: above) and the compared ZipMaps, which give their input.
class ProofKernels final : public ExtraKernels {
 public:
  ProofKernels(const onnx::ModelProto& model, int64_t written_at)
      : removed_ops_(written_at), zipmaps_(ComparedZipMaps(model.graph())) {}

  const std::set<std::string>& zipmaps() const { return zipmaps_; }

  bool Handles(const onnx::NodeProto& node, int64_t opset) const override {
    return IsComparedZipMap(node) || removed_ops_.Handles(node, opset);
  }
  // Both the removed ops' kernels and the compared ZipMaps compute alike at every opset.
  bool IgnoresOpset(const onnx::NodeProto& /*node*/) const override { return true; }

  absl::StatusOr<std::vector<Tensor>> Run(const onnx::NodeProto& node, int64_t opset,
                                          const std::vector<const Tensor*>& inputs) const override {
    if (!IsComparedZipMap(node)) return removed_ops_.Run(node, opset, inputs);
    if (inputs.empty() || inputs[0] == nullptr) return absl::InvalidArgumentError("its input 0 is missing");
    std::vector<Tensor> scores;
    scores.push_back(inputs[0]->Clone());
    return scores;
  }

 private:
  bool IsComparedZipMap(const onnx::NodeProto& node) const {
    return node.op_type() == kZipMapOp && node.domain() == kMlDomain && node.output_size() == 1 &&
           zipmaps_.count(node.output(0)) > 0;
  }

  RemovedOpKernels removed_ops_;
  std::set<std::string> zipmaps_;
};

// Element `i` of two float tensors whose bytes differ there: nullopt when both are NaN, else how.
template <typename T>
std::optional<std::string> FloatDifference(const char* a, const char* b, int64_t i) {
  T x, y;
  std::memcpy(&x, a, sizeof(T));
  std::memcpy(&y, b, sizeof(T));
  if (std::isnan(x) && std::isnan(y)) return std::nullopt;
  return absl::StrCat("element ", i, " is ", x, " before and ", y, " after");
}

std::optional<std::string> Float16Difference(const char* a, const char* b, int64_t i) {
  uint16_t x, y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  const float wide_x = Float16ToFloat(x), wide_y = Float16ToFloat(y);
  if (std::isnan(wide_x) && std::isnan(wide_y)) return std::nullopt;
  return absl::StrCat("element ", i, " is ", wide_x, " before and ", wide_y, " after");
}

// "" when `after` is `before` bit for bit, a NaN matching any NaN (IEEE 754 leaves a computed NaN's sign
// and payload to the implementation); else what differs.
std::string Difference(const Tensor& before, const Tensor& after) {
  if (before.BitwiseEquals(after)) return "";
  if (before.type() != after.type() || before.dims() != after.dims()) {
    return absl::StrCat(DataTypeName(before.type()), "[", absl::StrJoin(before.dims(), ","), "] before, ",
                        DataTypeName(after.type()), "[", absl::StrJoin(after.dims(), ","), "] after");
  }
  const bool is_float = before.type() == onnx::TensorProto::FLOAT;
  const bool is_double = before.type() == onnx::TensorProto::DOUBLE;
  const bool is_half = before.type() == onnx::TensorProto::FLOAT16;
  const int64_t size = ElementSize(before.type());
  for (int64_t i = 0; i < before.element_count(); ++i) {
    const char* a = before.bytes().data() + i * size;
    const char* b = after.bytes().data() + i * size;
    if (std::memcmp(a, b, static_cast<size_t>(size)) == 0) continue;
    std::optional<std::string> difference = is_float    ? FloatDifference<float>(a, b, i)
                                            : is_double ? FloatDifference<double>(a, b, i)
                                            : is_half   ? Float16Difference(a, b, i)
                                                        : absl::StrCat("element ", i, " differs");
    if (difference.has_value()) return *difference;
  }
  return "";
}

absl::Status Failed(const onnx::ModelProto& before, const onnx::ModelProto& after, const std::string& what) {
  const std::string label = absl::StrCat("the opset move from ", DefaultOpsetOf(before), " to ", DefaultOpsetOf(after));
  return VerificationFailure(label, absl::StrCat(label, ": ", what));
}

}  // namespace

std::optional<std::string> WhyOpsetMoveCannotBeExecuted(const onnx::ModelProto& model,
                                                        const SetAsideInitializers& set_aside,
                                                        const ExternalDataReader* external_data) {
  const ProofKernels proof_kernels(model, DefaultOpsetOf(model));
  if (std::optional<std::string> node = FirstUnsupportedNode(model, &proof_kernels)) {
    // A training op's value (Gradient's derivatives, an optimizer's step) is what a training runtime computes
    // from the graph around it; no inference of the model defines it.
    const bool training = absl::StrContains(*node, absl::StrCat("of domain '", kTrainingDomain, "'"));
    return absl::StrCat("the model runner has no kernel for ", *node,
                        training ? ": a training op, whose value only a training runtime defines" : "");
  }
  // External data is mapped, not held: only the initializers in memory count against the limit.
  const ProofInitializers initializers(set_aside, external_data);
  int64_t constant_bytes = 0;
  for (const onnx::TensorProto& initializer : model.graph().initializer()) {
    if (std::optional<std::string> why = initializers.WhyUnreadable(initializer)) return why;
    constant_bytes += initializers.BytesHeld(initializer);
  }
  if (constant_bytes > kMaxConstantBytes) {
    return absl::StrCat("the model's initializers hold ", constant_bytes, " bytes, over the proof's ",
                        kMaxConstantBytes);
  }
  const bool open_as_one = HasImageSizedInput(model.graph());
  for (const onnx::ValueInfoProto* input : FedInputs(model.graph())) {
    if (std::string why = WhyNotDrawable(*input); !why.empty()) return why;
    absl::StatusOr<int64_t> count = CheckedElementCount(DrawnDims(*input, open_as_one), input->name());
    if (!count.ok() || *count > kMaxDrawnInputElements) {
      return absl::StrCat("graph input '", input->name(), "' is over ", kMaxDrawnInputElements, " elements");
    }
  }
  return std::nullopt;
}

namespace {

// The number of input sets the proof runs: kOpsetMoveTrials, or 1 for a model of large inputs (see
// kManyTrialsElements).
int TrialsFor(const onnx::GraphProto& graph) {
  int64_t elements = 0;
  const bool open_as_one = HasImageSizedInput(graph);
  for (const onnx::ValueInfoProto* input : FedInputs(graph)) {
    elements += CheckedElementCount(DrawnDims(*input, open_as_one), input->name()).value_or(kMaxDrawnInputElements);
  }
  return elements > kManyTrialsElements ? 1 : kOpsetMoveTrials;
}

}  // namespace

OpsetMoveProofResult OpsetMoveNotExecuted(const std::string& why) {
  OpsetMoveProofResult result;
  result.text = "not executed: " + why;
  result.proof.why_not = why;
  return result;
}

namespace {

// The proof's counts as it goes: the meter every run adds to, the input sets completed, the wall time.
class ProofTally {
 public:
  explicit ProofTally(int64_t budget) : start_(std::chrono::steady_clock::now()) { meter_.budget = budget; }

  RunMeter& meter() { return meter_; }
  const RunMeter& counts() const { return meter_; }
  void CompleteInputSet() { ++input_sets_; }
  int64_t input_sets() const { return input_sets_; }

  // The result with `text`, executed or not (`why_not` then says why), counting what ran until now.
  OpsetMoveProofResult Result(std::string text, bool executed, std::string why_not) const {
    OpsetMoveProofResult result;
    result.text = std::move(text);
    result.proof.executed = executed;
    result.proof.input_sets = input_sets_;
    result.proof.nodes_executed = meter_.nodes_executed;
    result.proof.nodes_shared = meter_.nodes_shared;
    result.proof.nodes_skipped = meter_.nodes_skipped;
    result.proof.work = meter_.work;
    result.proof.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    result.proof.why_not = std::move(why_not);
    return result;
  }
  OpsetMoveProofResult NotExecuted(const std::string& why) const { return Result("not executed: " + why, false, why); }

 private:
  std::chrono::steady_clock::time_point start_;
  RunMeter meter_;
  int64_t input_sets_ = 0;
};

// Why the proof stopped when the first input set passed the budget, naming what the user can raise.
std::string PastBudget(const RunMeter& meter) {
  return absl::StrCat("past the proof budget (", meter.budget, " element operations) in the first input set (",
                      meter.work, " done); raise it with --proof-budget (Options::proof_budget)");
}

// The two forms the proof runs, each with the kernels it adds to the runner's, and where large initializers are.
struct ProofForms {
  const onnx::ModelProto& before;
  const onnx::ModelProto& after;
  const PairPlan& plan;  // how the two run side by side, made once for every input set
  const InitializersElsewhere& elsewhere;
};

// How one input set ended, when it did not fail the proof: both forms identical, a run stopped by the budget, or
// a reason the forms cannot be executed.
struct InputSetEnd {
  bool identical = false;
  bool past_budget = false;
  std::string why_not;               // when not identical: why (PastBudget's text when past the budget)
  bool before_does_not_run = false;  // the model before the move refused the drawn inputs
};

// Runs input set `trial` through both forms on `meter`. A verification failure when they differ, or when `after`
// fails where `before` ran.
absl::StatusOr<InputSetEnd> RunInputSet(const ProofForms& forms, int trial, OpenDims open_dims, DrawnValues values,
                                        const Options& options, RunMeter& meter) {
  TrialRandom random(options.verify_seed ^ (0x0b5e7u + static_cast<uint64_t>(trial)));
  using Feeds = std::map<std::string, Tensor>;
  ASSIGN_OR_RETURN(Feeds inputs, DrawInputs(forms.before.graph(), values, random, open_dims));
  // The forms run node beside node: a node the move left as it was is computed once for both, or not at all when
  // nothing the move changed reads it (RunModelPair).
  PairedRun run = RunModelPair(forms.plan, inputs, forms.elsewhere, &meter);
  if (meter.past_budget) return InputSetEnd{false, true, PastBudget(meter)};
  // An external weight that cannot be read (its file gone or unreadable since the model was loaded) is the file
  // system's failure, neither the model's (drawn inputs it refuses) nor the move's: the legalization stops with it.
  for (const absl::Status* status : {&run.before_status, &run.after_status}) {
    if (ErrorKindOf(*status) == ErrorKind::kFileSystem) {
      return WithMessage(*status, absl::StrCat("the opset move's proof could not read the model's external data: ",
                                               status->message()));
    }
  }
  if (absl::IsUnimplemented(run.before_status))
    return InputSetEnd{false, false, std::string(run.before_status.message())};
  if (!run.before_status.ok()) {
    // The drawn inputs may be outside what the model accepts (an index out of range): nothing is proven.
    return InputSetEnd{
        false, false,
        absl::StrCat("the model before the move does not run on drawn inputs (", run.before_status.message(), ")"),
        /*before_does_not_run=*/true};
  }
  if (absl::IsUnimplemented(run.after_status))
    return InputSetEnd{false, false, std::string(run.after_status.message())};
  if (!run.after_status.ok()) {
    return Failed(forms.before, forms.after,
                  absl::StrCat("trial ", trial,
                               ": the model runs before the move and fails after it: ", run.after_status.message()));
  }
  for (const auto& [name, value] : run.before_outputs) {
    auto moved = run.after_outputs.find(name);
    if (moved == run.after_outputs.end()) {
      return Failed(forms.before, forms.after, absl::StrCat("output '", name, "' is gone"));
    }
    if (moved->second == value) continue;  // one tensor, computed once for both forms
    if (std::string difference = Difference(*value, *moved->second); !difference.empty()) {
      return Failed(forms.before, forms.after, absl::StrCat("trial ", trial, ": output '", name, "': ", difference));
    }
  }
  return InputSetEnd{true, false, ""};
}

}  // namespace

absl::StatusOr<OpsetMoveProofResult> ProveOpsetMove(const onnx::ModelProto& before, const onnx::ModelProto& after,
                                                    const Options& options, const SetAsideInitializers& set_aside) {
  if (std::optional<std::string> why = WhyOpsetMoveCannotBeExecuted(before, set_aside, options.external_data)) {
    return OpsetMoveNotExecuted(*why);
  }
  const ProofKernels before_kernels(before, DefaultOpsetOf(before));
  const ProofKernels after_kernels(after, DefaultOpsetOf(before));
  if (std::optional<std::string> node = FirstUnsupportedNode(after, &after_kernels)) {
    return OpsetMoveNotExecuted(absl::StrCat("the model runner has no kernel for ", *node, " after the move"));
  }
  const ProofInitializers initializers(set_aside, options.external_data);
  const InitializersElsewhere elsewhere = initializers.Values();
  const PairPlan plan = PlanModelPair(RunForm{before, &before_kernels}, RunForm{after, &after_kernels});
  const ProofForms forms{before, after, plan, elsewhere};
  ProofTally tally(options.proof_budget);
  const int trials = TrialsFor(before.graph());
  // The work of the first input set: a later one runs only when as much again fits in the budget, so that no
  // run is started that the budget would cut off (inputs drawn anew may still differ in work, a Loop's count:
  // the meter stops those, and the sets run to the end are reported).
  int64_t first_set_work = 0;
  bool budget_cut = false;
  OpenDims open_dims = OpenDims::kForTheModel;
  bool ordinary_only = false;  // the model refused a set of special values
  for (int trial = 0; trial < trials && !budget_cut; ++trial) {
    if (trial > 0 && SaturatingAdd(tally.counts().work, first_set_work) > tally.counts().budget) {
      budget_cut = true;
      break;
    }
    // The first set holds ordinary numbers: they flow through a deep network, whose outputs are then numbers
    // to compare (special values turn an image network's every output to NaN within a few layers, before and
    // after any move). The later sets mix in the special values, for the ops that treat them apart.
    const DrawnValues values = trial == 0 || ordinary_only ? DrawnValues::kOrdinary : DrawnValues::kSpecial;
    ASSIGN_OR_RETURN(InputSetEnd end, RunInputSet(forms, trial, open_dims, values, options, tally.meter()));
    // A model whose reshapes fix its batch at 1 (a CoreML conversion's Reshape of a [None, 120] input to
    // [40, 3, 1, 1]) runs on no other size: when the first set does not run with its open dims drawn as 3 or 2,
    // they are drawn as 1, for it and every set after.
    if (trial == 0 && end.before_does_not_run && open_dims == OpenDims::kForTheModel &&
        HasOpenDimsDrawnPastOne(before.graph())) {
      open_dims = OpenDims::kOnes;
      ASSIGN_OR_RETURN(end, RunInputSet(forms, trial, open_dims, values, options, tally.meter()));
    }
    // A model that refuses the special values (a Cast of an infinity to an integer: magika takes its bytes as
    // floats) runs this set and the later ones on ordinary numbers, each drawn anew.
    if (trial > 0 && end.before_does_not_run && !ordinary_only) {
      ordinary_only = true;
      ASSIGN_OR_RETURN(end, RunInputSet(forms, trial, open_dims, DrawnValues::kOrdinary, options, tally.meter()));
    }
    budget_cut = end.past_budget && trial > 0;
    if (!end.identical && !budget_cut) return tally.NotExecuted(end.why_not);
    if (trial == 0) first_set_work = tally.counts().work;
    if (end.identical) tally.CompleteInputSet();
  }
  std::string zipmaps;
  if (!before_kernels.zipmaps().empty()) {
    zipmaps = absl::StrCat(" (ZipMap outputs ", absl::StrJoin(before_kernels.zipmaps(), ", "),
                           ": their input scores, as the runner holds no sequence of maps)");
  }
  // Outputs the move left as they were, with everything they depend on, are identical without running.
  std::string by_construction;
  const size_t same = plan.outputs_same_by_construction.size();
  if (same > 0) {
    by_construction =
        absl::StrCat(" (", same == static_cast<size_t>(before.graph().output_size()) ? "all" : absl::StrCat(same),
                     " by construction: the move left every node they depend on as it was)");
  }
  const int64_t sets = tally.input_sets();
  return tally.Result(
      absl::StrCat("executed in the model runner at opset ", DefaultOpsetOf(before), " and ", DefaultOpsetOf(after),
                   " on ", sets, sets == 1 ? " seeded input set" : " seeded input sets",
                   ordinary_only ? " of ordinary numbers (the model refuses special values)" : "",
                   budget_cut ? " (the proof budget holds no more)" : "", ": every output identical", by_construction,
                   zipmaps),
      true, "");
}

}  // namespace onnx_legalize
