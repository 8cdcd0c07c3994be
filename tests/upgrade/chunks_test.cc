// The conversion in chunks (src/upgrade/chunks.cc): every chunked conversion equals the whole graph's.
#include "upgrade/opset_upgrade.h"

#include <string>

#include <google/protobuf/util/message_differencer.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::google::protobuf::util::MessageDifferencer;

// Converting the main graph in chunks of any size gives, byte for byte, what converting it whole gives:
// the same model, or the same error.
void ExpectChunksConvertLikeTheWhole(const ModelProto& model, int64_t target) {
  ModelProto whole = model;
  const absl::Status whole_status = MoveDefaultOpsetInChunks(whole, target, 0);
  for (int64_t chunk_nodes : {1, 2, 3, 5, 64}) {
    ModelProto chunked = model;
    const absl::Status status = MoveDefaultOpsetInChunks(chunked, target, chunk_nodes);
    EXPECT_EQ(status, whole_status) << "target " << target << ", chunks of " << chunk_nodes;
    EXPECT_TRUE(testing::Serialize(chunked) == testing::Serialize(whole))
        << "target " << target << ", chunks of " << chunk_nodes << ":\n"
        << chunked.graph().DebugString() << "\nwhole:\n"
        << whole.graph().DebugString();
  }
}

// Values cross chunks in every way an adapter can see: the outputs of replaced nodes (Upsample, Scatter)
// and of restructured ones (Softmax, Hardmax) read far away, captured by a branch, symbolic and unknown
// shapes, converter-made initializers (Pad) and typed constants (Clip on double), untouched nodes
// (DynamicSlice, Relu) in between.
constexpr char kCrossingModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
crossing (float[N,3,4,4] x, double[3] dx, int64[1] s, int64[1] e, bool b, float[1,3,3] sd, int64[1,2] idx,
          float[1,2] upd)
  => (float[N,3,8,8] up, float[N,3,8,8] soft, float[N,3,10,10] padded, double[3] dclip, float[N,3,8,8] hard,
      float[N,3,8,8] both, float[1,3,3] scattered, float[N,3,8,8] branch, float l, float[N,3,8,8] last)
<float[4] scales = {1.0, 1.0, 2.0, 2.0}>
{
  r = Relu(x)
  up = Upsample<mode="nearest">(r, scales)
  u1 = Unsqueeze<axes=[0]>(up)
  d = DynamicSlice(up, s, e)
  soft = Softmax<axis=1>(up)
  sq = Squeeze<axes=[0]>(u1)
  padded = Pad<pads=[0,0,1,1,0,0,1,1]>(sq)
  dclip = Clip<min=-1.0, max=1.0>(dx)
  hard = Hardmax<axis=2>(soft)
  both = Add(hard, sq)
  scat = Scatter<axis=1>(sd, idx, upd)
  scattered = Relu(scat)
  branch = If (b) <
    then_branch = t () => (float[N,3,8,8] bt) { bt = Softmax<axis=1>(both) },
    else_branch = f () => (float[N,3,8,8] bf) { bf = Identity(up) }
  >
  l = ReduceSum<keepdims=0>(d)
  dd = DynamicSlice(both, s, e)
  last = LogSoftmax<axis=1>(both)
}
)ONNX";

class ChunkedConversionTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionAcrossChunkBoundaries) {
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kCrossingModel), GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionOfTheLegacyModels) {
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kLegacyModel), GetParam());
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kLoopModel), GetParam());
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kIfModel), GetParam());
  ExpectChunksConvertLikeTheWhole(RichModel(), GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionOverUnknownDims) {
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kSoftmaxOverUnknownDims), GetParam());
}

// Dims past 2^31 (onnx 1.23's IR keeps all 64 bits of a dim; 1.12's passed them through int).
TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionOverDimsPastTwoToThe31) {
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[3000000000,2] x, float[3000000000] b) => (float[3000000000,2] y, float[3000000000,2] z) {
  y = Softmax<axis=0>(x)
  t = Transpose(x)
  s = Add(t, b)
  z = Transpose(s)
}
)ONNX"),
                                  GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionWhenABranchCapturesARestructuredValue) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3,4] x, bool b, int64[1] s, int64[1] e) => (float[2,3,4] y, float[2,3,4] z) {
  soft = Softmax<axis=1>(x)
  d1 = DynamicSlice(x, s, e)
  r = Relu(x)
  d2 = DynamicSlice(x, s, e)
  z = Relu(r)
  y = If (b) <
    then_branch = t () => (float[2,3,4] yt) { yt = Identity(soft) },
    else_branch = f () => (float[2,3,4] yf) { yf = Neg(soft) }
  >
}
)ONNX");
  ExpectChunksConvertLikeTheWhole(model, GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionWhenAnAdapterFails) {
  // Softmax 12->13 needs its input's rank, which nothing gives here: the same error either way.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3] x, int64[1] s, int64[1] e) => (float[2,3] y, float z) {
  a = Relu(x)
  d = DynamicSlice(a, s, e)
  b = Relu(a)
  z = Softmax<axis=0>(d)
  y = Softmax<axis=0>(b)
}
)ONNX");
  ExpectChunksConvertLikeTheWhole(model, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Targets, ChunkedConversionTest, ::testing::Values(10, 11, 12, 13, 14, 15, 16, 17));

