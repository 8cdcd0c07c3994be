// Legalize(): plan, verify, check the result on a light copy, then apply. The model is touched only after
// everything that can fail has succeeded, so a failure leaves it exactly as it was. LegalizeFile uses the
// same steps in another order (legalize_internal.h): it writes the result while the proofs still run.
#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "driver/legalize_internal.h"
#include "driver/onnx_check.h"
#include "era/legacy_repairs.h"
#include "google/protobuf/arena.h"
#include "graph/graph_locator.h"
#include "graph/graph_scope.h"
#include "graph/graph_validation.h"
#include "graph/model_skeleton.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/subgraphs.h"
#include "onnx/defs/schema.h"
#include "onnx_legalize/legalize.h"
#include "pass/pass.h"
#include "upgrade/opset_upgrade.h"
#include "verify/dynamic_slice_verify.h"
#include "verify/opset_move_proof.h"

namespace onnx_legalize {
namespace {

// How the proofs run beside the work: on helper threads, or deferred to the caller's thread when they are
// awaited (Options::use_threads).
std::launch ProofLaunch(const Options& options) {
  return options.use_threads ? std::launch::async : std::launch::deferred;
}

// The highest opset the rewrites may go to: the one asked for, the model's own (keep_opset), or the highest the
// library knows.
int64_t TargetBound(int64_t current, const Options& options) {
  return options.keep_opset ? current : options.target_opset.value_or(kMaxTargetOpset);
}

// What every pass asks of the target opset, together; the first pass's refusal of `bound`.
absl::StatusOr<OpsetNeed> NeedOfEveryPass(const std::vector<std::unique_ptr<Pass>>& passes, int64_t bound,
                                          int64_t current, const Options& options) {
  OpsetNeed needs;
  for (const auto& pass : passes) {
    ASSIGN_OR_RETURN(const OpsetNeed need, pass->NeedWithin(bound, current, options));
    needs.changes = needs.changes || need.changes;
    needs.opset = std::max(needs.opset, need.opset);
  }
  return needs;
}

// The opset the rewrites go to: the one asked for, the model's own (keep_opset), or the lowest >= current that
// expresses every pass's rewrites.
int64_t ChooseTargetOpset(const OpsetNeed& need, int64_t current, const Options& options) {
  if (options.keep_opset || options.target_opset.has_value()) return TargetBound(current, options);
  return std::max(current, need.opset);
}

// Options::target_opset below the model's own: a request that cannot be met, whatever the model holds.
absl::Status CheckTargetIsNotBelow(int64_t current, const Options& options) {
  if (!options.target_opset.has_value() || *options.target_opset >= current) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("target opset ", *options.target_opset, " is below the model's opset ",
                                                 current, "; onnx-legalize never lowers an opset"));
}

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

// The large initializers of a model's main graph, set aside while the rest of it is transformed and
// checked: each one's data moves out (nothing is copied) and a stub with its name, type and dims stays,
// marked as external data so that the opset upgrade and BuildModelSkeleton treat it as the large initializer
// it stands for. Restore() moves the data back into whichever model holds the stubs then; the data of a
// stub the transformation removed (a constant nothing reads any more) stays here until this is destroyed.
// Moving is TensorProto::Swap between heap messages: the bytes stay where they are.
class LargeInitializersAside {
 public:
  explicit LargeInitializersAside(onnx::ModelProto& model) {
    if (!model.has_graph()) return;  // mutable_graph() would add one: a failed Legalize must change nothing
    for (onnx::TensorProto& initializer : *model.mutable_graph()->mutable_initializer()) {
      if (initializer.data_location() == onnx::TensorProto::EXTERNAL || !SkeletonLeavesOut(initializer)) continue;
      auto data = std::make_unique<onnx::TensorProto>();
      data->Swap(&initializer);
      initializer.set_name(data->name());
      initializer.set_data_type(data->data_type());
      *initializer.mutable_dims() = data->dims();
      initializer.set_data_location(onnx::TensorProto::EXTERNAL);
      aside_.emplace(data->name(), std::move(data));
    }
  }
  LargeInitializersAside(const LargeInitializersAside&) = delete;
  LargeInitializersAside& operator=(const LargeInitializersAside&) = delete;

