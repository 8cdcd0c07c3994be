// The recurrent ops: RNN, GRU and LSTM, every version from 1 to 17 (RNN-1/7/14, GRU-1/3/7/14, LSTM-1/7/14).
// The equations are their specs' (onnx/defs/rnn/defs.cc and old.cc), one time step at a time:
//   RNN:  Ht = f(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi)
//   GRU:  zt = f(Xt*Wz^T + Ht-1*Rz^T + Wbz + Rbz)        rt = f(Xt*Wr^T + Ht-1*Rr^T + Wbr + Rbr)
//         ht = g(Xt*Wh^T + (rt (.) Ht-1)*Rh^T + Rbh + Wbh)       when linear_before_reset = 0
//         ht = g(Xt*Wh^T + rt (.) (Ht-1*Rh^T + Rbh) + Wbh)       when linear_before_reset != 0 (GRU-3 on)
//         Ht = (1 - zt) (.) ht + zt (.) Ht-1
//   LSTM: it = f(Xt*Wi^T + Ht-1*Ri^T + Pi (.) Ct-1 + Wbi + Rbi)   ft likewise with Pf, ct = g(... Wc, Rc ...)
//         Ct = ft (.) Ct-1 + it (.) ct    ot = f(Xt*Wo^T + Ht-1*Ro^T + Po (.) Ct + Wbo + Rbo)    Ht = ot (.) h(Ct)
// The versions differ only in their attributes: the version-1 texts have `output_sequence` (whether Y is
// wanted; Y is computed whenever the node names it), GRU-3 adds `linear_before_reset`, the 14s add `layout`
// (1: X and Y batch-major, the states [batch, num_directions, hidden]). The version-1 texts write Ht-1*Ri
// without the transpose; R's shape, [num_directions, k*hidden, hidden], admits only the product of version 7.
//
// A sequence shorter than X's (sequence_lens) stops its state at its last step: Y is zero past it, Y_h and Y_c
// hold the state after it (zero for an empty sequence), and the reverse direction starts at that last step, not
// at X's.
//
// Numerics. float16 is computed in float, the state kept in float between steps and rounded once, at the
// output. Products go through Eigen (matrix_product.h); the activations are the C library's std::tanh and std::exp.
// ONNX Runtime differs in three ways, so the two agree only within a bound (tests/differential/run_runner_kernels.py):
// its LSTM and GRU compute Sigmoid and Tanh with MLAS's vectorized approximations (MlasComputeLogistic,
// MlasComputeTanh: a rational polynomial, a few ULP from the rounded value), its products with MLAS's SGEMM
// (another summation order), and it adds the biases to X*W^T before the recurrent product is accumulated into
// it. Each step feeds its rounding into the next. Sigmoid's slope is at most 1/4 and Tanh's 1, so where the
// rows of R sum below 1 in magnitude a step's difference is not amplified: the difference stays of the order of
// one step's, in absolute terms at the states' scale of 1 (a state near 0 is a sum of terms near 1). Measured:
// at most 1.8e-7 apart over 5 steps and 2.4e-7 over 24, within the test's 8 ULP or 2^-21. Weights that amplify
// (a chaotic recurrence) have no such bound between any two implementations. ORT's RNN has no double kernel and
// none of them takes layout 1; there recurrent_test.cc compares with onnx's node tests instead.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/matrix_product.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

// The states and gates, [batch, hidden] and the like, kept as Eigen's row-major matrices.
template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr int64_t kGruLinearBeforeResetOpset = 3;  // GRU-3 adds linear_before_reset
constexpr int64_t kNoOutputSequenceOpset = 7;      // the 7s drop output_sequence: Y is optional by itself
constexpr int64_t kLayoutOpset = 14;               // the 14s add layout

enum class Cell { kRnn, kGru, kLstm };

// What distinguishes the three ops: gates per direction (the row blocks of W and R, in the spec's order: i for
// RNN, z r h for GRU, i o f c for LSTM) and the activations each direction applies, with their defaults.
struct CellSpec {
  Cell cell;
  int64_t gates;
  std::vector<std::string> default_activations;
};

const CellSpec& SpecOf(Cell cell) {
  static const CellSpec kRnn{Cell::kRnn, 1, {"Tanh"}};
  static const CellSpec kGru{Cell::kGru, 3, {"Sigmoid", "Tanh"}};
  static const CellSpec kLstm{Cell::kLstm, 4, {"Sigmoid", "Tanh", "Tanh"}};
  return cell == Cell::kRnn ? kRnn : (cell == Cell::kGru ? kGru : kLstm);
}

enum class ActivationKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
};

// The activations the specs list, by lower-case name (ONNX Runtime matches them regardless of case, and so do
// we), with how many of activation_alpha / activation_beta each consumes and the values it takes when those
// lists run out: "Default values are the same as of corresponding ONNX operators" (Affine's and ScaledTanh's,
// ops since removed, as ONNX Runtime reads them: alpha 1, beta 0 and alpha 1, beta 1).
struct ActivationInfo {
  const char* name;
  ActivationKind kind;
  int alphas, betas;
  float alpha, beta;
};

constexpr ActivationInfo kActivations[] = {
    {"relu", ActivationKind::kRelu, 0, 0, 0.0f, 0.0f},
    {"tanh", ActivationKind::kTanh, 0, 0, 0.0f, 0.0f},
    {"sigmoid", ActivationKind::kSigmoid, 0, 0, 0.0f, 0.0f},
    {"affine", ActivationKind::kAffine, 1, 1, 1.0f, 0.0f},
    {"leakyrelu", ActivationKind::kLeakyRelu, 1, 0, 0.01f, 0.0f},
    {"thresholdedrelu", ActivationKind::kThresholdedRelu, 1, 0, 1.0f, 0.0f},
    {"scaledtanh", ActivationKind::kScaledTanh, 1, 1, 1.0f, 1.0f},
    {"hardsigmoid", ActivationKind::kHardSigmoid, 1, 1, 0.2f, 0.5f},
    {"elu", ActivationKind::kElu, 1, 0, 1.0f, 0.0f},
    {"softsign", ActivationKind::kSoftsign, 0, 0, 0.0f, 0.0f},
    {"softplus", ActivationKind::kSoftplus, 0, 0, 0.0f, 0.0f},
};

struct Activation {
  ActivationKind kind;
  float alpha, beta;

  // The formulas of the specs' list of activation functions.
  template <typename T>
  T Apply(T x) const {
    const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
    switch (kind) {
      case ActivationKind::kRelu: return x < T{0} ? T{0} : x;
      case ActivationKind::kTanh: return std::tanh(x);
      case ActivationKind::kSigmoid: return T{1} / (T{1} + std::exp(-x));
      case ActivationKind::kAffine: return a * x + b;
      case ActivationKind::kLeakyRelu: return x >= T{0} ? x : a * x;
      case ActivationKind::kThresholdedRelu: return x >= a ? x : T{0};
      case ActivationKind::kScaledTanh: return a * std::tanh(b * x);
      case ActivationKind::kHardSigmoid: {
        const T y = a * x + b;
        return std::isnan(y) ? y : std::min(T{1}, std::max(T{0}, y));
      }
      case ActivationKind::kElu: return x >= T{0} ? x : a * (std::exp(x) - T{1});
      case ActivationKind::kSoftsign: return x / (T{1} + std::abs(x));
      case ActivationKind::kSoftplus:  // log(1 + e^x), written so that e^x does not overflow for large x
        return x > T{0} ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
    return x;
  }
};

// The node's activations, `per_direction` for each direction in order (forward first when bidirectional),
// with their alphas and betas consumed from the two lists in that order.
absl::StatusOr<std::vector<Activation>> ActivationsOf(const KernelContext& ctx, const CellSpec& spec,
                                                      int64_t directions) {
  const auto per_direction = static_cast<int64_t>(spec.default_activations.size());
  std::vector<std::string> names;
  if (const onnx::AttributeProto* attribute = FindAttribute(ctx.node, "activations")) {
    names.assign(attribute->strings().begin(), attribute->strings().end());
  } else {
    for (int64_t d = 0; d < directions; ++d) {
      names.insert(names.end(), spec.default_activations.begin(), spec.default_activations.end());
    }
  }
  if (static_cast<int64_t>(names.size()) != per_direction * directions) {
    return absl::InvalidArgumentError(StrCat("activations has ", names.size(), " names (", absl::StrJoin(names, ", "),
                                             "); ", ctx.node.op_type(), " with ", directions, " direction",
                                             directions > 1 ? "s" : "", " takes ", per_direction * directions));
  }
  ASSIGN_OR_RETURN(const std::optional<std::vector<float>> alphas, FloatsAttribute(ctx.node, "activation_alpha"));
  ASSIGN_OR_RETURN(const std::optional<std::vector<float>> betas, FloatsAttribute(ctx.node, "activation_beta"));
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> activations;
  for (const std::string& name : names) {
    const std::string lower = absl::AsciiStrToLower(name);
    const auto* info = std::find_if(std::begin(kActivations), std::end(kActivations),
                                    [&](const ActivationInfo& candidate) { return lower == candidate.name; });
    if (info == std::end(kActivations)) {
      return absl::InvalidArgumentError(StrCat("activation '", name, "' is none of the spec's"));
    }
    Activation activation{info->kind, info->alpha, info->beta};
    if (info->alphas > 0 && alphas && next_alpha < alphas->size()) activation.alpha = (*alphas)[next_alpha++];
    if (info->betas > 0 && betas && next_beta < betas->size()) activation.beta = (*betas)[next_beta++];
    activations.push_back(activation);
  }
  return activations;
}

// The node's attributes other than the activations, as its version has them.
struct Attributes {
  int64_t directions = 1;
  bool reverse_only = false;  // direction = reverse
  std::optional<float> clip;
  std::optional<int64_t> hidden_size;
  bool batch_major = false;          // layout = 1
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM
};

absl::StatusOr<Attributes> AttributesOf(const KernelContext& ctx, Cell cell) {
  Attributes attributes;
  ASSIGN_OR_RETURN(const std::optional<std::string> direction, StringAttribute(ctx.node, "direction"));
  // The version-1 texts give the default as "foward", a typo for forward: an absent direction is forward.
  if (!direction || *direction == "forward") {
    attributes.directions = 1;
  } else if (*direction == "reverse") {
    attributes.reverse_only = true;
  } else if (*direction == "bidirectional") {
    attributes.directions = 2;
  } else {
    return absl::InvalidArgumentError(StrCat("direction is '", *direction, "'; forward, reverse or bidirectional"));
  }
  ASSIGN_OR_RETURN(attributes.clip, FloatAttribute(ctx.node, "clip"));
  // ONNX Runtime refuses a clip of 0 or less; the spec's [-threshold, +threshold] is empty there.
  if (attributes.clip && !(*attributes.clip > 0.0f)) {
    return absl::InvalidArgumentError(StrCat("clip is ", *attributes.clip, "; a threshold above 0"));
  }
  ASSIGN_OR_RETURN(attributes.hidden_size, IntAttribute(ctx.node, "hidden_size"));
  if (ctx.OpsetAtLeast(kLayoutOpset)) {
    ASSIGN_OR_RETURN(const int64_t layout, IntAttributeOr(ctx.node, "layout", 0));
    if (layout != 0 && layout != 1) return absl::InvalidArgumentError(StrCat("layout is ", layout, "; 0 or 1"));
    attributes.batch_major = layout == 1;
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "layout", "does not have (layout comes with version 14)"));
  }
  if (ctx.OpsetAtLeast(kNoOutputSequenceOpset)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "output_sequence", "does not have (version 7 dropped it)"));
  }
  if (cell == Cell::kGru) {
    if (ctx.OpsetAtLeast(kGruLinearBeforeResetOpset)) {
      ASSIGN_OR_RETURN(const int64_t linear, IntAttributeOr(ctx.node, "linear_before_reset", 0));
      attributes.linear_before_reset = linear != 0;
    } else {
      RETURN_IF_ERROR(RejectAttribute(ctx, "linear_before_reset", "does not have (GRU-3 adds it)"));
    }
  }
  if (cell == Cell::kLstm) {
    ASSIGN_OR_RETURN(const int64_t input_forget, IntAttributeOr(ctx.node, "input_forget", 0));
    attributes.input_forget = input_forget != 0;
  }
  return attributes;
}

// The sizes every input and output is checked against.
struct Geometry {
  int64_t seq, batch, input, hidden, directions, gates;
};

