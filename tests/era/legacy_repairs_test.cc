// era/legacy_repairs.h: a model written the way ONNX's first exporters wrote it is read with the meaning they
// gave it, each repair is reported, and a failed legalization takes every repair back.
#include "era/legacy_repairs.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/attributes.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::SameModel;
using ::testing::HasSubstr;

// A PyTorch 0.2 export: IR 1, no opset_import, attributes without their type field.
onnx::ModelProto Ir1Model() {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[1,1,4,4] x, float[1,1,3,3] w) => (float[1,1,2,2] y) {
  c = Conv<kernel_shape = [3, 3], strides = [1, 1], group = 1>(x, w)
  y = Relu(c)
}
)");
  model.set_ir_version(1);
  model.clear_opset_import();
  for (auto& attribute : *model.mutable_graph()->mutable_node(0)->mutable_attribute()) attribute.clear_type();
  return model;
}

TEST(ReadAsItsEra, Ir1WithoutImportsMeansDefaultOpset1AndAttributeTypesComeFromTheirValues) {
  onnx::ModelProto model = Ir1Model();
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  ASSERT_EQ(model.opset_import_size(), 1);
  EXPECT_EQ(model.opset_import(0).domain(), "");
  EXPECT_EQ(model.opset_import(0).version(), 1);
  const onnx::NodeProto& conv = model.graph().node(0);
  EXPECT_EQ(FindAttribute(conv, "kernel_shape")->type(), onnx::AttributeProto::INTS);
  EXPECT_EQ(FindAttribute(conv, "group")->type(), onnx::AttributeProto::INT);
  EXPECT_THAT(repairs.Describe(),
              ::testing::ElementsAre(HasSubstr("IR version 1 has no opset imports"), HasSubstr("kernel_shape INTS")));
}

TEST(ReadAsItsEra, UndoGivesBackTheModelAsRead) {
  const onnx::ModelProto original = Ir1Model();
  onnx::ModelProto model = original;
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  EXPECT_FALSE(SameModel(model, original));
  repairs.Undo();
  EXPECT_TRUE(SameModel(model, original));
}

TEST(ReadAsItsEra, LegalizingAnIr1ModelWritesTheImportAndRaisesTheIrVersion) {
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(Ir1Model(), {}, &report);
  EXPECT_GE(legalized.ir_version(), 3);
  EXPECT_EQ(DefaultOpset(legalized), 1);
  EXPECT_TRUE(report.changed);
  EXPECT_EQ(report.legacy_repairs.size(), 2u);
  onnx::ModelProto checked = legalized;
  EXPECT_NO_THROW(onnx::checker::check_model(checked));
}

TEST(ReadAsItsEra, AnAttributeThatSetsTwoValuesIsRefusedNamingIt) {
  onnx::ModelProto model = Ir1Model();
  onnx::AttributeProto* group = model.mutable_graph()->mutable_node(0)->mutable_attribute(2);
  group->set_f(1.0f);
  const onnx::ModelProto before = model;
  LegacyRepairs repairs;
  const absl::Status status = ReadAsItsEra(model, repairs);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("attribute 'group' has no type and sets 2 value fields"));
  EXPECT_TRUE(SameModel(model, before));  // the import written first is taken back too
}

TEST(ReadAsItsEra, ADomainImportedTwiceIsImportedOnceAtItsHighestVersion) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[1,1,2,2] x) => (float[1,1,4,4] y) {
  y = Pad<pads = [0, 0, 1, 1, 0, 0, 1, 1], mode = "reflect">(x)
}
)");
  onnx::OperatorSetIdProto* second = model.add_opset_import();
  second->set_domain("");
  second->set_version(2);
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  ASSERT_EQ(model.opset_import_size(), 1);
  EXPECT_EQ(model.opset_import(0).version(), 2);
}