TEST(ChunkedConversionTest, EqualsWholeGraphConversionWhenNoNodeMeetsAnAdapter) {
  // From 9 to 10 none of these changes: the model keeps its nodes and moves its opset only. Then one that
  // does (Upsample) among them, and one whose op onnx 1.12 does not know.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9, "custom" : 1]>
g (float[2,3] x, float[3,4] w, int64[1] s, int64[1] e) => (float[2,4] y, float z) {
  a = Relu(x)
  d = DynamicSlice(a, s, e)
  m = MatMul(a, w)
  c = custom.Op<alpha=1.0>(m)
  y = Identity(c)
  z = ReduceSum<keepdims=0>(d)
}
)ONNX");
  model.mutable_graph()->mutable_node(0)->set_doc_string("kept");
  ExpectChunksConvertLikeTheWhole(model, 10);
  ModelProto in_place = model;
  ASSERT_TRUE(MoveDefaultOpset(in_place, 10).ok());
  ASSERT_EQ(in_place.graph().node_size(), model.graph().node_size());
  for (int i = 0; i < model.graph().node_size(); ++i) {
    EXPECT_TRUE(MessageDifferencer::Equals(in_place.graph().node(i), model.graph().node(i)));
  }
  EXPECT_EQ(DefaultOpset(in_place), 10);
  EXPECT_EQ(in_place.ir_version(), 5);

  NodeProto* upsample = model.mutable_graph()->add_node();
  upsample->set_op_type("Upsample");
  upsample->add_input("x");
  upsample->add_input("scales");
  upsample->add_output("up");
  auto* scales = model.mutable_graph()->add_initializer();
  scales->set_name("scales");
  scales->set_data_type(TensorProto::FLOAT);
  scales->add_dims(2);
  scales->add_float_data(1.0f);
  scales->add_float_data(2.0f);
  ExpectChunksConvertLikeTheWhole(model, 10);

  ModelProto unknown = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3] x) => (float[2,3] y) {
  a = Relu(x)
  y = NoSuchOp(a)
}
)ONNX");
  ExpectChunksConvertLikeTheWhole(unknown, 10);
  ModelProto failing = unknown;
  EXPECT_EQ(MoveDefaultOpset(failing, 10).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ChunkedConversionTest, EqualsWholeGraphConversionFromOpsets6And8) {
  // Legacy broadcasting and Gemm (6 -> 7), Upsample (6 -> 7, 8 -> 9) and Scan-8, whose adapter changes the
  // sizes of the values the Scan reads, which other chunks read too.
  ModelProto opset6 = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1,3,4,4] x, float[3] bias, float[2,3] a, float[3,4] w, float[4] c) => (float[1,3,4,4] y, float[2,4] z, float[1,3,4,4] v) {
  r = Relu(x)
  y = Add<broadcast=1, axis=1>(r, bias)
  t = Relu(a)
  z = Gemm<broadcast=1>(t, w, c)
  v = Mul<broadcast=1, axis=1>(y, bias)
}
)ONNX");
  for (int64_t target : {7, 9, 11, 13}) ExpectChunksConvertLikeTheWhole(opset6, target);

  ModelProto opset8 = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (float[2,5,3] x, float[4] scales) => (float[2,5,3] soft, float[2,5,3] r2, float[?,?,?] up) {
  r = Relu(x)
  soft = Softmax<axis=1>(r)
  up = Upsample<mode="nearest">(r, scales)
  r2 = Relu(r)
}
)ONNX");
  for (int64_t target : {9, 11, 13}) ExpectChunksConvertLikeTheWhole(opset8, target);
}

TEST(ChunkedConversionTest, LongChainsConvertLikeTheWhole) {
  // 300 converted nodes between untouched ones, each reading the one before: every boundary is crossed.
  std::string text = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3,4] x0, int64[1] s, int64[1] e) => (float[2,3,4] x300) {
)ONNX";
  for (int i = 0; i < 300; ++i) {
    const std::string in = absl::StrCat("x", i), out = absl::StrCat("x", i + 1);
    if (i % 3 == 0) {
      // Untouched nodes right before and after a node the adapter grows on both sides.
      absl::StrAppend(&text, "  d", i, " = DynamicSlice(", in, ", s, e)\n");
      absl::StrAppend(&text, "  ", out, " = Softmax<axis=1>(", in, ")\n");
      absl::StrAppend(&text, "  f", i, " = DynamicSlice(", out, ", s, e)\n");
    } else if (i % 3 == 1) {
      absl::StrAppend(&text, "  u", i, " = Unsqueeze<axes=[0]>(", in, ")\n");
      absl::StrAppend(&text, "  ", out, " = Squeeze<axes=[0]>(u", i, ")\n");
    } else {
      absl::StrAppend(&text, "  ", out, " = Clip<min=0.0, max=6.0>(", in, ")\n");
    }
  }
  text += "}\n";
  const ModelProto model = ParseModelNamingNodes(text.c_str());
  for (int64_t target : {11, 13}) ExpectChunksConvertLikeTheWhole(model, target);
}

}  // namespace
}  // namespace onnx_legalize::testing