  // The data of the initializer `name` set aside, or null: what the opset move's proof runs the model with.
  const onnx::TensorProto* Find(const std::string& name) const {
    auto data = aside_.find(name);
    return data == aside_.end() ? nullptr : data->second.get();
  }

  void Restore(onnx::ModelProto& model) {
    if (!model.has_graph()) return;
    for (onnx::TensorProto& initializer : *model.mutable_graph()->mutable_initializer()) {
      auto data = aside_.find(initializer.name());
      if (data == aside_.end() || initializer.data_location() != onnx::TensorProto::EXTERNAL ||
          initializer.external_data_size() > 0) {
        continue;
      }
      initializer.Swap(data->second.get());
      aside_.erase(data);
    }
  }

 private:
  std::unordered_map<std::string, std::unique_ptr<onnx::TensorProto>> aside_;
};

// Runs the passes' concurrent proofs (the jobs Pass::Verify returned) on a helper thread while the caller goes
// on with other work, then with the caller's help: both take jobs one at a time from a shared counter. Every
// job is independent (its own seeded trials, its own `verification` text), so the outcome is the sequential
// one: Finish() returns the first failure in pass and job order. Verification is the largest part of
// legalizing a model of many rewrites, and the rest (transform, check) does not depend on it. Without
// Options::use_threads the caller does every job in Finish().
class ConcurrentVerification {
 public:
  ConcurrentVerification(std::vector<ProofJob> jobs, const Options& options)
      : options_(options), jobs_(std::move(jobs)) {
    statuses_.resize(jobs_.size());
    if (options.use_threads) helper_ = std::async(std::launch::async, [this] { Work(); });
  }
  ConcurrentVerification(const ConcurrentVerification&) = delete;
  ConcurrentVerification& operator=(const ConcurrentVerification&) = delete;
  ~ConcurrentVerification() {
    stop_ = true;
    if (helper_.valid()) helper_.wait();
  }

  absl::Status Finish() {
    Work();
    if (helper_.valid()) helper_.get();
    for (absl::Status& status : statuses_) RETURN_IF_ERROR(status);
    return absl::OkStatus();
  }

 private:
  void Work() {
    for (size_t i = next_++; i < jobs_.size() && !stop_; i = next_++) {
      statuses_[i] = jobs_[i](options_);
    }
  }

