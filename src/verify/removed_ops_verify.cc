// VerifyRemovedOps: each change proved by two independent computations. The replacement (as ApplyRemovedOps
// will write it at the target opset) runs in the library's evaluator; the rule's reference kernel, written
// from the old operator's spec, computes the removed op. Folds compare on the node's constants; rewrites
// on seeded trials whose data mixes +-0, +-inf, NaN, denormals and magnitudes past 1e30.
#include <cmath>
#include <cstring>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/float16.h"
#include "core/status_macros.h"
#include "eval/evaluator.h"
#include "rules/removed_op_plan.h"
#include "verify/dynamic_slice_verify.h"
#include "verify/removed_ops_verify.h"

namespace onnx_legalize {
namespace {

// Names for a replacement built only to be evaluated: they need only be distinct from the node's own.
class TrialNames final : public NameSource {
 public:
  std::string Fresh(const std::string& base) override { return absl::StrCat(base, "#", next_++); }

 private:
  int next_ = 0;
};

// Distance in units in the last place between two floats of one type, for finite values of one sign
// (monotonic bit patterns); -1 when they cannot be compared so (NaN against a number, different infinities).
template <typename T, typename Bits>
int64_t UlpDistance(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : -1;
  if (a == b) return 0;
  if (std::isinf(a) || std::isinf(b)) return -1;
  auto ordered = [](T v) {
    Bits bits;
    std::memcpy(&bits, &v, sizeof(v));
    using Signed = std::make_signed_t<Bits>;
    const Signed s = static_cast<Signed>(bits);
    return s < 0 ? static_cast<int64_t>(std::numeric_limits<Signed>::min() - s) : static_cast<int64_t>(s);
  };
  const int64_t da = ordered(a), db = ordered(b);
  return da > db ? da - db : db - da;
}

// The same for float16, given its bits.
int64_t Float16UlpDistance(uint16_t a, uint16_t b) {
  const float fa = Float16ToFloat(a), fb = Float16ToFloat(b);
  if (std::isnan(fa) || std::isnan(fb)) return std::isnan(fa) && std::isnan(fb) ? 0 : -1;
  if (fa == fb) return 0;
  if (std::isinf(fa) || std::isinf(fb)) return -1;
  auto ordered = [](uint16_t bits) {
    return (bits & 0x8000u) != 0 ? -static_cast<int64_t>(bits & 0x7fffu) : static_cast<int64_t>(bits);
  };
  const int64_t da = ordered(a), db = ordered(b);
  return da > db ? da - db : db - da;
}

// Whether `actual` matches `expected` bit for bit, but that a NaN matches any NaN, since IEEE 754 leaves the sign
// and payload of a NaN that arithmetic produces to the implementation (compilers and runtimes order the same
// operations differently). "" when it does, else what differs, and by how many ULPs.
std::string Mismatch(const Tensor& expected, const Tensor& actual) {
  if (expected.BitwiseEquals(actual)) return "";
  if (expected.type() != actual.type() || expected.dims() != actual.dims()) {
    return absl::StrCat("the reference gives ", DataTypeName(expected.type()), "[", absl::StrJoin(expected.dims(), ","),
                        "], the replacement ", DataTypeName(actual.type()), "[", absl::StrJoin(actual.dims(), ","),
                        "]");
  }
  const bool is_float = expected.type() == onnx::TensorProto::FLOAT;
  const bool is_double = expected.type() == onnx::TensorProto::DOUBLE;
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    int64_t distance = -1;
    bool both_nan = false;
    std::string values;
    if (is_float) {
      float a, b;
      std::memcpy(&a, expected.bytes().data() + 4 * i, 4);
      std::memcpy(&b, actual.bytes().data() + 4 * i, 4);
      distance = UlpDistance<float, uint32_t>(a, b);
      both_nan = std::isnan(a) && std::isnan(b);
      values = absl::StrCat(a, " against ", b);
    } else if (is_double) {
      double a, b;
      std::memcpy(&a, expected.bytes().data() + 8 * i, 8);
      std::memcpy(&b, actual.bytes().data() + 8 * i, 8);
      distance = UlpDistance<double, uint64_t>(a, b);
      both_nan = std::isnan(a) && std::isnan(b);
      values = absl::StrCat(a, " against ", b);
    } else if (expected.type() == onnx::TensorProto::FLOAT16) {
      uint16_t a_bits, b_bits;
      std::memcpy(&a_bits, expected.bytes().data() + 2 * i, 2);
      std::memcpy(&b_bits, actual.bytes().data() + 2 * i, 2);
      const float a = Float16ToFloat(a_bits), b = Float16ToFloat(b_bits);
      both_nan = std::isnan(a) && std::isnan(b);
      distance = Float16UlpDistance(a_bits, b_bits);
      values = absl::StrCat(a, " against ", b);
    } else {
      return "the bytes differ";
    }
    if (both_nan) continue;
    const bool bitwise = distance == 0 && std::memcmp(expected.bytes().data() + i * ElementSize(expected.type()),
                                                      actual.bytes().data() + i * ElementSize(expected.type()),
                                                      static_cast<size_t>(ElementSize(expected.type()))) == 0;
    if (bitwise) continue;
    return absl::StrCat("element ", i, ": the reference gives ", values, " from the replacement (",
                        distance < 0 ? std::string("not comparable") : absl::StrCat(distance, " ULPs apart"),
                        ", bit for bit required)");
  }
  return "";
}

// The replacement at `opset`, run on `inputs` (by the node's input order; empty tensors for omitted ones).
absl::StatusOr<std::vector<Tensor>> RunReplacement(const RemovedOpChange& change, const ParsedNode& node, int64_t opset,
                                                   std::vector<const Tensor*> inputs) {
  TrialNames names;
  std::string became;
  ASSIGN_OR_RETURN(Replacement replacement, change.rule->Replace(node, opset, names, became));
  std::map<std::string, Tensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr && !change.node.input(static_cast<int>(i)).empty()) {
      values.insert_or_assign(change.node.input(static_cast<int>(i)), inputs[i]->Clone());
    }
  }
  for (auto& [name, value] : replacement.constants) values.insert_or_assign(name, std::move(value));
  RETURN_IF_ERROR(RunNodes(replacement.nodes, opset, values));
  std::vector<Tensor> outputs;
  for (const std::string& output : change.node.output()) {
    auto value = values.find(output);
    if (value == values.end())
      return absl::InternalError(absl::StrCat("the replacement does not define '", output, "'"));
    outputs.push_back(std::move(value->second));
  }
  return outputs;
}

