// TreeEnsembleRegressor and TreeEnsembleClassifier (ai.onnx.ml-1 and -3): skl2onnx's, onnxmltools' and
// WinMLTools' random forests and boosted trees. Each row of X walks every tree to a leaf (tree_forest.h) and the
// leaves' weights are added up per target or class, then finished as ONNX Runtime 1.31 finishes them on one thread:
//   - the sums are kept as the thresholds are (float, or double for double X), added in tree order from 0;
//   - a target or class no leaf reached is written 0, whatever its base value;
//   - AVERAGE divides by the number of trees before the base value is added;
//   - post_transform is computed in float with the C library's expf, logf and sqrtf: LOGISTIC, SOFTMAX,
//     SOFTMAX_ZERO and PROBIT (Winitzki's approximation of erfinv, as ONNX Runtime has it).
// Where ONNX Runtime computes what the op's text does not say, the node is refused (Unimplemented) instead of
// computed either way: a regressor of one target or a classifier of one label with LOGISTIC or a SOFTMAX (ONNX
// Runtime leaves it out), a classifier of one label (its label is written as 0 or 1), of two labels whose weights
// name both classes (the same) or with two base values, and a binary classifier with a SOFTMAX or PROBIT.
// ONNX Runtime with more than one thread may add the trees in chunks (another rounding); the runner is checked
// against it on one thread.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"
#include "eval/kernels/tree_forest.h"
#include "eval/typed_elements.h"
#include "graph/attributes.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

enum class Aggregate { kSum, kAverage, kMin, kMax };
enum class PostTransform { kNone, kLogistic, kSoftmax, kSoftmaxZero, kProbit };