  const Options& options_;
  const std::vector<ProofJob> jobs_;
  std::vector<absl::Status> statuses_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::future<void> helper_;
};

// The nodes of a model that do not match their op's schema, as (graph path, node name, op type) with their
// reasons.
using SchemaMismatchesByNode = std::multimap<std::tuple<std::string, std::string, std::string>, std::string>;

absl::StatusOr<SchemaMismatchesByNode> SchemaMismatches(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(const std::vector<CheckFinding> findings, CheckModel(model));
  SchemaMismatchesByNode mismatches;
  for (const CheckFinding& finding : findings) {
    if (finding.mismatches_schema) {
      mismatches.emplace(std::make_tuple(finding.graph_path, finding.node_name, finding.op_type), finding.reason);
    }
  }
  return mismatches;
}

// A step's failure at the target: the caller's error, and why in fields (what TryLaterTargets compares; the
// session fills in the target).
struct StepFailure {
  absl::Status status;
  internal::TargetFailure why;
};

StepFailure FailedStep(absl::Status status, internal::TargetFailure::Step step, std::string op_type = "",
                       std::string node = "", std::string graph = "") {
  internal::TargetFailure why;
  why.step = step;
  why.code = status.code();
  why.op_type = std::move(op_type);
  why.node = std::move(node);
  why.graph = std::move(graph);
  return {std::move(status), std::move(why)};
}

// FailedPrecondition when legalizing made a node that does not match its schema (onnx's converter carries an
// attribute of an invalid input over, say): a node the input already wrote wrong passes through, but none
// is made wrong. Held even where onnx's checker is not (an input it rejects).
std::optional<StepFailure> RefuseNewSchemaMismatches(const onnx::ModelProto& input, const onnx::ModelProto& result) {
  constexpr internal::TargetFailure::Step kStep = internal::TargetFailure::Step::kSchemaMismatch;
  absl::StatusOr<SchemaMismatchesByNode> after = SchemaMismatches(result);
  if (!after.ok()) return FailedStep(after.status(), kStep);
  if (after->empty()) return std::nullopt;  // the usual case: the input need not be walked again
  absl::StatusOr<SchemaMismatchesByNode> before = SchemaMismatches(input);
  if (!before.ok()) return FailedStep(before.status(), kStep);
  for (const auto& [key, reason] : *after) {
    auto same = before->find(key);
    if (same != before->end()) {
      before->erase(same);
      continue;
    }
    const auto& [graph_path, node_name, op_type] = key;
    return FailedStep(absl::FailedPreconditionError(absl::StrCat(
                          "the legalized model would hold a node that does not match its schema: ", op_type,
                          node_name.empty() ? std::string() : absl::StrCat(" '", node_name, "'"), " (graph ",
                          graph_path, ") ", reason)),
                      kStep, op_type, node_name, graph_path);
  }
  return std::nullopt;
}

// UpgradeDefaultOpset, with the types of the values the passes fold declared (value_info) while it runs: the
// folds are written after the move, and onnx's adapters read the dims of what they convert (Gemm-6's B, a
// legacy broadcast's operands). The declarations are taken out again, so the model keeps its own.
// A value the graph declares already keeps its own declaration. The outputs the move renamed go to `renamed`.
absl::Status UpgradeSeeingFolds(int64_t target, const std::vector<FoldedValueType>& folds, onnx::ModelProto& model,
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
  absl::Status upgraded = UpgradeDefaultOpset(model, target, OpsThePassesRewrite(), &renamed);
  // The move rebuilds node lists (and the subgraphs in them) but keeps each graph's value_info as it was:
  // the entries added last are still last, found again by their locators (which follow what it renamed).
  for (auto it = declared.rbegin(); it != declared.rend(); ++it) {
    ASSIGN_OR_RETURN(onnx::GraphProto * graph, ResolveGraph(model, **it, renamed));
    graph->mutable_value_info()->RemoveLast();
  }
  return upgraded;
}

// The opset move, proved by executing the model before and after it (verify/opset_move_proof.h) unless the model
// runner cannot run it, which is checked before the model is copied for the proof. The proof reads the large
// initializers' data where `aside` holds it.
absl::Status MoveOpset(int64_t target, const std::vector<FoldedValueType>& folds, const Options& options,
                       const LargeInitializersAside& aside, onnx::ModelProto& model, OpsetMoveProofResult& opset_move,
                       RenamedOutputs& renamed) {
  if (!options.verify) {
    opset_move.text = kVerificationSkipped;
    opset_move.proof.why_not = kVerificationOff;
    return UpgradeSeeingFolds(target, folds, model, renamed);
  }
  const SetAsideInitializers set_aside = [&aside](const std::string& name) { return aside.Find(name); };
  if (std::optional<std::string> why = WhyOpsetMoveCannotBeExecuted(model, set_aside)) {
    opset_move = OpsetMoveNotExecuted(*why);
    return UpgradeSeeingFolds(target, folds, model, renamed);
  }
  const onnx::ModelProto before = model;
  RETURN_IF_ERROR(UpgradeSeeingFolds(target, folds, model, renamed));
  ASSIGN_OR_RETURN(opset_move, ProveOpsetMove(before, model, options, set_aside));
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

// Moves the model to `target`, proving the move where the model runner can execute the model (its text goes
// to `opset_move`), and applies the passes; returns the values they left to fill later. UpgradeDefaultOpset is
// transactional. The passes are applied last first: DynamicSlice's new names were chosen while planning, from the
// model as it was, and the removed ops' replacements, which make theirs while applying, must see them.
absl::StatusOr<std::vector<ValuesToCome>> Transform(const std::vector<std::unique_ptr<Pass>>& passes, int64_t current,
                                                    int64_t target, const Options& options,
                                                    const LargeInitializersAside& aside, onnx::ModelProto& model,
                                                    OpsetMoveProofResult& opset_move) {
  RenamedOutputs renamed;  // by the opset move
  if (target > current) {
    std::vector<FoldedValueType> folds;
    for (const auto& pass : passes) {
      std::vector<FoldedValueType> of_pass = pass->FoldedValueTypes();
      folds.insert(folds.end(), of_pass.begin(), of_pass.end());
    }
    RETURN_IF_ERROR(MoveOpset(target, folds, options, aside, model, opset_move, renamed));
  }
  // The IR version what onnx's checker wants of the model needs, before the passes apply (they write their
  // constants as the IR version says). IR 1-2 cannot import opsets ("IR version < 3 cannot have opset_import");
  // PyTorch 0.3 wrote such models, and IR 3 is the lowest that can.
  if (model.ir_version() < 3 && model.opset_import_size() > 0) model.set_ir_version(3);
  // IR 3 wants every initializer listed as a graph input too; WinMLTools 0.1 did not list them. IR 4 (onnx 1.4)
  // dropped the rule: raised to 4 rather than listing them, which would make them inputs a caller may override.
  if (model.ir_version() == 3 && HoldsUnlistedInitializer(model.graph())) model.set_ir_version(4);
  std::vector<ValuesToCome> to_come;
  for (auto pass = passes.rbegin(); pass != passes.rend(); ++pass) {
    ASSIGN_OR_RETURN(ValuesToCome values, (*pass)->Apply(model, target, renamed));
    to_come.push_back(std::move(values));
  }
  if (!ImportsDefaultDomainAlias(model)) CanonicalizeDefaultDomainSpelling(*model.mutable_graph());
  return to_come;
}

// The proofs that a transformed model is right, under way: verification of every change, and (when the
// input passes it) onnx's checker with strict shape inference on a skeleton of the result, on a thread of
// its own. Await() returns the first failure in the order the steps would run one after the other.
class Proofs {
 public:
  Proofs(std::optional<ConcurrentVerification>& verification, std::unique_ptr<google::protobuf::Arena> arena,
         onnx::ModelProto* skeleton, std::launch launch)
      : verification_(verification), arena_(std::move(arena)) {
    if (skeleton != nullptr) {
      onnx_check_ = std::async(launch, [skeleton] { return CheckWithOnnx(*skeleton); });
    }
  }

  absl::Status AwaitVerification() {
    if (!verified_.has_value()) {
      verified_ = verification_.has_value() ? verification_->Finish() : absl::OkStatus();
    }
    return *verified_;
  }

  absl::Status Await() {
    RETURN_IF_ERROR(AwaitVerification());
    if (onnx_check_.valid()) onnx_verdict_ = onnx_check_.get();
    if (!onnx_verdict_.status.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the legalized model would not pass onnx's checker and strict shape inference: ",
                       onnx_verdict_.status.message()));
    }
    return absl::OkStatus();
  }