absl::Status ExpectDims(const Tensor* tensor, absl::string_view what, const std::vector<int64_t>& dims) {
  if (tensor != nullptr && tensor->dims() != dims) {
    return absl::InvalidArgumentError(StrCat(what, " is ", Describe(*tensor), "; expected ", DimsString(dims)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Geometry> GeometryOf(const KernelContext& ctx, const Attributes& attributes, const CellSpec& spec) {
  const Tensor* x = ctx.Input(0);
  const Tensor* w = ctx.Input(1);
  const Tensor* r = ctx.Input(2);
  if (x->rank() != 3) return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), "; it must be 3-D"));
  if (r->rank() != 3) return absl::InvalidArgumentError(StrCat("R is ", Describe(*r), "; it must be 3-D"));
  Geometry geometry{};
  geometry.seq = x->dims()[attributes.batch_major ? 1 : 0];
  geometry.batch = x->dims()[attributes.batch_major ? 0 : 1];
  geometry.input = x->dims()[2];
  geometry.hidden = attributes.hidden_size.value_or(r->dims()[2]);
  geometry.directions = attributes.directions;
  geometry.gates = spec.gates;
  // R's last dim is hidden_size by the spec's shapes: checked first, so that no product below can overflow.
  if (geometry.hidden <= 0 || geometry.hidden != r->dims()[2]) {
    return absl::InvalidArgumentError(StrCat("hidden_size is ", geometry.hidden, " but R is ", Describe(*r)));
  }
  const int64_t rows = spec.gates * geometry.hidden, d = geometry.directions;
  RETURN_IF_ERROR(ExpectDims(w, "W", {d, rows, geometry.input}));
  RETURN_IF_ERROR(ExpectDims(r, "R", {d, rows, geometry.hidden}));
  RETURN_IF_ERROR(ExpectDims(ctx.Input(3), "B", {d, 2 * rows}));
  RETURN_IF_ERROR(ExpectDims(ctx.Input(4), "sequence_lens", {geometry.batch}));
  const std::vector<int64_t> state = attributes.batch_major ? std::vector<int64_t>{geometry.batch, d, geometry.hidden}
                                                            : std::vector<int64_t>{d, geometry.batch, geometry.hidden};
  RETURN_IF_ERROR(ExpectDims(ctx.Input(5), "initial_h", state));
  RETURN_IF_ERROR(ExpectDims(ctx.Input(6), "initial_c", state));
  RETURN_IF_ERROR(ExpectDims(ctx.Input(7), "P", {d, 3 * geometry.hidden}));
  return geometry;
}

// Each batch entry's sequence length, sequence_lens's or X's.
absl::StatusOr<std::vector<int64_t>> SequenceLengths(const KernelContext& ctx, const Geometry& geometry) {
  std::vector<int64_t> lengths(static_cast<size_t>(geometry.batch), geometry.seq);
  const Tensor* given = ctx.Input(4);
  if (given == nullptr) return lengths;
  if (given->type() != TensorProto::INT32) {
    return absl::InvalidArgumentError(StrCat("sequence_lens is ", Describe(*given), "; the spec types it int32"));
  }
  const std::vector<int32_t> values = ReadAs<int32_t>(*given);
  for (size_t b = 0; b < values.size(); ++b) {
    if (values[b] < 0 || values[b] > geometry.seq) {
      return absl::InvalidArgumentError(
          StrCat("sequence_lens[", b, "] is ", values[b], "; X's sequences have ", geometry.seq, " steps"));
    }
    lengths[b] = values[b];
  }
  return lengths;
}

// Where element (direction d, batch b, unit j) of a state (initial_h/c, Y_h/c) lies, by layout.
int64_t StateIndex(const Geometry& g, bool batch_major, int64_t d, int64_t b, int64_t j) {
  return (batch_major ? (b * g.directions + d) : (d * g.batch + b)) * g.hidden + j;
}
// Where element (step t, direction d, batch b, unit j) of Y lies: [seq, dirs, batch, hidden] or, batch-major,
// [batch, seq, dirs, hidden].
int64_t OutputIndex(const Geometry& g, bool batch_major, int64_t t, int64_t d, int64_t b, int64_t j) {
  return (batch_major ? ((b * g.seq + t) * g.directions + d) : ((t * g.directions + d) * g.batch + b)) * g.hidden + j;
}

template <typename T>
struct Run {
  Run(const Geometry& geometry, const Attributes& attrs, Cell kind, std::vector<int64_t> steps)
      : g(geometry), attributes(attrs), cell(kind), lengths(std::move(steps)) {}

  const Geometry& g;
  const Attributes& attributes;
  Cell cell;
  std::vector<int64_t> lengths;
  std::vector<T> x;                     // [seq, batch, input], whatever the layout
  std::vector<T> w, r, bias, peephole;  // bias and peephole zeros when absent
  std::vector<T> y, y_h, y_c;           // in the node's layout; the state outputs start as the initial states

  T Clipped(T value) const {
    if (!attributes.clip || std::isnan(value)) return value;  // NaN stays NaN, as through every activation
    const T clip = static_cast<T>(*attributes.clip);
    return std::min(clip, std::max(-clip, value));
  }

  // One direction over the whole sequence; `activations` are that direction's (f, g, h as the cell has them).
  void RunDirection(int64_t d, bool backward, const Activation* activations) {
    const int64_t h = g.hidden, rows = g.gates * h, batch = g.batch;
    const T* w_d = w.data() + d * rows * g.input;
    const T* r_d = r.data() + d * rows * h;
    const T* wb = bias.data() + d * 2 * rows;
    const T* rb = wb + rows;
    const T* p = peephole.data() + d * 3 * h;
    // X*W^T for every step at once: [seq * batch, rows].
    RowMatrix<T> xw(g.seq * batch, rows);
    MultiplyMatrices<T>({x.data(), g.seq * batch, g.input, g.input}, {w_d, rows, g.input, g.input, /*transposed=*/true},
                        xw.data(), rows);
    // The state, [batch, hidden] each, from the initial values.
    RowMatrix<T> state_h(batch, h), state_c(batch, h), gated(batch, h);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < h; ++j) {
        state_h(b, j) = y_h[StateIndex(g, attributes.batch_major, d, b, j)];
        if (cell == Cell::kLstm) state_c(b, j) = y_c[StateIndex(g, attributes.batch_major, d, b, j)];
      }
    }
    RowMatrix<T> hr(batch, rows), gate_z(batch, h), gate_r(batch, h), reset_h(batch, h);
    for (int64_t step = 0; step < g.seq; ++step) {
      MultiplyMatrices<T>({state_h.data(), batch, h, h}, {r_d, rows, h, h, /*transposed=*/true}, hr.data(), rows);
      if (cell == Cell::kGru && !attributes.linear_before_reset) {
        // (rt (.) Ht-1)*Rh^T needs rt first: the gates z and r of every batch entry, then the product.
        for (int64_t b = 0; b < batch; ++b) {
          if (step >= lengths[b]) continue;
          const int64_t t = backward ? lengths[b] - 1 - step : step;
          const T* xw_row = xw.data() + (t * batch + b) * rows;
          for (int64_t j = 0; j < h; ++j) {
            gate_z(b, j) = activations[0].Apply(Clipped(xw_row[j] + hr(b, j) + wb[j] + rb[j]));
            gate_r(b, j) = activations[0].Apply(Clipped(xw_row[h + j] + hr(b, h + j) + wb[h + j] + rb[h + j]));
            gated(b, j) = gate_r(b, j) * state_h(b, j);
          }
        }
        MultiplyMatrices<T>({gated.data(), batch, h, h}, {r_d + 2 * h * h, h, h, h, /*transposed=*/true},
                            reset_h.data(), h);
      }
      for (int64_t b = 0; b < batch; ++b) {
        if (step >= lengths[b]) continue;  // the sequence has ended: its state stays, its Y stays zero
        const int64_t t = backward ? lengths[b] - 1 - step : step;
        const T* xw_row = xw.data() + (t * batch + b) * rows;
        for (int64_t j = 0; j < h; ++j) {
          T next_h{};
          if (cell == Cell::kRnn) {
            next_h = activations[0].Apply(Clipped(xw_row[j] + hr(b, j) + wb[j] + rb[j]));
          } else if (cell == Cell::kGru) {
            const int64_t k = 2 * h + j;  // the h gate's row
            T candidate{};
            if (attributes.linear_before_reset) {
              gate_z(b, j) = activations[0].Apply(Clipped(xw_row[j] + hr(b, j) + wb[j] + rb[j]));
              gate_r(b, j) = activations[0].Apply(Clipped(xw_row[h + j] + hr(b, h + j) + wb[h + j] + rb[h + j]));
              candidate = activations[1].Apply(Clipped(xw_row[k] + gate_r(b, j) * (hr(b, k) + rb[k]) + wb[k]));
            } else {
              candidate = activations[1].Apply(Clipped(xw_row[k] + reset_h(b, j) + rb[k] + wb[k]));
            }
            next_h = (T{1} - gate_z(b, j)) * candidate + gate_z(b, j) * state_h(b, j);
          } else {
            next_h = LstmUnit(xw_row, hr, b, j, wb, rb, p, activations, state_c);
          }
          gated(b, j) = next_h;
          y[OutputIndex(g, attributes.batch_major, t, d, b, j)] = next_h;
        }
      }
      for (int64_t b = 0; b < batch; ++b) {
        if (step < lengths[b]) state_h.row(b) = gated.row(b);
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      // An empty sequence has no last output: its Y_h and Y_c are zero, as its Y is (ONNX Runtime's reading;
      // the spec says nothing), not the initial state.
      const bool empty = lengths[b] == 0;
      for (int64_t j = 0; j < h; ++j) {
        y_h[StateIndex(g, attributes.batch_major, d, b, j)] = empty ? T{0} : state_h(b, j);
        if (cell == Cell::kLstm) y_c[StateIndex(g, attributes.batch_major, d, b, j)] = empty ? T{0} : state_c(b, j);
      }
    }
  }

  // One unit of an LSTM step: updates the cell state in place and returns Ht's element. The gates' rows are
  // i, o, f, c; the peepholes' i, o, f.
  T LstmUnit(const T* xw_row, const RowMatrix<T>& hr, int64_t b, int64_t j, const T* wb, const T* rb, const T* p,
             const Activation* activations, RowMatrix<T>& state_c) const {
    const int64_t h = g.hidden;
    const int64_t i_row = j, o_row = h + j, f_row = 2 * h + j, c_row = 3 * h + j;
    auto pre = [&](int64_t row) { return xw_row[row] + hr(b, row); };
    const T c_prev = state_c(b, j);
    const T i = activations[0].Apply(Clipped(pre(i_row) + p[j] * c_prev + wb[i_row] + rb[i_row]));
    // input_forget couples the gates: "Couple the input and forget gates if 1", read as ONNX Runtime reads it,
    // ft = 1 - it.
    const T f = attributes.input_forget
                    ? T{1} - i
                    : activations[0].Apply(Clipped(pre(f_row) + p[2 * h + j] * c_prev + wb[f_row] + rb[f_row]));
    const T candidate = activations[1].Apply(Clipped(pre(c_row) + wb[c_row] + rb[c_row]));
    const T c = f * c_prev + i * candidate;
    const T o = activations[0].Apply(Clipped(pre(o_row) + p[h + j] * c + wb[o_row] + rb[o_row]));
    state_c(b, j) = c;
    // Not clipped: h's input is the cell state, not a gate's. The spec's "applied to the input of activations"
    // could be read to include it; ONNX Runtime clips the gates only (f and g), and so does this kernel.
    return o * activations[2].Apply(c);
  }
};

// `tensor`'s values as T, or `count` zeros when the node leaves it out.
template <typename T>
std::vector<T> ValuesOrZeros(const Tensor* tensor, int64_t count) {
  return tensor != nullptr ? ReadAs<T>(*tensor) : std::vector<T>(static_cast<size_t>(count), T{0});
}

template <typename T>
absl::StatusOr<Outputs> Compute(const KernelContext& ctx, Cell cell, const Attributes& attributes, const Geometry& g,
                                const std::vector<Activation>& activations) {
  const Tensor& x_tensor = *ctx.Input(0);
  const std::vector<int64_t> y_dims = attributes.batch_major
                                          ? std::vector<int64_t>{g.batch, g.seq, g.directions, g.hidden}
                                          : std::vector<int64_t>{g.seq, g.directions, g.batch, g.hidden};
  const std::vector<int64_t> state_dims = attributes.batch_major
                                              ? std::vector<int64_t>{g.batch, g.directions, g.hidden}
                                              : std::vector<int64_t>{g.directions, g.batch, g.hidden};
  ASSIGN_OR_RETURN(const int64_t y_count, CheckedOutputCount(y_dims, "Y"));
  ASSIGN_OR_RETURN(const int64_t state_count, CheckedOutputCount(state_dims, "Y_h"));
  RETURN_IF_ERROR(CheckedOutputCount({g.seq, g.batch, g.gates, g.hidden}, "X*W^T").status());
  ASSIGN_OR_RETURN(std::vector<int64_t> lengths, SequenceLengths(ctx, g));
  Run<T> run(g, attributes, cell, std::move(lengths));
  run.x = ReadAs<T>(x_tensor);
  if (attributes.batch_major) {  // to [seq, batch, input], the order the steps read
    std::vector<T> time_major(run.x.size());
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t t = 0; t < g.seq; ++t) {
        std::copy_n(run.x.begin() + (b * g.seq + t) * g.input, g.input,
                    time_major.begin() + (t * g.batch + b) * g.input);
      }
    }
    run.x = std::move(time_major);
  }
  run.w = ReadAs<T>(*ctx.Input(1));
  run.r = ReadAs<T>(*ctx.Input(2));
  run.bias = ValuesOrZeros<T>(ctx.Input(3), g.directions * 2 * g.gates * g.hidden);
  run.peephole = ValuesOrZeros<T>(cell == Cell::kLstm ? ctx.Input(7) : nullptr, g.directions * 3 * g.hidden);
  run.y.assign(static_cast<size_t>(y_count), T{0});
  run.y_h = ValuesOrZeros<T>(ctx.Input(5), state_count);
  run.y_c = ValuesOrZeros<T>(cell == Cell::kLstm ? ctx.Input(6) : nullptr, state_count);
  const auto per_direction = static_cast<int64_t>(SpecOf(cell).default_activations.size());
  for (int64_t d = 0; d < g.directions; ++d) {
    run.RunDirection(d, attributes.reverse_only || d == 1, activations.data() + d * per_direction);
  }
  Outputs outputs;
  ASSIGN_OR_RETURN(Tensor y, WriteAs<T>(x_tensor.type(), y_dims, run.y));
  ASSIGN_OR_RETURN(Tensor y_h, WriteAs<T>(x_tensor.type(), state_dims, run.y_h));
  outputs.push_back(Share(std::move(y)));
  outputs.push_back(Share(std::move(y_h)));
  if (cell == Cell::kLstm) {
    ASSIGN_OR_RETURN(Tensor y_c, WriteAs<T>(x_tensor.type(), state_dims, run.y_c));
    outputs.push_back(Share(std::move(y_c)));
  }
  return outputs;
}

