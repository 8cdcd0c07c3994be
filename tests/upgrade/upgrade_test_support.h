// What the upgrade tests share (tests/upgrade/ and tests/upgrade/fixes/): models parsed with their nodes named
// "node_<first output>", lookups of nodes, attributes and constants, the checks every converted model must
// pass, and the models more than one test file converts.
#ifndef ONNX_LEGALIZE_TESTS_UPGRADE_UPGRADE_TEST_SUPPORT_H_
#define ONNX_LEGALIZE_TESTS_UPGRADE_UPGRADE_TEST_SUPPORT_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize::testing {

// The protos every upgrade test reads, by their short names.
using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::ModelProto;
using onnx::NodeProto;
using onnx::TensorProto;

// Calls `fn` on `graph` and on every graph below it (If/Loop/Scan bodies), outermost first.
void ForEachGraph(onnx::GraphProto* graph, const std::function<void(onnx::GraphProto*)>& fn);

// The model `text` describes, every unnamed node named "node_<first output>" in every graph, so that tests can
// find nodes.
onnx::ModelProto ParseModelNamingNodes(const char* text);

// The node of `graph` named `name`; nullptr when there is none.
const onnx::NodeProto* FindNode(const onnx::GraphProto& graph, const std::string& name);

// The node of `graph` that outputs `value`; nullptr when there is none.
const onnx::NodeProto* Producer(const onnx::GraphProto& graph, const std::string& value);

// The attribute `name` of `node`; nullptr when there is none.
const onnx::AttributeProto* FindAttr(const onnx::NodeProto& node, const std::string& name);

// The tensor of the Constant node (or initializer) behind `value`; nullptr when there is none.
const onnx::TensorProto* ConstantTensor(const onnx::GraphProto& graph, const std::string& value);

// The int64 values of the Constant node (or initializer) behind `value`; {-999} when there is none.
std::vector<int64_t> ConstInts(const onnx::GraphProto& graph, const std::string& value);

// The float values of the Constant node (or initializer) behind `value`; {-999} when there is none.
std::vector<float> ConstFloats(const onnx::GraphProto& graph, const std::string& value);

// The op types of `graph`'s nodes, in order.
std::vector<std::string> OpTypes(const onnx::GraphProto& graph);

// The names of `graph`'s nodes that also occur in `names`, in order.
std::vector<std::string> NodeNamesAmong(const onnx::GraphProto& graph, const std::set<std::string>& names);

// The names of `graph`'s nodes.
std::set<std::string> NodeNames(const onnx::GraphProto& graph);

// Every value is defined once in the whole model, and every reference resolves in its scope.
void ExpectWellFormed(const onnx::ModelProto& model);

// Expects MoveDefaultOpset(model, target) to fail with `code` and a message holding `text`, leaving the
// model as it was.
void ExpectRejectedUnchanged(onnx::ModelProto model, int64_t target, absl::StatusCode code, const std::string& text);

// Expects onnx's shape inference, in strict mode, to accept `model`.
void ExpectStrictShapeInferenceAccepts(onnx::ModelProto model);

// An opset-9 model with everything the converter would lose (doc strings, metadata, value_info, functions,
// other domains, subgraphs), for the tests that it all survives the move.
onnx::ModelProto RichModel();

// ---- models more than one file converts ------------------------------------------------------------------

// An opset-9 model with one node of every kind whose meaning moves between 9 and 17, and a DynamicSlice.
inline constexpr char kLegacyModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9, "ai.onnx.ml" : 1], producer_name: "legacy", producer_version: "0.4">
legacy (float[1,3,8,8] x, int64[2] starts, int64[2] ends)
  => (float[1,3,6,8] sliced, float[1,3,16,16] up, float[1,3,8,2] topv, int64[1,3,8,2] topi,
      float[1,3,8,8] clipped, float[1,3,10,10] padded, float[3,8,8] squeezed, float[1,1,3,8,8] unsq,
      float[1,3,8,8] soft, float[1,1,8,8] split0, float[1,2,8,8] split1, float[1,1,8,8] rsum, float dyn)
<float[4] scales = {1.0, 1.0, 2.0, 2.0}>
{
  sliced = Slice<starts=[0,1], ends=[1,7], axes=[0,2]>(x)
  up = Upsample<mode="nearest">(x, scales)
  topv, topi = TopK<k=2, axis=-1>(x)
  clipped = Clip<min=0.0, max=6.0>(x)
  padded = Pad<pads=[0,0,1,1,0,0,1,1], mode="constant", value=0.5>(x)
  squeezed = Squeeze<axes=[0]>(x)
  dyn = DynamicSlice(x, starts, ends)
  unsq = Unsqueeze<axes=[0]>(x)
  soft = Softmax<axis=1>(x)
  split0, split1 = Split<axis=1, split=[1,2]>(x)
  rsum = ReduceSum<axes=[1], keepdims=1>(x)
}
)ONNX";

inline constexpr char kLoopModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
looped (int64 trip, bool cond, float[4,6] x0, int64[1] s, int64[1] e) => (float[4,6] xf, float[4,6] last)
{
  xf, scans = Loop(trip, cond, x0) <body = body (int64 i, bool c, float[4,6] x) => (bool c_out, float[4,6] x_out, float[4,6] x_scan) {
      c_out = Identity(c)
      u = Unsqueeze<axes=[0]>(x)
      d = DynamicSlice(u, s, e)
      x_out = Squeeze<axes=[0]>(d)
      x_scan = Slice<starts=[0], ends=[4], axes=[0]>(x)
  }>
  last = Squeeze<axes=[0]>(x0)
}
)ONNX";

inline constexpr char kIfModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
branched (bool b, float[2,5] x, int64[1] s, int64[1] e) => (float[2,5] y)
{
  y = If (b) <
    then_branch = then_g () => (float[2,5] y_then) {
      t = TopK<k=1, axis=1>(x)
      y_then = DynamicSlice(x, s, e)
    },
    else_branch = else_g () => (float[2,5] y_else) {
      y_else = Softmax<axis=0>(x)
    }
  >
}
)ONNX";

// d is declared [1,2,?,?]. onnx 1.12's Softmax 12->13 adapter writes each dim's Dimension::dim into its
// Reshape constant, and an unknown dim's is uninitialized memory: this model once got [1,2,2,2], which
// ONNX Runtime cannot reshape a [2,8] Softmax output to. The shape has to come from d at run time.
inline constexpr char kSoftmaxOverUnknownDims[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,2,4,5] x, int64[2] s, int64[2] e) => (float[1,2,?,?] y) <float[1,2,?,?] d> {
  d = DynamicSlice(x, s, e)
  y = Softmax<axis=2>(d)
}
)ONNX";

}  // namespace onnx_legalize::testing

#endif  // ONNX_LEGALIZE_TESTS_UPGRADE_UPGRADE_TEST_SUPPORT_H_