  // The node onnx's check of the result failed at, as onnx names it ({"", ""} before Await(), or when it names none).
  const NodeNamedByOnnx& NodeNamedByOnnxCheck() const { return onnx_verdict_.node; }

 private:
  std::optional<ConcurrentVerification>& verification_;
  std::unique_ptr<google::protobuf::Arena> arena_;  // holds the skeleton the check reads
  std::optional<absl::Status> verified_;
  std::future<OnnxVerdict> onnx_check_;
  OnnxVerdict onnx_verdict_;
};

// The passes, planned, and the target opset they go to.
struct PlannedPasses {
  // The scopes of the planning walk, which the plans' constants point into, and the fold budget the passes'
  // planners keep: declared first, destroyed last.
  std::vector<std::unique_ptr<GraphScope>> scopes;
  FoldBudget fold_budget;
  std::vector<std::unique_ptr<Pass>> passes;
  bool changes = false;  // some pass changes the model
  int64_t target = 0;
  // The proofs that run while the model is transformed (PrepareAndVerify's).
  std::vector<ProofJob> concurrent_proofs;
};

absl::StatusOr<PlannedPasses> PlanPasses(const onnx::ModelProto& model, int64_t current, const Options& options,
                                         const PassSettings& settings) {
  RETURN_IF_ERROR(CheckTargetIsNotBelow(current, options));
  PlannedPasses planned;
  planned.fold_budget = FoldBudget(options.max_total_fold_bytes);
  ASSIGN_OR_RETURN(planned.passes, PlanEveryPass(model, options, settings, planned.scopes, planned.fold_budget));
  ASSIGN_OR_RETURN(const OpsetNeed need,
                   NeedOfEveryPass(planned.passes, TargetBound(current, options), current, options));
  planned.changes = need.changes;
  planned.target = ChooseTargetOpset(need, current, options);
  return planned;
}