absl::StatusOr<PostTransform> PostTransformOf(const onnx::NodeProto& node) {
  ASSIGN_OR_RETURN(const std::string name, StringAttributeOr(node, "post_transform", "NONE"));
  if (name == "NONE") return PostTransform::kNone;
  if (name == "LOGISTIC") return PostTransform::kLogistic;
  if (name == "SOFTMAX") return PostTransform::kSoftmax;
  if (name == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (name == "PROBIT") return PostTransform::kProbit;
  return absl::InvalidArgumentError(StrCat("post_transform is '", name, "'"));
}

absl::StatusOr<Aggregate> AggregateOf(const onnx::NodeProto& node) {
  ASSIGN_OR_RETURN(const std::string name, StringAttributeOr(node, "aggregate_function", "SUM"));
  if (name == "SUM") return Aggregate::kSum;
  if (name == "AVERAGE") return Aggregate::kAverage;
  if (name == "MIN") return Aggregate::kMin;
  if (name == "MAX") return Aggregate::kMax;
  return absl::InvalidArgumentError(StrCat("aggregate_function is '", name, "'"));
}

float Logistic(float x) {
  const float v = 1.0f / (1.0f + std::exp(-std::fabs(x)));
  return x < 0 ? 1.0f - v : v;
}

// ONNX Runtime's probit: sqrt(2) * erfinv(2p - 1), erfinv by Winitzki's approximation (a = 0.147), unclamped.
float Probit(float p) {
  float x = 2.0f * p - 1.0f;
  const float sign = x < 0 ? -1.0f : 1.0f;
  x = (1.0f - x) * (1.0f + x);
  const float log_x = std::log(x);
  const float v = 2.0f / (static_cast<float>(M_PI) * 0.147f) + 0.5f * log_x;
  const float v2 = (1.0f / 0.147f) * log_x;
  const float v3 = -v + std::sqrt(v * v - v2);
  return static_cast<float>(M_SQRT2) * (sign * std::sqrt(v3));
}

// The largest of the row's scores, NaN passed over (as ONNX Runtime's softmaxes take it).
float MaxOf(const float* row, size_t size) {
  float max = -std::numeric_limits<float>::max();
  for (size_t i = 0; i < size; ++i) max = row[i] > max ? row[i] : max;
  return max;
}

// `row` (a target's or class's scores, as float) transformed in place.
void Transform(PostTransform transform, float* row, size_t size) {
  switch (transform) {
    case PostTransform::kNone: return;
    case PostTransform::kLogistic:
      for (size_t i = 0; i < size; ++i) row[i] = Logistic(row[i]);
      return;
    case PostTransform::kProbit:
      for (size_t i = 0; i < size; ++i) row[i] = Probit(row[i]);
      return;
    case PostTransform::kSoftmax: {
      const float max = MaxOf(row, size);
      float sum = 0.0f;
      for (size_t i = 0; i < size; ++i) sum += (row[i] = std::exp(row[i] - max));
      for (size_t i = 0; i < size; ++i) row[i] /= sum;
      return;
    }
    case PostTransform::kSoftmaxZero: {
      // A score within 1e-7 of 0 stays (about) 0, keeping its sign, and is left out of the sum.
      const float max = MaxOf(row, size);
      const float scale = std::exp(-max);
      float sum = 0.0f;
      for (size_t i = 0; i < size; ++i) {
        if (row[i] > 1e-7f || row[i] < -1e-7f) {
          sum += (row[i] = std::exp(row[i] - max));
        } else {
          row[i] *= scale;
        }
      }
      for (size_t i = 0; i < size; ++i) row[i] /= sum;
      return;
    }
  }
}

// X's rows as Threshold (an integer X compared as float), and how many rows and features it has: a 1-D X is one
// row, of which ONNX Runtime lets the trees read feature 0 only.
template <typename Threshold>
struct Rows {
  std::vector<Threshold> values;
  int64_t count = 0;
  int64_t stride = 0;
};

template <typename Threshold>
absl::StatusOr<Rows<Threshold>> ReadRows(const Tensor& x, const Forest<Threshold>& forest) {
  if (x.rank() != 1 && x.rank() != 2) {
    return absl::InvalidArgumentError(StrCat("X is ", Describe(x), ": a tree ensemble takes rank 1 or 2"));
  }
  Rows<Threshold> rows;
  rows.count = x.rank() == 1 ? 1 : x.dims()[0];
  rows.stride = x.dims().back();
  const int64_t features = x.rank() == 1 ? 1 : rows.stride;
  if (forest.max_branch_feature >= features && rows.count > 0) {
    return absl::InvalidArgumentError(
        StrCat("the trees read feature ", forest.max_branch_feature, ", past X's ", features, " (", Describe(x), ")"));
  }
  const auto read = [&](auto type_tag) {
    const ElementsAs<decltype(type_tag)> in(x);
    rows.values.assign(in.begin(), in.end());  // each converted to Threshold as C++ compares them
  };
  switch (x.type()) {
    case TensorProto::FLOAT: read(float{}); break;
    case TensorProto::DOUBLE: read(double{}); break;
    case TensorProto::INT64: read(int64_t{}); break;
    case TensorProto::INT32: read(int32_t{}); break;
    default: return UnsupportedType(x.type(), "X", "float, double, int64, int32");
  }
  return rows;
}

// One row's sums per output and which outputs a leaf reached.
template <typename Threshold>
struct Sums {
  std::vector<Threshold> score;
  std::vector<bool> reached;
};

// Adds up the leaves row `features` reaches. One output: each leaf gives its first weight (its nodes_values entry
// when it has none); more: each weight goes to its output.
template <typename Threshold>
absl::StatusOr<Sums<Threshold>> SumLeaves(const Forest<Threshold>& forest, const Threshold* features, int64_t outputs,
                                          Aggregate aggregate) {
  Sums<Threshold> sums{std::vector<Threshold>(outputs, 0), std::vector<bool>(outputs, false)};
  const auto add = [&](int64_t id, Threshold w) {
    Threshold& s = sums.score[id];
    const bool first = !sums.reached[id];
    switch (aggregate) {
      case Aggregate::kSum:
      case Aggregate::kAverage: s += w; break;
      case Aggregate::kMin: s = first || w < s ? w : s; break;
      case Aggregate::kMax: s = first || w > s ? w : s; break;
    }
    sums.reached[id] = true;
  };
  for (const int64_t root : forest.roots) {
    ASSIGN_OR_RETURN(const TreeNode<Threshold>* leaf, FindLeaf(forest, root, features));
    if (outputs == 1) {
      add(0, leaf->weights.empty() ? leaf->value : leaf->weights[0].second);
    } else {
      for (const auto& [id, w] : leaf->weights) add(id, w);
    }
  }
  return sums;
}

// The regressor's sums finished with its base values, then written as float (an output no leaf reached as 0).
template <typename Threshold>
void FinishRegression(Sums<Threshold>& sums, const std::vector<Threshold>& base, Aggregate aggregate, int64_t trees,
                      float* out) {
  const size_t outputs = sums.score.size();
  const bool per_output = base.size() == outputs;
  for (size_t i = 0; i < outputs; ++i) {
    const Threshold b = per_output ? base[i] : (base.size() == 1 ? base[0] : 0);
    Threshold& s = sums.score[i];
    switch (aggregate) {
      case Aggregate::kSum: s = s + b; break;
      case Aggregate::kAverage: s = s / static_cast<Threshold>(trees) + b; break;
      case Aggregate::kMin:
      case Aggregate::kMax: s = outputs == 1 ? (sums.reached[i] ? s + b : b) : b + (sums.reached[i] ? s : 0); break;
    }
    // One target: ONNX Runtime writes the sum whether a leaf reached it or not.
    out[i] = outputs == 1 || sums.reached[i] ? static_cast<float>(s) : 0.0f;
  }
}

template <typename Threshold>
absl::StatusOr<Outputs> Regress(const KernelContext& ctx, const Tensor& x) {
  ASSIGN_OR_RETURN(const int64_t targets, IntAttributeOr(ctx.node, "n_targets", 0));
  if (targets <= 0) return absl::InvalidArgumentError(StrCat("n_targets is ", targets));
  ASSIGN_OR_RETURN(const Aggregate aggregate, AggregateOf(ctx.node));
  ASSIGN_OR_RETURN(const PostTransform transform, PostTransformOf(ctx.node));
  if (targets == 1 && transform != PostTransform::kNone && transform != PostTransform::kProbit) {
    return absl::UnimplementedError(
        "a post_transform other than PROBIT on one target: ONNX Runtime writes the score without it");
  }
  ASSIGN_OR_RETURN(const std::vector<Threshold> base, ThresholdsAttribute<Threshold>(ctx.node, "base_values"));
  if (!base.empty() && static_cast<int64_t>(base.size()) != targets) {
    return absl::InvalidArgumentError(StrCat("base_values holds ", base.size(), " values for ", targets, " targets"));
  }
  ASSIGN_OR_RETURN(const Forest<Threshold> forest, ReadForest<Threshold>(ctx.node, "target_", targets));
  ASSIGN_OR_RETURN(const Rows<Threshold> rows, ReadRows(x, forest));
  RETURN_IF_ERROR(AffordWork(ctx, SaturatingMul(rows.count, static_cast<int64_t>(forest.nodes.size())), "tree walks"));
  ASSIGN_OR_RETURN(OutputAs<float> y, OutputAs<float>::Make(TensorProto::FLOAT, {rows.count, targets}));
  for (int64_t r = 0; r < rows.count; ++r) {
    ASSIGN_OR_RETURN(Sums<Threshold> sums, SumLeaves(forest, rows.values.data() + r * rows.stride, targets, aggregate));
    float* out = y.data() + r * targets;
    FinishRegression(sums, base, aggregate, static_cast<int64_t>(forest.roots.size()), out);
    Transform(transform, out, static_cast<size_t>(targets));
  }
  return Single(std::move(y).Finish());
}

// The classifier's labels: its strings, or else its integers.
struct Labels {
  std::vector<std::string> strings;
  std::vector<int64_t> ints;
  int64_t count() const { return static_cast<int64_t>(strings.empty() ? ints.size() : strings.size()); }
};

absl::StatusOr<Labels> LabelsOf(const onnx::NodeProto& node) {
  Labels labels;
  if (const onnx::AttributeProto* strings = FindAttribute(node, "classlabels_strings")) {
    labels.strings.assign(strings->strings().begin(), strings->strings().end());
  }
  if (labels.strings.empty()) {
    ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> ints, IntsAttribute(node, "classlabels_int64s"));
    labels.ints = ints.value_or(std::vector<int64_t>{});
  }
  if (labels.count() == 0) return absl::InvalidArgumentError("the classifier has no class labels");
  return labels;
}

