// VerifyRemovedOps: a replacement that does not compute what the old op did is caught, on folds and on
// rewrites, as a verification failure (the CLI's exit 4); one that does passes with a stated proof.
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "rules/registry.h"
#include "rules/removed_op_plan.h"
#include "rules/rule_support.h"
#include "verify/removed_ops_verify.h"

namespace onnx_legalize {
namespace {

using ::testing::HasSubstr;

// Affine's reference with a replacement that forgets beta: y = Mul(x, alpha).
class AffineWithoutBeta final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "Affine"; }
  absl::StatusOr<std::any> Parse(const RuleNode&) const override { return std::any(); }
  absl::StatusOr<int64_t> MinOpset(const ParsedNode&) const override { return 7; }
  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t, NameSource& names,
                                      std::string& became) const override {
    Replacement replacement;
    const std::string alpha = names.Fresh("alpha");
    replacement.constants.emplace_back(alpha, rules::Filled(onnx::TensorProto::FLOAT, {}, 2.0));
    replacement.nodes.push_back(rules::MakeNode("Mul", {node.node->input(0), alpha}, {node.node->output(0)}));
    became = "Mul";
    return replacement;
  }
  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    std::vector<float> values = rules::FloatsOf(*inputs[0]);
    for (float& v : values) v = 2.0f * v + 0.5f;
    std::vector<Tensor> result;
    result.push_back(rules::FromFloats(inputs[0]->dims(), values));
    (void)node;
    return result;
  }
};

RemovedOpChange AffineChange(const RemovedOpRule& rule, const Tensor* constant) {
  RemovedOpChange change;
  change.graph_path = "main";
  change.node.set_op_type("Affine");
  change.node.set_name("affine");
  change.node.add_input("x");
  change.node.add_output("y");
  change.rule = &rule;
  change.opset = 7;
  RuleInput input;
  input.name = "x";
  input.type.elem_type = onnx::TensorProto::FLOAT;
  input.type.dims = std::vector<int64_t>{2, 3};
  input.constant = constant;
  change.inputs.push_back(input);
  change.min_opset = 7;
  return change;
}

TEST(RemovedOpsVerifyTest, CatchesARewriteThatDiffersFromTheOldOp) {
  AffineWithoutBeta rule;
  RemovedOpPlan plan;
  plan.changes.push_back(AffineChange(rule, nullptr));
  const absl::Status status = VerifyRemovedOps(plan, 7, Options{});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(IsVerificationFailure(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("verification failed: Affine 'affine' (graph main)"));
}

TEST(RemovedOpsVerifyTest, CatchesAFoldThatDiffersFromItsReplacement) {
  AffineWithoutBeta rule;
  const Tensor x = rules::FromFloats({2, 3}, {1, 2, 3, 4, 5, 6});
  RemovedOpPlan plan;
  RemovedOpChange change = AffineChange(rule, &x);
  change.action = Action::kFolded;
  const std::vector<const Tensor*> inputs = {&x};
  change.folded = rule.Reference(change.AsParsedNode(), inputs).value();
  plan.changes.push_back(std::move(change));
  const absl::Status status = VerifyRemovedOps(plan, 7, Options{});
  EXPECT_TRUE(IsVerificationFailure(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("the fold and the replacement differ"));
}

TEST(RemovedOpsVerifyTest, PassesTheRealRuleAndSaysWhatItProved) {
  onnx::NodeProto node;
  node.set_op_type("Affine");
  const RemovedOpRule* rule = FindRemovedOpRule(node, 7);
  ASSERT_NE(rule, nullptr);
  RemovedOpPlan plan;
  RemovedOpChange change = AffineChange(*rule, nullptr);
  change.attributes = rule->Parse(change.AsRuleNode()).value();
  plan.changes.push_back(std::move(change));
  ASSERT_TRUE(VerifyRemovedOps(plan, 7, Options{}).ok());
  EXPECT_THAT(plan.changes[0].verification, HasSubstr("8 seeded trials"));
  EXPECT_THAT(plan.changes[0].verification, HasSubstr("bit for bit"));
}

TEST(RemovedOpsVerifyTest, SkipsWhenVerificationIsOff) {
  AffineWithoutBeta rule;
  RemovedOpPlan plan;
  plan.changes.push_back(AffineChange(rule, nullptr));
  Options options;
  options.verify = false;
  ASSERT_TRUE(VerifyRemovedOps(plan, 7, options).ok());
  EXPECT_THAT(plan.changes[0].verification, HasSubstr("skipped"));
}

}  // namespace
}  // namespace onnx_legalize