bool ChangesNothing(const PlannedPasses& planned, int64_t current) {
  return planned.target == current && !planned.changes;
}

// What depends on the target, and the proofs that run before the model is transformed (or, without
// verification, the texts that say so); the others, to run while it is, go to `planned.concurrent_proofs`.
absl::Status PrepareAndVerify(PlannedPasses& planned, const Options& options) {
  for (const auto& pass : planned.passes) {
    ASSIGN_OR_RETURN(std::vector<ProofJob> jobs, pass->Verify(planned.target, options));
    for (ProofJob& job : jobs) planned.concurrent_proofs.push_back(std::move(job));
  }
  return absl::OkStatus();
}

// A light copy of `result` for onnx's checker, on `arena`. The result is held to the checker whether or not the
// input passes it: exit 0 means onnx's checker and strict shape inference accept the result.
onnx::ModelProto* SkeletonToCheck(const onnx::ModelProto& result, google::protobuf::Arena& arena) {
  onnx::ModelProto* skeleton = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  BuildModelSkeleton(result, *skeleton);
  return skeleton;
}

// The report of a legalization that changed the model; the passes' texts move into it.
void CompleteReport(const onnx::ModelProto& model, PlannedPasses& planned, const absl::Status& input_verdict,
                    Report& report) {
  report.onnx_check = input_verdict.ok() ? "onnx's checker and strict shape inference accept the result"
                                         : absl::StrCat(
                                               "onnx's checker and strict shape inference accept the result "
                                               "(the input itself the checker rejects: ",
                                               FirstLine(input_verdict.message()), ")");
  report.opset_after = planned.target;
  report.ir_version_after = model.ir_version();
  report.changed = true;
  for (const auto& pass : planned.passes) pass->AppendReport(report.nodes);
}

// How a session at one target ended: OK, or the failure and, when another target may avoid it, why.
struct SessionEnd {
  absl::Status status;
  std::optional<internal::TargetFailure> why;

  internal::Attempt AsAttempt() && {
    return why.has_value() ? internal::Attempt::FailedAt(std::move(status), std::move(*why))
                           : internal::Attempt(std::move(status));
  }
};

// One legalization at the planned target, in the order LegalizeImpl calls it: verification of the plan starts,
// a copy of the model (without its large initializers) is transformed, the proofs of the result start (onnx's
// checker on it), and once they hold the copy is committed into the model; or, on any failure, the model is
// rolled back as it was. Failures come in the order the steps would give one after the other: verification's
// first. With CommitAndUse, the legalized model goes to the caller's `use` while the proofs still run.
class TargetSession {
 public:
  TargetSession(onnx::ModelProto& model, PlannedPasses& planned, int64_t current, const Options& options)
      : model_(model), planned_(planned), current_(current), options_(options) {}
  TargetSession(const TargetSession&) = delete;
  TargetSession& operator=(const TargetSession&) = delete;

  // Starts verifying the plan, then waits for `input_check` (onnx's checker on the input, under way since
  // planning began): its verdict.
  absl::Status StartVerification(std::future<absl::Status>& input_check) {
    if (options_.verify) verification_.emplace(planned_.concurrent_proofs, options_);
    return input_check.get();
  }

  // Transforms a copy of the model, refuses what made a node mismatch its schema, and starts the check of the
  // result. On failure the model is rolled back.
  SessionEnd TransformCopy() {
    aside_.emplace(model_);
    result_ = model_;
    absl::StatusOr<std::vector<ValuesToCome>> transformed =
        Transform(planned_.passes, current_, planned_.target, options_, *aside_, result_, opset_move_);
    if (!transformed.ok()) {
      return RollBack(FailedStep(std::move(transformed).status(), internal::TargetFailure::Step::kTransform));
    }
    values_to_come_ = std::move(*transformed);
    if (std::optional<StepFailure> made_wrong = RefuseNewSchemaMismatches(model_, result_)) {
      return RollBack(std::move(*made_wrong));
    }
    auto arena = std::make_unique<google::protobuf::Arena>();
    onnx::ModelProto* skeleton = SkeletonToCheck(result_, *arena);
    proofs_.emplace(verification_, std::move(arena), skeleton, ProofLaunch(options_));
    return {};
  }