TEST(ReadAsItsEra, AnIr3ModelWithoutImportsReadsAsTheLowestOpsetItsNodesFit) {
  // Pad with `pads`: Pad-2 (Pad-1 called them `paddings`), as WinMLTools 0.1's FNS-Candy wrote it.
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[1,1,2,2] x) => (float[1,1,4,4] y) {
  p = Pad<pads = [0, 0, 1, 1, 0, 0, 1, 1], mode = "reflect">(x)
  y = Relu(p)
}
)");
  model.clear_opset_import();
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  ASSERT_EQ(model.opset_import_size(), 1);
  EXPECT_EQ(model.opset_import(0).version(), 2);
  EXPECT_THAT(repairs.Describe()[0], HasSubstr("read as opset 2"));
}

// Upsample with height_scale and width_scale is the experimental Upsample-1 (opsets 1-6); with `scales`, Upsample-7.
TEST(ReadAsItsEra, AnUpsampleWithoutImportsReadsAsTheUpsampleItsAttributesName) {
  for (const auto& [upsample, opset] :
       std::vector<std::pair<std::string, int64_t>>{{"Upsample<height_scale = 2.0, width_scale = 2.0>(x)", 1},
                                                    {"Upsample<scales = [1.0, 1.0, 2.0, 2.0]>(x)", 7}}) {
    onnx::ModelProto model = ParseModel(absl::StrCat(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[1,1,2,2] x) => (float[1,1,4,4] y) {
  y = )",
                                                     upsample, R"(
}
)")
                                            .c_str());
    model.clear_opset_import();
    LegacyRepairs repairs;
    ASSERT_TRUE(ReadAsItsEra(model, repairs).ok()) << upsample;
    ASSERT_EQ(model.opset_import_size(), 1);
    EXPECT_EQ(model.opset_import(0).version(), opset) << upsample;
  }
}

TEST(ReadAsItsEra, AnIr3ModelWhoseNodesFitNoOpsetIsRefused) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[2] x) => (float[2] y) {
  y = Relu<not_an_attribute = 1>(x)
}
)");
  model.clear_opset_import();
  LegacyRepairs repairs;
  const absl::Status status = ReadAsItsEra(model, repairs);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("Relu"));
  EXPECT_THAT(status.message(), HasSubstr("fits none"));
}

TEST(ReadAsItsEra, NodesOutOfOrderAreSortedStably) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y, float[2] z) {
  a = Relu(x)
  y = Neg(b)
  b = Abs(a)
  z = Exp(a)
}
)");
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  std::vector<std::string> order;
  for (const auto& node : model.graph().node()) order.push_back(node.op_type());
  EXPECT_THAT(order, ::testing::ElementsAre("Relu", "Abs", "Neg", "Exp"));
  EXPECT_THAT(repairs.Describe(),
              ::testing::ElementsAre(HasSubstr("graph main: nodes listed out of topological order")));
}

TEST(ReadAsItsEra, ACycleIsLeftForValidationToName) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) {
  a = Add(x, b)
  b = Relu(a)
  y = Neg(b)
}
)");
  const onnx::ModelProto before = model;
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  EXPECT_TRUE(repairs.empty());
  EXPECT_TRUE(SameModel(model, before));
  onnx::ModelProto copy = model;
  const absl::StatusOr<Report> report = Legalize(copy, {});
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ReadAsItsEra, BatchNormalization1GetsTheConsumedInputsItsExporterLeftOut) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[1,2,2,2] x, float[2] s, float[2] b, float[2] m, float[2] v) => (float[1,2,2,2] y) {
  y = BatchNormalization<epsilon = 0.001, is_test = 1, spatial = 1>(x, s, b, m, v)
}
)");
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  const onnx::AttributeProto* consumed = FindAttribute(model.graph().node(0), "consumed_inputs");
  ASSERT_NE(consumed, nullptr);
  EXPECT_THAT(consumed->ints(), ::testing::ElementsAre(0, 0, 0, 0, 0));
  onnx::ModelProto checked = model;
  EXPECT_NO_THROW(onnx::checker::check_model(checked));
}