// One row's label (an index into the labels) and scores, the classifier's way (see the top of this file).
template <typename Threshold>
absl::StatusOr<int64_t> Classify(Sums<Threshold>& sums, const std::vector<Threshold>& base, bool binary,
                                 bool any_negative_weight, PostTransform transform, float* z) {
  const size_t classes = sums.score.size();
  if (binary) {
    // One class's column of weights: its sum s (with base_values[0] added) decides, and the other class gets
    // 1 - s (or -s when a weight is negative), both through the logistic when that is the transform.
    if (!base.empty()) sums.score[0] += base[0];
    const bool both = sums.reached[1];
    const Threshold s = both ? sums.score[1] : (sums.reached[0] ? sums.score[0] : 0);
    const int64_t label = (any_negative_weight ? s > 0 : s > 0.5) ? 1 : 0;
    if (both) {
      for (size_t k = 0; k < 2; ++k) z[k] = sums.reached[k] ? static_cast<float>(sums.score[k]) : 0.0f;
      Transform(transform, z, 2);
      return label;
    }
    const auto one = static_cast<float>(sums.score[0]);
    if (transform == PostTransform::kLogistic) {
      z[0] = Logistic(-one);
      z[1] = Logistic(one);
    } else {
      z[0] = any_negative_weight ? -one : 1.0f - one;
      z[1] = one;
    }
    return label;
  }
  for (size_t k = 0; k < base.size(); ++k) {
    sums.score[k] = sums.reached[k] ? sums.score[k] + base[k] : base[k];
    sums.reached[k] = true;
  }
  std::optional<size_t> best;
  for (size_t k = 0; k < classes; ++k) {
    if (sums.reached[k] && (!best.has_value() || sums.score[k] > sums.score[*best])) best = k;
  }
  if (!best.has_value()) return absl::InvalidArgumentError("no leaf gives a class a score, and base_values is empty");
  for (size_t k = 0; k < classes; ++k) z[k] = sums.reached[k] ? static_cast<float>(sums.score[k]) : 0.0f;
  Transform(transform, z, classes);
  return static_cast<int64_t>(*best);
}