  // Waits for every proof, then commits the result into the model; on failure, rolls back.
  SessionEnd AwaitProofsAndCommit() {
    if (absl::Status proven = proofs_->Await(); !proven.ok()) return RollBackAfterProofs(std::move(proven));
    FillDeferred();
    Commit();
    return {};
  }

  // Commits the result into the model and hands it to `use` while the proofs still run; `use` waits for them
  // before it makes anything permanent. Where a pass's values are filled in only after verification, which reads
  // them, verification is waited for first (and its failure rolls back).
  SessionEnd CommitAndUse(const internal::UseLegalized& use) {
    if (AnyFilledAfterVerification()) {
      if (absl::Status verified = proofs_->AwaitVerification(); !verified.ok()) {
        return RollBackAfterProofs(std::move(verified));
      }
      FillDeferred();
    }
    Commit();
    DeferredTensors streamed;
    for (ValuesToCome& values : values_to_come_) streamed.merge(values.streamed);
    absl::Status used = use(model_, streamed, [this] { return proofs_->Await(); });
    if (used.ok()) used = proofs_->Await();  // in case `use` did not wait
    if (used.ok()) return {};
    // A failure of the proofs is the target's; one of `use` (writing the file) is not.
    if (proofs_->Await().ok()) return {std::move(used), std::nullopt};
    StepFailure failed = ProofFailure(std::move(used));
    return {std::move(failed.status), std::move(failed.why)};
  }

  OpsetMoveProofResult& opset_move() { return opset_move_; }

 private:
  // The model as it was (the large initializers' data back in it), and the failure: the target's, unless
  // verification fails too, whose failure comes first.
  SessionEnd RollBack(StepFailure failure) {
    absl::Status verified = verification_.has_value() ? verification_->Finish() : absl::OkStatus();
    aside_->Restore(model_);
    if (!verified.ok()) return {std::move(verified), std::nullopt};
    failure.why.target = planned_.target;
    return {std::move(failure.status), std::move(failure.why)};
  }

  // The model as it was, after the proofs (verification has ended) failed.
  SessionEnd RollBackAfterProofs(absl::Status failure) {
    aside_->Restore(model_);
    StepFailure failed = ProofFailure(std::move(failure));
    return {std::move(failed.status), std::move(failed.why)};
  }

  // The proofs' failure: verification's (which no target avoids: Attempt::FailedAt tells it by its kind), or
  // onnx's check of the result, failed at the node onnx names.
  StepFailure ProofFailure(absl::Status failure) const {
    const NodeNamedByOnnx& node = proofs_->NodeNamedByOnnxCheck();
    StepFailure failed =
        FailedStep(std::move(failure), internal::TargetFailure::Step::kOnnxCheck, node.op_type, node.name);
    failed.why.target = planned_.target;
    return failed;
  }

  // The values the passes fill in only once verification (which reads them) is over, moved into the result.
  void FillDeferred() {
    for (const ValuesToCome& values : values_to_come_) {
      if (values.after_verification) values.after_verification(result_);
    }
  }

  bool AnyFilledAfterVerification() const {
    return std::any_of(values_to_come_.begin(), values_to_come_.end(),
                       [](const ValuesToCome& values) { return static_cast<bool>(values.after_verification); });
  }

  // The result becomes the model, with the large initializers' data.
  void Commit() {
    model_.Swap(&result_);
    aside_->Restore(model_);
  }

  onnx::ModelProto& model_;
  PlannedPasses& planned_;
  const int64_t current_;
  const Options& options_;
  OpsetMoveProofResult opset_move_;
  // Declared before the verification, so that they outlive it on every path: the plan's large constants view the
  // bytes of the model's initializers (GraphScope::FindConstant), which move into `aside_` and on into `result_`'s
  // stubs, and verification reads them until it is joined.
  std::optional<LargeInitializersAside> aside_;
  onnx::ModelProto result_;
  std::optional<ConcurrentVerification> verification_;
  std::optional<Proofs> proofs_;
  std::vector<ValuesToCome> values_to_come_;  // what Transform's passes left to fill later
};

// Whether `graph` or a graph in it holds a node of the default domain.
bool HoldsDefaultDomainNode(const onnx::GraphProto& graph) {
  bool found = false;
  for (const onnx::NodeProto& node : graph.node()) {
    found = found || IsDefaultDomain(node.domain());
    ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      found = found || HoldsDefaultDomainNode(subgraph);
    });
  }
  return found;
}

// Whether `model` neither imports the default domain nor holds a node of it, in any graph or function.
bool HoldsNoDefaultDomainAtAll(const onnx::ModelProto& model) {
  for (const auto& import : model.opset_import()) {
    if (IsDefaultDomain(import.domain())) return false;
  }
  if (model.ir_version() < 3 && model.opset_import_size() == 0) return false;  // IR 1-2: opset 1 is implied
  for (const onnx::FunctionProto& function : model.functions()) {
    for (const onnx::NodeProto& node : function.node()) {
      if (IsDefaultDomain(node.domain())) return false;
    }
  }
  return !HoldsDefaultDomainNode(model.graph());
}

// Whether onnx's checker and strict shape inference accept `model` as it is.
bool AcceptedAsItIs(const onnx::ModelProto& model) {
  google::protobuf::Arena arena;
  return CheckWithOnnx(*SkeletonToCheck(model, arena)).status.ok();
}

// Legalize, in either of two orders. Without `use`, the proofs complete before the model changes, and a
// failure leaves it as it was. With `use`, the legalized model goes to `use` while they still run.
// `repairs` receives what the model's era left implicit and is written anew (era/legacy_repairs.h), so that
// Legalize can take it back when legalizing fails.
internal::Attempt LegalizeImpl(onnx::ModelProto& model, const Options& options, const internal::UseLegalized* use,
                               LegacyRepairs& repairs) {
  RETURN_IF_ERROR(ValidateOptions(options));
  Report report;
  report.ir_version_before = report.ir_version_after = model.ir_version();
  RETURN_IF_ERROR(ReadAsItsEra(model, repairs));
  report.legacy_repairs = repairs.Describe();
  report.changed = !repairs.empty();
  RETURN_IF_ERROR(ValidateGraphs(model));
  if (HoldsNoDefaultDomainAtAll(model)) {
    // An ai.onnx.ml-only model (a scikit-learn export): no removed op can be in it, it is the same at every
    // default opset, and --check finds nothing either. Nothing to do, as for any model that holds no removed op.
    if (use != nullptr) RETURN_IF_ERROR((*use)(model, {}, [] { return absl::OkStatus(); }));
    return report;
  }
  ASSIGN_OR_RETURN(const int64_t current, DefaultOpset(model));
  report.opset_before = report.opset_after = current;

  // Whether onnx's checker accepts the input, found out while the plan is made: both only read the model.
  std::future<absl::Status> input_checker_verdict =
      std::async(ProofLaunch(options), [&model] { return InputCheckerVerdict(model); });
  // A caller that only writes the result lets large folds be computed as they are written.
  ASSIGN_OR_RETURN(PlannedPasses planned,
                   PlanPasses(model, current, options, PassSettings{/*stream_large_folds=*/use != nullptr}));
  if (ChangesNothing(planned, current) && AcceptedAsItIs(model)) {
    if (use != nullptr) RETURN_IF_ERROR((*use)(model, {}, [] { return absl::OkStatus(); }));
    return report;
  }
  // Nothing to legalize, but onnx's checker rejects the model, and exit 0 must mean that it accepts the result:
  // what the IR version an opset import needs fixes is fixed at this target, what a later opset fixes at the
  // lowest target that does (TryLaterTargets goes on from a failure here), and the rest is refused.
  RETURN_IF_ERROR(PrepareAndVerify(planned, options));
  absl::Status input_verdict;
  {  // the session ends (its helper threads joined) before the report is completed
    TargetSession session(model, planned, current, options);
    input_verdict = session.StartVerification(input_checker_verdict);
    SessionEnd end = session.TransformCopy();
    if (end.status.ok()) end = use == nullptr ? session.AwaitProofsAndCommit() : session.CommitAndUse(*use);
    if (!end.status.ok()) return std::move(end).AsAttempt();
    report.opset_move = std::move(session.opset_move().text);
    report.opset_move_proof = std::move(session.opset_move().proof);
  }
  CompleteReport(model, planned, input_verdict, report);
  return report;
}

}  // namespace