TEST(ReadAsItsEra, InstanceNormalizationLosesTheFlagsNoSchemaHas) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 2]>
g (float[1,2,2,2] x, float[2] s, float[2] b) => (float[1,2,2,2] y) {
  y = InstanceNormalization<epsilon = 0.001, is_test = 1, spatial = 1>(x, s, b)
}
)");
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  EXPECT_EQ(model.graph().node(0).attribute_size(), 1);
  EXPECT_EQ(model.graph().node(0).attribute(0).name(), "epsilon");
  repairs.Undo();
  EXPECT_EQ(model.graph().node(0).attribute_size(), 3);
  EXPECT_EQ(model.graph().node(0).attribute(1).name(), "is_test");  // back where it was
}

TEST(ReadAsItsEra, InstanceNormalizationWithSpatial0IsRefused) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 2]>
g (float[1,2,2,2] x, float[2] s, float[2] b) => (float[1,2,2,2] y) {
  y = InstanceNormalization<epsilon = 0.001, spatial = 0>(x, s, b)
}
)");
  LegacyRepairs repairs;
  const absl::Status status = ReadAsItsEra(model, repairs);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("spatial=0"));
}

TEST(ReadAsItsEra, MaxPoolDilationsOfOneAreDroppedBeforeOpset10) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
  y = MaxPool<kernel_shape = [2, 2], strides = [2, 2], dilations = [1, 1]>(x)
}
)");
  LegacyRepairs repairs;
  ASSERT_TRUE(ReadAsItsEra(model, repairs).ok());
  EXPECT_EQ(FindAttribute(model.graph().node(0), "dilations"), nullptr);
}

TEST(ReadAsItsEra, AFailedLegalizationTakesTheRepairsBack) {
  onnx::ModelProto model = Ir1Model();
  // An op no one defines: legalizing refuses the model after the era's repairs were made.
  onnx::NodeProto* unknown = model.mutable_graph()->add_node();
  unknown->set_op_type("NoSuchOp");
  unknown->add_input("y");
  unknown->add_output("z");
  model.mutable_graph()->mutable_output(0)->set_name("z");
  const onnx::ModelProto before = model;
  const absl::StatusOr<Report> report = Legalize(model, {});
  EXPECT_FALSE(report.ok());
  EXPECT_TRUE(SameModel(model, before));
}

// PyTorch 0.3's recurrent exports: onnx 1.12 has no adapter from their first versions ("No Adapter From
// Version $6 for LSTM"); output_sequence, which only said Y was optional, goes at opset 7.
TEST(RecurrentOpsOfOpsets1To6, MoveToOpset7WithoutOutputSequence) {
  const std::pair<const char*, int> ops[] = {{"LSTM", 4}, {"GRU", 3}, {"RNN", 1}};
  for (const auto& [op, gates] : ops) {
    const std::string rows = std::to_string(gates * 3);
    const std::string text = std::string(R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[5,1,2] x, float[1,)") +
                             rows + R"(,2] w, float[1,)" + rows + R"(,3] r) => (float[1,1,3] h) {
  y, h = )" + op + R"(<hidden_size = 3, output_sequence = 0>(x, w, r)
}
)";
    Options options;
    options.target_opset = 7;
    const onnx::ModelProto legalized = LegalizedCopy(ParseModel(text.c_str()), options);
    EXPECT_EQ(DefaultOpset(legalized), 7) << op;
    ASSERT_EQ(legalized.graph().node_size(), 1) << op;
    EXPECT_EQ(FindAttribute(legalized.graph().node(0), "output_sequence"), nullptr) << op;
    EXPECT_NE(FindAttribute(legalized.graph().node(0), "hidden_size"), nullptr) << op;
    onnx::ModelProto checked = legalized;
    EXPECT_NO_THROW(onnx::checker::check_model(checked)) << op;
  }
}

