// A removed op's rule: how one experimental op that ONNX 1.5 removed (ImageScaler, Crop, Affine, ...) is
// recognized, checked against its old spec, replaced by standard ops, and computed for verification.
//
// Each rule is one file in rules/ and one line in the registry (registry.cc). The pass (pass/removed_ops_pass.h)
// walks the model and has the rule of each removed node parse it once (its attributes, checked against the
// old spec, into the rule's own struct, which the plan keeps for every later step), asks it for the lowest
// opset its replacement needs, folds the node when its value is known while planning (FoldedBytes; with the
// rule's reference kernel), and otherwise writes the replacement at the target opset. Verification runs the replacement
// with the library's evaluator (eval/evaluator.h) against the rule's reference kernel, which is written from the old
// operator's text and what ONNX Runtime computed, and shares no code with the evaluator.
#ifndef ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_RULE_H_
#define ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_RULE_H_

#include <any>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "eval/mt19937_64.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// What the pass knows of one input of a removed node.
struct RuleInput {
  std::string name;                  // "" when omitted
  ValueType type;                    // what is known of its element type and dims
  const Tensor* constant = nullptr;  // its value when it is a constant
};

// A removed node as its rule sees it.
struct RuleNode {
  const onnx::NodeProto* node = nullptr;
  std::string label;  // "ImageScaler 'scale0' (graph main)": how messages name it
  int64_t opset = 0;  // the default-domain opset the node's model (or function) imports
  std::vector<RuleInput> inputs;
};

// Standard nodes that compute a removed node's outputs (under the same names) from its inputs.
struct Replacement {
  std::vector<onnx::NodeProto> nodes;  // in execution order
  // Values the nodes read besides the removed node's inputs, by name: they become initializers (Constant
  // nodes where an initializer cannot be declared).
  std::vector<std::pair<std::string, Tensor>> constants;
};

// Makes names for the values a replacement adds; each is new to the model.
class NameSource {
 public:
  virtual ~NameSource() = default;
  virtual std::string Fresh(const std::string& base) = 0;
};

// Inputs of one verification trial, drawn by the pass's generator.
class TrialRandom {
 public:
  explicit TrialRandom(uint64_t seed) : rng_(seed) {}
  // A tensor of `type` (float16, float or double) and `dims` whose values mix ordinary numbers with +-0, +-inf, NaN,
  // denormals and magnitudes past 1e30, and values within a few ULPs of each of `pivots` (thresholds
  // where an op's result changes).
  absl::StatusOr<Tensor> SpecialFloats(DataType type, const std::vector<int64_t>& dims,
                                       const std::vector<double>& pivots = {});
  // A tensor of `type` (float16, float or double) and `dims` of ordinary numbers only: finite, normal, of
  // either sign, magnitudes between 1/32 and 2 with random mantissas, as a network's (normalized) input holds.
  // Through a deep network they stay numbers, where special values would turn every output to NaN.
  absl::StatusOr<Tensor> OrdinaryFloats(DataType type, const std::vector<int64_t>& dims);
  // Uniform in [low, high].
  int64_t Uniform(int64_t low, int64_t high);

 private:
  // (0.5 + a random 20-bit mantissa) * 2^e with e in [min_exponent, max_exponent], of either sign.
  double OrdinaryValue(int min_exponent, int max_exponent);

  Mt19937_64 rng_;
};

// A removed node with what its rule parsed from it (RemovedOpRule::Parse): the rule's own attributes struct,
// read and checked once and handed to every method after. A view: the struct lives with whoever parsed the
// node (the plan's change, the model runner's call), and must outlive it.
struct ParsedNode : RuleNode {
  const std::any* parsed = nullptr;

  // The rule's attributes struct. Only the rule that parsed the node asks, for the type its Parse returned.
  template <typename Attributes>
  const Attributes& attributes() const {
    return std::any_cast<const Attributes&>(*parsed);
  }
};

class RemovedOpRule {
 public:
  virtual ~RemovedOpRule() = default;

  // The op type, and its domain: "" (the default) for every op ONNX removed; another for a vendor's op of
  // that era that no runtime of today runs (com.microsoft's LegacyPadding).
  virtual const char* op_type() const = 0;
  virtual const char* domain() const { return ""; }

  // True when a node of this op type, in a model importing default opset `opset`, is the removed op
  // (ThresholdedRelu was experimental only before opset 10; MeanVarianceNormalization-1 is the one below 9
  // or one still written with its old attributes).
  virtual bool IsRemovedAt(const onnx::NodeProto& node, int64_t opset) const {
    (void)node;
    (void)opset;
    return true;
  }

  // True when the output has the first input's element type and rank (all but the fills): onnx's tools
  // then see the node as a stand-in that says so, and shape inference goes on past it.
  virtual bool KeepsRank() const { return true; }

  // What is known of the node's (first) output type, for removed ops that read it: onnx's shape inference
  // has no schema for the node. The default: its first input's type (the elementwise ops keep it). Asked of
  // nodes not yet planned (the whole model is typed before any node is planned), but only of nodes Parse
  // accepts: it may read every input and attribute the rule's signature promises, and what their types leave
  // unknown it leaves unknown.
  virtual ValueType OutputType(const RuleNode& node) const {
    return node.inputs.empty() ? ValueType{} : node.inputs[0].type;
  }

  // Checks what the node says against the old spec (its signature, its attributes, and what they are
  // checked against) and returns the rule's own struct of its attributes, which every method below reads
  // through ParsedNode::attributes. InvalidArgument for what the old spec does not allow, FailedPrecondition
  // for what cannot be expressed; messages start with the node's label.
  virtual absl::StatusOr<std::any> Parse(const RuleNode& node) const = 0;

  // Checks the node's inputs (what is known of their types) against the old spec, as Parse does its
  // attributes, and returns the lowest default opset its replacement can be written at.
  virtual absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const = 0;

  // Nullopt when the node's value is not known while planning (the pass rewrites it); otherwise at least the
  // bytes its fold holds, saturating at INT64_MAX: known before the fold is computed, so that one past the
  // limits is never allocated (the pass rewrites that node too). The default: nullopt unless every input the
  // node has is a constant, and then its largest constant input (the elementwise ops and Crop make no more
  // than they read). The fill ops fold also when only their input's static shape matters.
  virtual std::optional<int64_t> FoldedBytes(const ParsedNode& node) const;

  // The replacement at default opset `opset` (>= MinOpset). What it became, in a few words, goes to
  // `became` ("Mul + Add"). Verification requires it to compute the reference's values bit for bit.
  virtual absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                              std::string& became) const = 0;

  // The removed op's value for `inputs` (null for an omitted one), computed from its old spec alone.
  virtual absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                        const std::vector<const Tensor*>& inputs) const = 0;

  // The inputs of one verification trial: the node's constant inputs as they are, the others drawn.
  // The default: DrawTrialInputs (rule_support.h) near TrialPivots; a rule whose data must have some shape
  // (ImageScaler's channels, Crop's borders) or other values draws its own.
  virtual absl::StatusOr<std::vector<Tensor>> TrialInputs(const ParsedNode& node, TrialRandom& random) const;

  // Values near which the op's result changes, for trial data (ThresholdedRelu's alpha): the default trial
  // draws floats near them, and so does the float16 one (rules/float16_in_float.h).
  virtual std::vector<double> TrialPivots(const ParsedNode& node) const {
    (void)node;
    return {};
  }
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_RULE_H_