absl::StatusOr<Report> Legalize(onnx::ModelProto& model, const Options& options) {
  return internal::TryLaterTargets(options, [&model](const Options& at) {
    LegacyRepairs repairs;
    internal::Attempt attempt = LegalizeImpl(model, at, nullptr, repairs);
    if (!attempt.report.ok()) repairs.Undo();  // the rest of a failure leaves the model as the repairs made it
    return attempt;
  });
}

namespace internal {

namespace {

// The lowest default opset above `opset`, up to kMaxTargetOpset, at which onnx defines `op_type` anew, or 0:
// where onnx failed a node of that op at `opset`, the target worth trying next (Constant takes strings from 9,
// which the label Constants of OnnxMLTools' opset-7 classifiers hold).
int64_t NextSchemaOf(const std::string& op_type, int64_t opset) {
  if (op_type.empty()) return 0;
  const onnx::OpSchema* at = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(opset), "");
  for (int64_t version = opset + 1; version <= kMaxTargetOpset; ++version) {
    const onnx::OpSchema* later = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(version), "");
    if (later != nullptr && (at == nullptr || later->since_version() > at->since_version())) return version;
  }
  return 0;
}

// Where onnx's check failed a node of an op that a later opset defines anew, that opset (the target worth trying
// next); otherwise 0.
int64_t OpsetRedefiningTheFailedOp(const TargetFailure& failure) {
  if (failure.step != TargetFailure::Step::kOnnxCheck) return 0;
  return NextSchemaOf(failure.op_type, failure.target);
}

}  // namespace

bool TargetFailure::SameReasonAs(const TargetFailure& other) const {
  return std::tie(step, code, op_type, node, graph) ==
         std::tie(other.step, other.code, other.op_type, other.node, other.graph);
}

Attempt Attempt::FailedAt(absl::Status failure, TargetFailure why) {
  Attempt attempt(std::move(failure));
  if (!IsVerificationFailure(attempt.report.status())) attempt.failed_at_target = std::move(why);
  return attempt;
}

absl::StatusOr<Report> TryLaterTargets(const Options& options, const std::function<Attempt(const Options&)>& attempt) {
  const Attempt first = attempt(options);
  if (first.report.ok() || options.target_opset.has_value() || options.keep_opset) return first.report;
  std::vector<PassedOverTarget> passed_over;
  std::optional<TargetFailure> previous;
  Attempt last = first;
  Options later = options;
  while (!last.report.ok()) {
    if (!last.failed_at_target.has_value() || last.failed_at_target->target >= kMaxTargetOpset) return first.report;
    const TargetFailure failure = *last.failed_at_target;
    passed_over.push_back({failure.target, FirstLine(last.report.status().message())});
    // Where onnx failed a node whose op a later opset defines anew, that opset is tried next.
    const int64_t redefined_at = OpsetRedefiningTheFailedOp(failure);
    // Otherwise a reason that comes back at the next target the same is the model's, not the target's: stop there
    // rather than try every opset up to 17 (a hopeless model is refused in two tries).
    if (redefined_at == 0 && previous.has_value() && previous->SameReasonAs(failure)) return first.report;
    previous = failure;
    later.target_opset = redefined_at > 0 ? redefined_at : failure.target + 1;
    last = attempt(later);
  }
  last.report->targets_passed_over = std::move(passed_over);
  return std::move(last.report);
}

Attempt LegalizeAndUse(onnx::ModelProto& model, const Options& options, const UseLegalized& use) {
  LegacyRepairs repairs;  // the caller discards the model when this fails: nothing to take back
  return LegalizeImpl(model, options, &use, repairs);
}

}  // namespace internal
}  // namespace onnx_legalize