template <typename Threshold>
absl::StatusOr<Outputs> ClassifyRows(const KernelContext& ctx, const Tensor& x) {
  ASSIGN_OR_RETURN(const Labels labels, LabelsOf(ctx.node));
  const int64_t classes = labels.count();
  ASSIGN_OR_RETURN(const PostTransform transform, PostTransformOf(ctx.node));
  ASSIGN_OR_RETURN(const std::vector<Threshold> base, ThresholdsAttribute<Threshold>(ctx.node, "base_values"));
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> class_ids, IntsAttribute(ctx.node, "class_ids"));
  const std::set<int64_t> distinct_ids =
      class_ids.has_value() ? std::set<int64_t>(class_ids->begin(), class_ids->end()) : std::set<int64_t>{};
  const bool binary = classes == 2 && distinct_ids.size() == 1;
  if (classes == 1) {
    return absl::UnimplementedError("a classifier of one label: ONNX Runtime writes its label as 0 or 1");
  }
  if (classes == 2 && !binary) {
    return absl::UnimplementedError(
        "two labels whose weights name both classes: ONNX Runtime writes the label as 0 or 1 by the second score");
  }
  if (binary && (base.size() > 1 || transform == PostTransform::kSoftmax || transform == PostTransform::kSoftmaxZero ||
                 transform == PostTransform::kProbit)) {
    return absl::UnimplementedError(
        StrCat("a binary classifier with ", base.size(), " base values and post_transform ",
               transform == PostTransform::kProbit ? "PROBIT" : "(a SOFTMAX or other)",
               ": ONNX Runtime's scores there are not the op's (it leaves the transform out, or a score unwritten)"));
  }
  if (!base.empty() && static_cast<int64_t>(base.size()) != classes && !binary) {
    return absl::InvalidArgumentError(StrCat("base_values holds ", base.size(), " values for ", classes, " classes"));
  }
  ASSIGN_OR_RETURN(const Forest<Threshold> forest, ReadForest<Threshold>(ctx.node, "class_", classes));
  ASSIGN_OR_RETURN(const Rows<Threshold> rows, ReadRows(x, forest));
  RETURN_IF_ERROR(AffordWork(ctx, SaturatingMul(rows.count, static_cast<int64_t>(forest.nodes.size())), "tree walks"));
  ASSIGN_OR_RETURN(OutputAs<float> z, OutputAs<float>::Make(TensorProto::FLOAT, {rows.count, classes}));
  std::vector<int64_t> chosen(static_cast<size_t>(rows.count));
  for (int64_t r = 0; r < rows.count; ++r) {
    ASSIGN_OR_RETURN(Sums<Threshold> sums,
                     SumLeaves(forest, rows.values.data() + r * rows.stride, classes, Aggregate::kSum));
    ASSIGN_OR_RETURN(chosen[r],
                     Classify(sums, base, binary, forest.any_negative_weight, transform, z.data() + r * classes));
  }
  Tensor y;
  if (labels.strings.empty()) {
    std::vector<int64_t> values;
    values.reserve(chosen.size());
    for (const int64_t k : chosen) values.push_back(labels.ints[k]);
    ASSIGN_OR_RETURN(y, TensorOf(TensorProto::INT64, {rows.count}, values));
  } else {
    std::vector<std::string> values;
    values.reserve(chosen.size());
    for (const int64_t k : chosen) values.push_back(labels.strings[k]);
    ASSIGN_OR_RETURN(y, Tensor::FromStrings({rows.count}, std::move(values)));
  }
  return Outputs{Share(std::move(y)), Share(std::move(z).Finish())};
}

// Thresholds and sums are double for double X, float otherwise.
absl::StatusOr<Outputs> RunTreeEnsembleRegressor(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  if (x->type() == TensorProto::DOUBLE) return Regress<double>(ctx, *x);
  if (x->type() != TensorProto::FLOAT) return UnsupportedType(x->type(), "X", "float, double");
  return Regress<float>(ctx, *x);
}

absl::StatusOr<Outputs> RunTreeEnsembleClassifier(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  if (x->type() == TensorProto::DOUBLE) return ClassifyRows<double>(ctx, *x);
  return ClassifyRows<float>(ctx, *x);
}

}  // namespace

void AddTreeEnsembleKernels(KernelTable& table) {
  table[DomainKey(kMlDomain, "TreeEnsembleRegressor")] = RunTreeEnsembleRegressor;
  table[DomainKey(kMlDomain, "TreeEnsembleClassifier")] = RunTreeEnsembleClassifier;
}

}  // namespace onnx_legalize
