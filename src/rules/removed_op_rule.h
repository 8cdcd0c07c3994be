// A removed op's rule: how one experimental op that ONNX 1.5 removed (ImageScaler, Crop, Affine, ...) is
// recognized, checked against its old spec, replaced by standard ops, and computed for verification.
//
// Each rule is one file in rules/ and one line in the registry (registry.cc). The pass (pass/removed_ops_pass.h)
// walks the model, asks the rule of each removed node for the lowest opset its replacement needs, folds the
// node when its inputs are constants (with the rule's reference kernel), and otherwise writes the
// replacement at the target opset. Verification runs the replacement with the library's evaluator
// (eval/evaluator.h) against the rule's reference kernel, which is written from the old operator's text and
// what ONNX Runtime computed, and shares no code with the evaluator.
#ifndef ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_RULE_H_
#define ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_RULE_H_

#include <cstdint>
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
  // Uniform in [low, high].
  int64_t Uniform(int64_t low, int64_t high);

 private:
  Mt19937_64 rng_;
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

  // Checks the node against the old spec (inputs, outputs, attributes, what is known of types) and returns
  // the lowest default opset its replacement can be written at. InvalidArgument for what the old spec
  // does not allow, FailedPrecondition for what cannot be expressed; messages start with the node's label.
  virtual absl::StatusOr<int64_t> MinOpset(const RuleNode& node) const = 0;

  // What is known of the node's (first) output type, for removed ops that read it: onnx's shape inference
  // has no schema for the node. The default: its first input's type (the elementwise ops keep it).
  virtual ValueType OutputType(const RuleNode& node) const {
    return node.inputs.empty() ? ValueType{} : node.inputs[0].type;
  }

  // True when the output has the first input's element type and rank (all but the fills): onnx's tools
  // then see the node as a stand-in that says so, and shape inference goes on past it.
  virtual bool KeepsRank() const { return true; }

  // True when the node's value is known while planning, so the pass folds it: by default when every input
  // it has is a constant (the fill ops also when only their input's static shape matters).
  virtual bool CanFold(const RuleNode& node) const;

  // At least the bytes a fold of the node would hold, known before it is computed, so that a fold past the
  // limits is never allocated. The default: its largest constant input (the elementwise ops and Crop make
  // no more than they read). Saturates at INT64_MAX.
  virtual int64_t FoldedBytesBound(const RuleNode& node) const;

  // The replacement at default opset `opset` (>= MinOpset). What it became, in a few words, goes to
  // `became` ("Mul + Add").
  virtual absl::StatusOr<Replacement> Replace(const RuleNode& node, int64_t opset, NameSource& names,
                                              std::string& became) const = 0;

  // The removed op's value for `inputs` (null for an omitted one), computed from its old spec alone.
  virtual absl::StatusOr<std::vector<Tensor>> Reference(const RuleNode& node,
                                                        const std::vector<const Tensor*>& inputs) const = 0;

  // How far the replacement's results may be from the reference's, in units in the last place of the
  // element type; 0 means bit for bit. Non-zero only where the replacement cannot do the same operations
  // in the same order, with the reason at the rule.
  virtual int64_t MaxUlp() const { return 0; }

  // The inputs of verification trial `number`: the node's constant inputs as they are, the others drawn.
  // The default draws input 0 as SpecialFloats of its known type and dims (unknown dims small, unknown
  // rank TrialRank()).
  virtual absl::StatusOr<std::vector<Tensor>> TrialInputs(const RuleNode& node, TrialRandom& random) const;

  // The rank given to trial data whose rank is not known.
  virtual int64_t TrialRank() const { return 4; }
  // Adjusts the dims of trial data to what the node needs (ImageScaler's channels, Crop's borders).
  virtual void AdjustTrialDims(const RuleNode& node, std::vector<int64_t>& dims) const {
    (void)node;
    (void)dims;
  }
  // Values near which the op's result changes, for trial data (ThresholdedRelu's alpha).
  virtual std::vector<double> TrialPivots(const RuleNode& node) const {
    (void)node;
    return {};
  }
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_RULE_H_
