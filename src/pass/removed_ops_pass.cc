// RemovedOpPlanner: decides Fold | Rewrite for each removed op with its rule, and refuses what no one can
// legalize.
#include "pass/removed_ops_pass.h"
#include "check/check_model.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "graph/graph_scope.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx_legalize/findings.h"
#include "rules/registry.h"

namespace onnx_legalize {
namespace {

// Nodes no one can legalize, as CheckModel finds them: named together in one refusal.
absl::Status RefuseWhatCannotBeLegalized(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(const std::vector<CheckFinding> findings, CheckModelNodes(model, /*validate=*/false));
  std::vector<std::string> refused;
  for (const CheckFinding& finding : findings) {
    if (finding.fixable || finding.opset == 0) continue;  // no import: no schema to judge by (see report/check.cc)
    if (finding.mismatches_schema) continue;              // an op that exists, written wrong: passed through as it is
    refused.push_back(absl::StrCat(finding.op_type, finding.node_name.empty() ? "" : " '", finding.node_name,
                                   finding.node_name.empty() ? "" : "'", " (graph ", finding.graph_path,
                                   "): ", finding.reason));
  }
  if (refused.empty()) return absl::OkStatus();
  // Nodes named alike (unnamed nodes of one op, say: 67 Debug nodes of a Windows ML sample) are said once, counted.
  std::vector<std::pair<std::string, int>> said;  // in the order first said
  std::unordered_map<std::string, size_t> index_of;
  for (const std::string& line : refused) {
    auto [found, added] = index_of.emplace(line, said.size());
    if (added) {
      said.emplace_back(line, 1);
    } else {
      ++said[found->second].second;
    }
  }
  std::vector<std::string> lines;
  lines.reserve(said.size());
  for (const auto& [line, count] : said)
    lines.push_back(count == 1 ? line : absl::StrCat(line, " (", count, " nodes)"));
  return absl::FailedPreconditionError(
      absl::StrCat("the model holds ", refused.size(), refused.size() == 1 ? " node" : " nodes",
                   " that cannot be legalized (no schema at the model's opset, and no rule to replace it): ",
                   absl::StrJoin(lines, "; ")));
}

}  // namespace

absl::StatusOr<RemovedOpPlanner> RemovedOpPlanner::Start(const onnx::ModelProto& model, const Options& options,
                                                         FoldBudget& budget, RemovedOpPlan& plan) {
  RETURN_IF_ERROR(RefuseWhatCannotBeLegalized(model));
  ASSIGN_OR_RETURN(const int64_t opset, DefaultOpset(model));
  return RemovedOpPlanner(options, opset, budget, plan);
}

absl::Status RemovedOpPlanner::Visit(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) {
  const RemovedOpRule* rule = FindRemovedOpRule(node, opset_);
  return rule == nullptr ? absl::OkStatus() : PlanNode(node, *rule, scope, locator);
}

absl::Status RemovedOpPlanner::PlanNode(const onnx::NodeProto& node, const RemovedOpRule& rule, GraphScope& scope,
                                        const GraphLocator& locator) {
  RemovedOpChange change;
  change.graph = locator;
  change.graph_path = scope.path();
  change.node = node;
  change.rule = &rule;
  change.opset = opset_;
  for (const std::string& name : node.input()) {
    RuleInput input;
    input.name = name;
    if (!name.empty()) {
      input.type = TypeOf(name, scope);
      ASSIGN_OR_RETURN(const Tensor* constant, scope.FindConstant(name));
      if (constant != nullptr) {
        // Owned by the change: the model's tensors move while it is transformed.
        change.owned.push_back(std::make_unique<Tensor>(constant->Clone()));
        input.constant = change.owned.back().get();
        input.type = ValueType{constant->type(), constant->dims()};
      }
    }
    change.inputs.push_back(std::move(input));
  }
  const RuleNode rule_node = change.AsRuleNode();
  ASSIGN_OR_RETURN(change.attributes, rule.Parse(rule_node));
  // A view of the change: used only before the change moves into the plan.
  const ParsedNode parsed = change.AsParsedNode();
  ASSIGN_OR_RETURN(change.min_opset, rule.MinOpset(parsed));

  if (const std::optional<int64_t> bytes = rule.FoldedBytes(parsed); bytes.has_value()) {
    if (*bytes > options_.max_fold_bytes || !budget_->Fits(*bytes)) {
      change.detail = absl::StrCat("its inputs are constant, but a fold of ", *bytes, " bytes passes the fold limits");
    } else {
      // Null for an input that is not constant: a fill that folds reads only its static shape.
      std::vector<const Tensor*> inputs;
      for (const RuleInput& input : change.inputs) {
        inputs.push_back(input.constant);
      }
      ASSIGN_OR_RETURN(change.folded, rule.Reference(parsed, inputs));
      int64_t folded = 0;
      for (const Tensor& value : change.folded) folded += static_cast<int64_t>(value.bytes().size());
      if (folded > options_.max_fold_bytes || !budget_->Fits(folded)) {
        return absl::ResourceExhaustedError(
            absl::StrCat(rule_node.label, ": its value has ", folded, " bytes, past the fold limits (max_fold_bytes ",
                         options_.max_fold_bytes, ", max_total_fold_bytes ", options_.max_total_fold_bytes, ")"));
      }
      budget_->Spend(folded);
      change.action = Action::kFolded;
      change.became = "initializer";
      change.detail = "its value is known while planning";
      for (size_t i = 0; i < change.folded.size(); ++i) {
        auto value = std::make_shared<Tensor>(change.folded[i].Clone());
        planned_types_[node.output(static_cast<int>(i))] = ValueType{value->type(), value->dims()};
        scope.AddConstant(node.output(static_cast<int>(i)), std::move(value));
      }
      plan_->changes.push_back(std::move(change));
      return absl::OkStatus();
    }
  }
  if (change.detail.empty()) change.detail = "its input is computed at run time";
  change.action = Action::kRewritten;
  // Later removed ops that read this one's output learn its type here: onnx's inference has no schema
  // for it.
  if (node.output_size() == 1) planned_types_[node.output(0)] = rule.OutputType(rule_node);
  plan_->changes.push_back(std::move(change));
  return absl::OkStatus();
}

ValueType RemovedOpPlanner::TypeOf(const std::string& name, const GraphScope& scope) const {
  auto planned = planned_types_.find(name);
  return planned != planned_types_.end() ? planned->second : scope.FindType(name);
}

const PassThroughOps& RemovedOpsPassThrough() {
  static const PassThroughOps* const pass_through = new PassThroughOps{
      [](const onnx::NodeProto& node, int64_t opset) { return FindRemovedOpRule(node, opset) != nullptr; },
      [](const onnx::NodeProto& node) { return IsRankKeepingRemovedOp(node); }};
  return *pass_through;
}

int64_t MinOpsetForRemovedOps(const RemovedOpPlan& plan) {
  int64_t needed = 0;
  for (const RemovedOpChange& change : plan.changes) {
    if (change.action == Action::kRewritten) needed = std::max(needed, change.min_opset);
  }
  return needed;
}

}  // namespace onnx_legalize
