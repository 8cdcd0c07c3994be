// graph/ir_features.h: the lowest IR version that holds what a model holds, and the IR a model moved down to an
// older opset is written with.
#include "graph/ir_features.h"

#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using testing::ParseModel;

TEST(IrFeaturesTest, AModelOfOnlyWhatIr3HadNeedsIr3) {
  const onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 10, opset_import: ["" : 13]>
g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {1, 2}> { y = Add (x, w) }
)ONNX");
  EXPECT_EQ(IrVersionItsContentsNeed(model), 3) << "its one initializer is listed among the inputs";
  EXPECT_EQ(IrVersionAfterMovingDown(model, 8), 3);
  EXPECT_EQ(IrVersionAfterMovingDown(model, 11), 6) << "onnx 1.6's";
  EXPECT_EQ(IrVersionAfterMovingDown(model, 15), 8) << "onnx 1.10's, which ONNX Runtime 1.10 reads";
}

TEST(IrFeaturesTest, AnInitializerOutsideTheInputsNeedsIr4) {
  const onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) <float[2] w = {1, 2}> { y = Add (x, w) }
)ONNX");
  EXPECT_EQ(IrVersionItsContentsNeed(model), 4);
  EXPECT_EQ(IrVersionAfterMovingDown(model, 7), 4);
}

TEST(IrFeaturesTest, NeverRaisesTheModelsOwnIr) {
  const onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) { y = Relu (x) }
)ONNX");
  EXPECT_EQ(IrVersionAfterMovingDown(model, 12), 7);
  EXPECT_EQ(IrVersionAfterMovingDown(model, 11), 6);
}

TEST(IrFeaturesTest, FieldsAndTypesOfLaterIrsKeepThatIr) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 10, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) { y = Relu (x) }
)ONNX");
  model.add_functions()->set_name("f");
  EXPECT_EQ(IrVersionItsContentsNeed(model), 8) << "a model-local function";
  model.mutable_graph()->mutable_node(0)->add_metadata_props()->set_key("k");
  EXPECT_EQ(IrVersionItsContentsNeed(model), 10) << "metadata on a node";
  EXPECT_EQ(IrVersionAfterMovingDown(model, 11), 10);

  onnx::ModelProto typed = ParseModel(R"ONNX(
<ir_version: 10, opset_import: ["" : 21]>
g (float[2] x) => (float[2] y) { y = Relu (x) }
)ONNX");
  typed.mutable_graph()->mutable_value_info()->Add()->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT8E4M3FN);
  EXPECT_EQ(IrVersionItsContentsNeed(typed), 9) << "a float8 value";
  onnx::TensorProto* int4 = typed.mutable_graph()->mutable_node(0)->add_attribute()->mutable_t();
  int4->set_data_type(onnx::TensorProto::INT4);
  EXPECT_EQ(IrVersionItsContentsNeed(typed), 10) << "an int4 tensor inside an attribute";
}

}  // namespace
}  // namespace onnx_legalize
