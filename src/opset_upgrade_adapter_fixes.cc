// What onnx 1.12's version converter adapters get wrong, put right: on the skeleton before the converter
// runs (what an adapter would throw on or misread) and on the spliced nodes after it (what an adapter made
// that means something else than the original node).
//
// The adapter bugs (read from onnx v1.12.0's adapters) that change meaning:
//   - Pad 10->11 throws when the optional `value` attribute is absent;
//   - Clip 10->11 and Pad 10->11 always make float min/max/constant_value inputs, invalid for double and
//     float16 data;
//   - Resize 10->11 keeps Resize-11's defaults (half_pixel, round_prefer_floor) where Resize-10 meant
//     asymmetric coordinates and floor;
//   - Softmax 12->13 writes symbolic dims as -1 and unknown ones as uninitialized memory (Dimension() leaves
//     `dim` unset) into a Reshape constant, and that Reshape (no allowzero at 13) copies a 0-sized dim from
//     its 2-D input;
//   - Hardmax 12->13 is registered as compatible though its axis semantics changed exactly like Softmax's;
//   - broadcasting 6->7 unsqueezes the second input of a legacy (broadcast=1, axis=a) Add/Sub/Mul/Div/Pow
//     a times too many.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "op_names.h"
#include "opset_upgrade_internal.h"
#include "opset_upgrade_labels.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// IEEE half from float, round to nearest even.
uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (abs < 0x38800000u) {                                                // subnormal half or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t half = mant >> (shift);
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

// Rewrites a float scalar/vector tensor to `elem_type` (double or float16).
void RetypeFloatTensor(TensorProto* t, int32_t elem_type) {
  std::vector<float> values(t->float_data().begin(), t->float_data().end());
  if (t->raw_data().size() % sizeof(float) == 0 && !t->raw_data().empty()) {
    values.resize(t->raw_data().size() / sizeof(float));
    std::memcpy(values.data(), t->raw_data().data(), t->raw_data().size());
  }
  t->clear_float_data();
  t->clear_raw_data();
  t->set_data_type(elem_type);
  for (float v : values) {
    if (elem_type == TensorProto::DOUBLE) {
      t->add_double_data(static_cast<double>(v));
    } else {
      t->add_int32_data(FloatToHalf(v));
    }
  }
}

}  // namespace

// Hardmax 12->13 is registered in onnx 1.12 as compatible, but Hardmax-13 reads `axis` as one axis where
// Hardmax-1/11 flatten to 2-D at it, exactly like Softmax: let Softmax's adapter restructure it.
std::string OpTypeShownToConverter(const NodeProto& node, const Context& ctx) {
  if (node.op_type() == kHardmax && Crosses(ctx, 13)) return kSoftmax;
  return node.op_type();
}

// Pad-2 defaults `value` to 0, but onnx 1.12's Pad 10->11 adapter reads it unconditionally (and throws).
void SpellOutPadValue(const NodeProto& node, const Context& ctx, NodeProto* shown) {
  if (node.op_type() != kPad || !Crosses(ctx, 11)) return;
  bool constant_mode = true, has_value = false;
  for (const auto& attr : node.attribute()) {
    if (attr.name() == "mode") constant_mode = attr.s() == "constant";
    if (attr.name() == "value") has_value = true;
  }
  if (constant_mode && !has_value) {
    AttributeProto* a = shown->add_attribute();
    a->set_name("value");
    a->set_type(AttributeProto::FLOAT);
    a->set_f(0.0f);
  }
}