absl::StatusOr<Outputs> RunRecurrent(const KernelContext& ctx, Cell cell) {
  const CellSpec& spec = SpecOf(cell);
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, cell == Cell::kLstm ? 8 : 6));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  RETURN_IF_ERROR(RequiredInput(ctx, 1, "W").status());
  RETURN_IF_ERROR(RequiredInput(ctx, 2, "R").status());
  for (const size_t index : {1, 2, 3, 5, 6, 7}) {
    const Tensor* input = ctx.Input(index);
    if (input != nullptr && input->type() != x->type()) {
      return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), " but input ", index, " is ", Describe(*input)));
    }
  }
  ASSIGN_OR_RETURN(const Attributes attributes, AttributesOf(ctx, cell));
  ASSIGN_OR_RETURN(const Geometry geometry, GeometryOf(ctx, attributes, spec));
  ASSIGN_OR_RETURN(const std::vector<Activation> activations, ActivationsOf(ctx, spec, attributes.directions));
  return VisitFloating(x->type(), ctx.node.op_type(),
                       [&](auto tag) { return Compute<decltype(tag)>(ctx, cell, attributes, geometry, activations); });
}

absl::StatusOr<Outputs> RunRnn(const KernelContext& ctx) { return RunRecurrent(ctx, Cell::kRnn); }
absl::StatusOr<Outputs> RunGru(const KernelContext& ctx) { return RunRecurrent(ctx, Cell::kGru); }
absl::StatusOr<Outputs> RunLstm(const KernelContext& ctx) { return RunRecurrent(ctx, Cell::kLstm); }

}  // namespace

void AddRecurrentKernels(KernelTable& table) {
  table["RNN"] = RunRnn;
  table["GRU"] = RunGru;
  table["LSTM"] = RunLstm;
}

}  // namespace onnx_legalize