// ONNX Runtime runs no opset below 7, so the model runner's execution of both forms is the move's only proof:
// the report must say the recurrent ops ran (their kernels, eval/kernels/recurrent.cc) and agreed, at 7 and
// past the layout attribute of version 14. Bidirectional, with biases and an initial state, so that every input
// the move carries over is read.
TEST(RecurrentOpsOfOpsets1To6, MoveIsExecutedByTheModelRunnerAndIdentical) {
  const std::pair<const char*, int> ops[] = {{"LSTM", 4}, {"GRU", 3}, {"RNN", 1}};
  for (const auto& [op, gates] : ops) {
    const std::string rows = std::to_string(gates * 3);
    const std::string text = std::string(R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[5,2,4] x, float[2,)") +
                             rows + R"(,4] w, float[2,)" + rows + R"(,3] r, float[2,)" + std::to_string(gates * 6) +
                             R"(] b, float[2,2,3] h0) => (float[5,2,2,3] y, float[2,2,3] h) {
  y, h = )" + op + R"(<hidden_size = 3, direction = "bidirectional", output_sequence = 1>(x, w, r, b, , h0)
}
)";
    for (const int target : {7, 17}) {
      Options options;
      options.target_opset = target;
      Report report;
      const onnx::ModelProto legalized = LegalizedCopy(ParseModel(text.c_str()), options, &report);
      EXPECT_EQ(DefaultOpset(legalized), target) << op;
      EXPECT_THAT(report.opset_move, HasSubstr("executed in the model runner at opset 6 and " + std::to_string(target)))
          << op;
      EXPECT_THAT(report.opset_move, HasSubstr("every output identical")) << op;
    }
  }
}

// onnx 1.12's Reshape 4->5 adapter makes Reshape-1's `shape` attribute a Constant without dims (a scalar of two
// values, which no runtime reads), and int64, which Constant takes only from opset 9: below 9 the shape becomes
// a 1-D initializer. The proof runs the model before and after the move.
TEST(OpsetMoveOfFirstOpsets, Reshape1BecomesAReshapeOfA1DShapeInitializerBelowOpset9) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[1,3,5,5] x) => (float[1,75] y) {
  y = Reshape<shape = [1, -1]>(x)
}
)");
  Options options;
  options.target_opset = 7;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(DefaultOpset(legalized), 7);
  ASSERT_EQ(legalized.graph().node_size(), 1);
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  const onnx::TensorProto& shape = legalized.graph().initializer(0);
  EXPECT_EQ(shape.data_type(), onnx::TensorProto::INT64);
  ASSERT_EQ(shape.dims_size(), 1);
  EXPECT_EQ(shape.dims(0), 2);
  EXPECT_EQ(legalized.graph().node(0).input(1), shape.name());
  onnx::ModelProto checked = legalized;
  EXPECT_NO_THROW(onnx::checker::check_model(checked));
  EXPECT_THAT(report.opset_move, HasSubstr("identical"));

  options.target_opset = 9;  // Constant takes int64 from 9: the adapter's node stays, with its dims
  const onnx::ModelProto at9 = LegalizedCopy(model, options);
  EXPECT_EQ(at9.graph().initializer_size(), 0);
  ASSERT_EQ(at9.graph().node_size(), 2);
  EXPECT_EQ(at9.graph().node(0).attribute(0).t().dims_size(), 1);
}

// The 12 -> 13 adapter of Softmax reads its input's shape, which onnx 1.12 cannot infer past Gemm-1 (no
// inference function): the move declares Gemm-1's [M, N] from its inputs' shapes.
TEST(OpsetMoveOfFirstOpsets, ASoftmaxAfterGemm1MovesPast13) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 2]>
g (float[2,6] x, float[4,6] w, float[4] b) => (float[2,4] y) {
  z = Gemm<transB = 1, broadcast = 1>(x, w, b)
  y = Softmax<axis = 1>(z)
}
)");
  Options options;
  options.target_opset = 13;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(DefaultOpset(legalized), 13);
  EXPECT_THAT(report.opset_move, HasSubstr("identical"));
}

}  // namespace
}  // namespace onnx_legalize