// Resize-10 (and Upsample) scale with asymmetric coordinates and take the floor for nearest; Resize-11
// defaults to half_pixel / round_prefer_floor and onnx 1.12's adapter does not say otherwise.
void KeepResize10Coordinates(const NodeProto& orig, const Context& ctx, NodeProto* node) {
  const bool resize10 = orig.op_type() == kUpsample || (orig.op_type() == kResize && ctx.from <= 10);
  if (!resize10 || node->op_type() != kResize || !Crosses(ctx, 11)) return;
  bool has_ctm = false, has_nearest = false;
  std::string mode = "nearest";
  for (const auto& a : node->attribute()) {
    if (a.name() == "coordinate_transformation_mode") has_ctm = true;
    if (a.name() == "nearest_mode") has_nearest = true;
    if (a.name() == "mode") mode = a.s();
  }
  if (!has_ctm) {
    AttributeProto* a = node->add_attribute();
    a->set_name("coordinate_transformation_mode");
    a->set_type(AttributeProto::STRING);
    a->set_s("asymmetric");
  }
  if (mode == "nearest" && !has_nearest) {
    AttributeProto* a = node->add_attribute();
    a->set_name("nearest_mode");
    a->set_type(AttributeProto::STRING);
    a->set_s("floor");
  }
}

absl::Status FixAdapterResults(const std::string& where, const std::vector<int64_t>& emitted_record,
                               const std::vector<std::string>& conv_input0, Context& ctx,
                               google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  // Fixes that need producers and consumers.
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < out_nodes->size(); ++i) {
    for (const auto& o : out_nodes->Get(i).output()) {
      if (!o.empty() && !producer.emplace(o, i).second) {
        return absl::InternalError(absl::StrCat("graph ", where, ": value '", o, "' is defined twice after conversion"));
      }
    }
  }
  auto made_producer = [&](const std::string& name, const char* op_type) -> int {
    auto it = producer.find(name);
    if (it == producer.end() || emitted_record[static_cast<size_t>(it->second)] >= 0) return -1;
    return out_nodes->Get(it->second).op_type() == op_type ? it->second : -1;
  };
  // Nodes the fixes add, by the index of the node they go before; inserted after the loop, in one pass.
  std::map<int, std::vector<NodeProto>> insert_before;
  for (int i = 0; i < out_nodes->size(); ++i) {
    if (emitted_record[static_cast<size_t>(i)] < 0) continue;
    const NodeProto& orig = *ctx.records[static_cast<size_t>(emitted_record[static_cast<size_t>(i)])].original;
    const NodeProto& node = out_nodes->Get(i);
    // Softmax 12->13 rebuilds the 2-D coercion as Flatten -> Softmax -> Reshape(constant shape), the constant
    // being the IR's Dimension::dim of each dim of the input: -1 for a symbolic dim, and for an unknown one
    // (no dim_value, no dim_param) whatever its uninitialized `dim` holds (see IrSizes, opset_upgrade_chunks.cc), often a plausible
    // positive size ([1,2,?,?] became [1,2,2,2]); dims above 2^31 are truncated. So the constant is kept only
    // where the skeleton declares every dim of the input with a positive size equal to it; otherwise the
    // Reshape takes the Flatten input's shape at run time.
    // A 0 in that shape: Reshape (allowzero=0, the only kind at 13) copies the dim at that index from its
    // data, the 2-D [A, B] = [d0*..*d(a-1), da*..] of Flatten at axis a, which is right only for dim 0 when
    // a >= 1 (A is 0 then) and dim 1 when a <= 1 (B is 0 then); any other zero-sized dim fails the Reshape or
    // makes a wrong shape. From opset 14 allowzero=1 takes the shape as it is; at 13, unless every other dim
    // is declared non-zero, the Reshape is guarded: y = If(Cast<to=BOOL>(Size(x))) { Reshape(..) } else
    // { Identity(x) } (an empty input is its own Softmax/LogSoftmax/Hardmax: same type, same shape).
    if ((orig.op_type() == kSoftmax || orig.op_type() == kLogSoftmax || orig.op_type() == kHardmax) &&
        Crosses(ctx, 13) && node.input_size() == 1 && node.output_size() == 1) {
      const int flatten = made_producer(node.input(0), kFlatten);
      int reshape = -1;
      for (int j = i + 1; j < out_nodes->size() && flatten >= 0; ++j) {
        const NodeProto& n = out_nodes->Get(j);
        if (emitted_record[static_cast<size_t>(j)] < 0 && n.op_type() == kReshape && n.input_size() == 2 &&
            n.input(0) == node.output(0)) {
          reshape = j;
          break;
        }
      }
      if (flatten >= 0 && reshape >= 0) {
        const int shape = made_producer(out_nodes->Get(reshape).input(1), kConstantOp);
        const TensorProto* value = shape >= 0 ? ConstantValue(out_nodes->Get(shape)) : nullptr;
        // The input's rank as the adapter saw it, and what the skeleton declares of its dims.
        const int64_t rank = value != nullptr && value->dims_size() == 1 ? value->dims(0) : -1;
        const std::string& input = conv_input0[static_cast<size_t>(flatten)];
        auto known_it = ctx.known_dims.find(input);
        const bool have_known = known_it != ctx.known_dims.end() && rank > 0 &&
                                static_cast<int64_t>(known_it->second.size()) == rank;
        auto known_positive = [&](int64_t k) { return have_known && known_it->second[static_cast<size_t>(k)] > 0; };
        bool exact = have_known && value->raw_data().empty() && value->int64_data_size() == rank;
        for (int k = 0; exact && k < rank; ++k) {
          exact = known_positive(k) && value->int64_data(k) == known_it->second[static_cast<size_t>(k)];
        }
        if (shape >= 0 && !exact) {
          const std::string x = out_nodes->Get(flatten).input(0);
          NodeProto* s = out_nodes->Mutable(shape);
          s->clear_attribute();
          s->set_op_type(kShape);
          s->add_input(x);
          NodeProto* r = out_nodes->Mutable(reshape);
          int64_t axis = 1;
          for (const auto& a : out_nodes->Get(flatten).attribute()) {
            if (a.name() == "axis") axis = a.i();
          }
          bool guard = rank < 0;
          for (int64_t k = 0; !guard && k < rank; ++k) {
            guard = !known_positive(k) && !(k == 0 && axis >= 1) && !(k == 1 && axis <= 1);
          }
          if (ctx.to >= 14) {
            AttributeProto* a = r->add_attribute();
            a->set_name("allowzero");
            a->set_type(AttributeProto::INT);
            a->set_i(1);
          } else if (guard) {
            const std::string y = r->output(0);
            auto type_it = ctx.elem_types.find(input);
            auto branch = [&](const std::string& name, const char* op_type, const std::vector<std::string>& ins) {
              AttributeProto a;
              a.set_name(name);
              a.set_type(AttributeProto::GRAPH);
              GraphProto* g = a.mutable_g();
              g->set_name(absl::StrCat(y, "_", name));
              NodeProto* n = g->add_node();
              n->set_op_type(op_type);
              for (const auto& in : ins) n->add_input(in);
              n->add_output(ctx.fresh.Make(absl::StrCat(y, name == "then_branch" ? "_reshaped" : "_empty")));
              ValueInfoProto* o = g->add_output();
              o->set_name(n->output(0));
              if (type_it != ctx.elem_types.end()) o->mutable_type()->mutable_tensor_type()->set_elem_type(type_it->second);
              return a;
            };
            AttributeProto then_branch = branch("then_branch", kReshape, {r->input(0), r->input(1)});
            AttributeProto else_branch = branch("else_branch", "Identity", {x});
            std::vector<NodeProto>& before = insert_before[reshape];
            NodeProto size;
            size.set_op_type("Size");
            size.add_input(x);
            size.add_output(ctx.fresh.Make(y + "_size"));
            NodeProto cast;
            cast.set_op_type("Cast");
            cast.add_input(size.output(0));
            cast.add_output(ctx.fresh.Make(y + "_nonempty"));
            AttributeProto* to = cast.add_attribute();
            to->set_name("to");
            to->set_type(AttributeProto::INT);
            to->set_i(TensorProto::BOOL);
            r->set_op_type("If");
            r->clear_input();
            r->add_input(cast.output(0));
            r->clear_attribute();
            *r->add_attribute() = std::move(then_branch);
            *r->add_attribute() = std::move(else_branch);
            before.push_back(std::move(size));
            before.push_back(std::move(cast));
          }
        }
      }
    }
    // Legacy broadcasting (opset <= 6, broadcast=1, axis=a) aligns B with A starting at axis a, so B needs
    // rank(A) - a - rank(B) trailing ones. onnx 1.12's 6->7 adapter unsqueezes B at [rank(B) .. rank(A)-1],
    // rank(A) - rank(B) of them, a too many: drop the last a.
    if (Crosses(ctx, 7) && ctx.from < 7 && node.input_size() == 2 &&
        (orig.op_type() == "Add" || orig.op_type() == "Sub" || orig.op_type() == "Mul" ||
         orig.op_type() == "Div" || orig.op_type() == "Pow")) {
      int64_t axis = 0;
      bool legacy = false;
      for (const auto& a : orig.attribute()) {
        if (a.name() == "axis") axis = a.i();
        if (a.name() == "broadcast") legacy = a.i() != 0;
      }
      const int unsqueeze = made_producer(node.input(1), "Unsqueeze");
      if (legacy && axis > 0 && unsqueeze >= 0) {
        NodeProto* u = out_nodes->Mutable(unsqueeze);
        google::protobuf::RepeatedField<int64_t>* axes = nullptr;
        for (auto& a : *u->mutable_attribute()) {
          if (a.name() == "axes") axes = a.mutable_ints();
        }
        if (axes == nullptr && u->input_size() == 2) {
          const int c = made_producer(u->input(1), kConstantOp);
          if (c >= 0) {
            for (auto& a : *out_nodes->Mutable(c)->mutable_attribute()) {
              if (a.name() == "value" && a.has_t() && a.t().raw_data().empty() && a.t().dims_size() == 1 &&
                  a.t().int64_data_size() > axis) {
                axes = a.mutable_t()->mutable_int64_data();
                a.mutable_t()->set_dims(0, a.t().int64_data_size() - axis);
              }
            }
          }
        }
        if (axes == nullptr || axes->size() <= axis) {
          return absl::FailedPreconditionError(absl::StrCat("node ", NodeLabel(orig), " (graph ", where,
                                                            "): cannot express its legacy broadcast at axis ", axis));
        }
        axes->Truncate(static_cast<int>(axes->size() - axis));
      }
    }
    // Clip 10->11 and Pad 10->11 make float inputs from the float attributes; Clip-11 and Pad-11 want them
    // of the data's type.
    std::vector<int> typed_inputs;
    if (orig.op_type() == kClip && Crosses(ctx, 11) && ctx.from < 11) typed_inputs = {1, 2};
    if (orig.op_type() == kPad && Crosses(ctx, 11) && ctx.from < 11) typed_inputs = {2};
    if (!typed_inputs.empty()) {
      auto type_it = ctx.elem_types.find(conv_input0[static_cast<size_t>(i)]);
      const int32_t elem_type = type_it == ctx.elem_types.end() ? TensorProto::UNDEFINED : type_it->second;
      if (elem_type == TensorProto::DOUBLE || elem_type == TensorProto::FLOAT16) {
        for (int k : typed_inputs) {
          if (k >= node.input_size()) continue;
          const int c = made_producer(node.input(k), kConstantOp);
          if (c < 0) continue;
          NodeProto* constant = out_nodes->Mutable(c);
          for (auto& a : *constant->mutable_attribute()) {
            if (a.name() == "value" && a.has_t() && a.t().data_type() == TensorProto::FLOAT) {
              RetypeFloatTensor(a.mutable_t(), elem_type);
            }
          }
        }
      }
    }
  }
  if (!insert_before.empty()) {
    google::protobuf::RepeatedPtrField<NodeProto> merged;
    for (int i = 0; i < out_nodes->size(); ++i) {
      auto it = insert_before.find(i);
      if (it != insert_before.end()) {
        for (NodeProto& n : it->second) merged.Add()->Swap(&n);
      }
      merged.Add()->Swap(out_nodes->Mutable(i));
    }
    out_nodes->Swap(&merged);
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
