// rules/typed_stand_ins.h: onnx's shape inference types values past the removed ops, as their rules say, so that
// the planners know the types of what a removed op reads after standard ops that follow another one.
#include "rules/typed_stand_ins.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::CountOps;
using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::ParseModel;

// The shape of a CoreML-era network: ImageScaler at the input, a Crop on a branch, standard ops between, Affine at
// the output; no value_info, a symbolic batch.
constexpr char kChain[] = R"(
<ir_version: 3, opset_import: ["" : 7]>
chain (float[N,3,6,8] x) => (float[N,3,4,6] y) {
  scaled = ImageScaler<scale = 0.5, bias = [1.0, -2.0, 0.25]>(x)
  relu = Relu(scaled)
  cropped = Crop<border = [1, 1, 1, 1]>(relu)
  tanh = Tanh(cropped)
  y = Affine<alpha = 150.0, beta = 0.5>(tanh)
}
)";

// The type inference gives `name` in the main graph of `inferred`, or null.
const onnx::TypeProto* InferredType(const onnx::ModelProto& inferred, const std::string& name) {
  for (const auto& value : inferred.graph().value_info()) {
    if (value.name() == name) return &value.type();
  }
  return nullptr;
}

TEST(TypedStandInsTest, InferenceTypesValuesPastRemovedOps) {
  const onnx::ModelProto model = ParseModel(kChain);
  google::protobuf::Arena arena;
  const onnx::ModelProto* plain = InferTypesOnSkeleton(model, arena);
  EXPECT_EQ(InferredType(*plain, "tanh"), nullptr);  // what onnx alone knows: nothing past the ImageScaler

  const onnx::ModelProto* typed = InferTypesOnSkeleton(model, arena, RemovedOpsTypedForInference(7));
  const onnx::TypeProto* relu = InferredType(*typed, "relu");
  ASSERT_NE(relu, nullptr);
  // An elementwise op keeps its input's shape, symbolic batch included.
  EXPECT_EQ(relu->tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(relu->tensor_type().shape().dim_size(), 4);
  EXPECT_EQ(relu->tensor_type().shape().dim(0).dim_param(), "N");
  EXPECT_EQ(relu->tensor_type().shape().dim(3).dim_value(), 8);
  // Crop keeps the rank and the first two dims; its rule does not promise the others.
  const onnx::TypeProto* tanh = InferredType(*typed, "tanh");
  ASSERT_NE(tanh, nullptr);
  EXPECT_EQ(tanh->tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(tanh->tensor_type().shape().dim_size(), 4);
  EXPECT_EQ(tanh->tensor_type().shape().dim(1).dim_value(), 3);
  // The typed copy is for inference only: the model keeps its removed ops as they are.
  EXPECT_EQ(CountOps(model, "ImageScaler"), 1);
}

// Before, the Affine was refused: "the element type of input 'tanh' is not known". The values are compared in
// ONNX Runtime (the model runner has no removed op): testdata/removed_ops' style_transfer_shape and pair_* models.
// onnx 1.12 types no Concat before Concat-4: the planners' inference gives a Concat-1's output its inputs' dims
// with the axis dim summed (graph/untyped_era_ops.h, EraOutputDims), its axis 1 when it has none, so that a
// removed op after it knows its channels.
TEST(TypedStandInsTest, AConcatOfTheFirstOpsetsHasItsInputsDimsSummedOnItsAxis) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 3]>
g (float[1,2,4,4] a, float[1,1,4,4] b) => (float[1,3,4,4] y, float[2,2,4,4] r) {
  c = Concat(a, b)
  y = ImageScaler<scale = 1.0, bias = [0.0, 1.0, 2.0]>(c)
  z = Concat<axis = 0>(a, a)
  r = Relu(z)
}
)");
  google::protobuf::Arena arena;
  const onnx::ModelProto* typed = InferTypesOnSkeleton(model, arena, RemovedOpsTypedForInference(3));
  const onnx::TypeProto* c = InferredType(*typed, "c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(c->tensor_type().shape().dim_size(), 4);
  EXPECT_EQ(c->tensor_type().shape().dim(1).dim_value(), 3);
  const onnx::TypeProto* z = InferredType(*typed, "z");
  ASSERT_NE(z, nullptr);
  ASSERT_EQ(z->tensor_type().shape().dim_size(), 4);
  EXPECT_EQ(z->tensor_type().shape().dim(0).dim_value(), 2);
}

TEST(TypedStandInsTest, AChainOfRemovedOpsThroughStandardOpsLegalizes) {
  const onnx::ModelProto model = ParseModel(kChain);
  for (int64_t target : {0, 13, 17}) {  // 0: the default target, the model's own opset
    SCOPED_TRACE(target);
    Options options;
    if (target != 0) options.target_opset = target;
    const onnx::ModelProto legalized = LegalizedCopy(model, options);
    EXPECT_EQ(DefaultOpset(legalized), target == 0 ? 7 : target);
    for (const char* op : {"ImageScaler", "Crop", "Affine"}) EXPECT_EQ(CountOps(legalized, op), 0) << op;
  }
}

// Inside an If branch, a DynamicSlice past an ImageScaler and a Tanh knows its data's rank: its negative constant
// axis is made non-negative, so Slice-10 expresses it and the model needs no later opset.
TEST(TypedStandInsTest, ADynamicSliceInABranchKnowsTheRankPastARemovedOp) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
branch (bool cond, float[1,3,4,6] x) => (float[1,3,4,?] y) {
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {-1}> ()
  a = Constant <value = int64[1] {-1}> ()
  y = If (cond) <
    then_branch = then_body () => (float[1,3,4,?] then_y) {
      scaled = ImageScaler<scale = 2.0, bias = [0.0, 1.0, 2.0]>(x)
      t = Tanh(scaled)
      then_y = DynamicSlice(t, s, e, a)
    },
    else_branch = else_body () => (float[1,3,4,?] else_y) {
      else_y = DynamicSlice(x, s, e, a)
    }
  >
}
)");
  const onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(DefaultOpset(legalized), 10);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  EXPECT_EQ(CountOps(legalized, "ImageScaler"), 0);
}

}  // namespace
}  // namespace onnx_legalize