std::string Describe(const std::vector<Tensor>& inputs) {
  std::vector<std::string> parts;
  parts.reserve(inputs.size());
  for (const Tensor& input : inputs) {
    parts.push_back(absl::StrCat(DataTypeName(input.type()), "[", absl::StrJoin(input.dims(), ","), "]"));
  }
  return absl::StrJoin(parts, ", ");
}

// A verification failure, marked as such for IsVerificationFailure (the CLI's exit 4).
absl::Status Failed(const RuleNode& node, absl::string_view what) {
  return VerificationFailure(node.label, absl::StrCat(node.label, ": ", what));
}

absl::Status VerifyFold(RemovedOpChange& change, const ParsedNode& node, int64_t opset) {
  std::vector<const Tensor*> inputs;
  for (const RuleInput& input : change.inputs) inputs.push_back(input.constant);
  // A fill folded from an input's static shape reads no values: zeros of that shape stand in for it.
  std::vector<Tensor> shapes;
  shapes.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr || change.inputs[i].name.empty()) continue;
    const DataType type =
        change.inputs[i].type.elem_type != 0 ? change.inputs[i].type.elem_type : onnx::TensorProto::FLOAT;
    ASSIGN_OR_RETURN(Tensor zeros, Tensor::Zeros(type, change.inputs[i].type.dims.value_or(std::vector<int64_t>{})));
    shapes.push_back(std::move(zeros));
    inputs[i] = &shapes.back();
  }
  absl::StatusOr<std::vector<Tensor>> replacement = RunReplacement(change, node, opset, inputs);
  if (!replacement.ok())
    return Failed(node, absl::StrCat("the replacement fails on the constants: ", replacement.status().message()));
  for (size_t i = 0; i < change.folded.size(); ++i) {
    const std::string mismatch = Mismatch(change.folded[i], (*replacement)[i]);
    if (!mismatch.empty()) return Failed(node, absl::StrCat("the fold and the replacement differ: ", mismatch));
  }
  change.verification = "fold recomputed by the replacement (bit for bit)";
  return absl::OkStatus();
}

absl::Status VerifyRewrite(RemovedOpChange& change, const ParsedNode& node, int64_t opset, const Options& options) {
  const std::string where =
      absl::StrCat(change.graph_path, "/", change.node.output_size() > 0 ? change.node.output(0) : "");
  TrialRandom random(options.verify_seed ^ std::hash<std::string>()(where));
  int compared = 0, refused_by_original = 0;
  for (int trial = 0; trial < options.verify_trials; ++trial) {
    ASSIGN_OR_RETURN(std::vector<Tensor> inputs, change.rule->TrialInputs(node, random));
    std::vector<const Tensor*> pointers;
    pointers.reserve(inputs.size());
    for (const Tensor& input : inputs) pointers.push_back(&input);
    absl::StatusOr<std::vector<Tensor>> original = change.rule->Reference(node, pointers);
    if (!original.ok()) {
      // The old op refuses these inputs (Crop's window outside the image): no model ever produced a value
      // here for the replacement to keep.
      ++refused_by_original;
      continue;
    }
    absl::StatusOr<std::vector<Tensor>> replacement = RunReplacement(change, node, opset, pointers);
    if (!replacement.ok()) {
      return Failed(
          node, absl::StrCat("trial ", trial, " on ", Describe(inputs),
                             ": the old op gives a value, the replacement fails: ", replacement.status().message()));
    }
    for (size_t i = 0; i < original->size(); ++i) {
      const std::string mismatch = Mismatch((*original)[i], (*replacement)[i]);
      if (!mismatch.empty()) {
        return Failed(node, absl::StrCat("trial ", trial, " on ", Describe(inputs), ": ", mismatch));
      }
    }
    ++compared;
  }
  if (compared == 0) {
    return Failed(node,
                  absl::StrCat("the old op refused all ", options.verify_trials, " trials; nothing was compared"));
  }
  change.verification = absl::StrCat(
      compared, " seeded trials, replacement against the old op's reference (bit for bit)",
      refused_by_original > 0 ? absl::StrCat("; ", refused_by_original, " inputs the old op refuses skipped") : "");
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyRemovedOps(RemovedOpPlan& plan, int64_t target, const Options& options) {
  for (RemovedOpChange& change : plan.changes) {
    const ParsedNode node = change.AsParsedNode();
    if (!options.verify) {
      change.verification = kVerificationSkipped;
      continue;
    }
    if (change.action == Action::kFolded) {
      // A fold is checked against the replacement the rule would write, at the lowest opset that has it.
      RETURN_IF_ERROR(VerifyFold(change, node, std::max(target, change.min_opset)));
    } else {
      RETURN_IF_ERROR(VerifyRewrite(change, node, target, options));
    }
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize
