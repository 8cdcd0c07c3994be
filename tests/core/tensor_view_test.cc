// Tensors that view a TensorProto's raw_data instead of copying it (TensorViewFromProto), the constants
// GraphScope hands the planner that way, and the moves of a model's bytes that Legalize relies on them
// surviving.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "driver/legalize_internal.h"
#include "gmock/gmock.h"
#include "google/protobuf/arena.h"
#include "graph/graph_scope.h"
#include "graph/model_skeleton.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "rules/trial_limits.h"
#include "test_files.h"
#include "test_models.h"
#include "verify/dynamic_slice_verify.h"

namespace onnx_legalize {
namespace {

using ::onnx::TensorProto;
using ::testing::HasSubstr;

// A uint8 tensor of `size` elements whose raw_data counts 0, 1, 2, ... (mod 256).
TensorProto Bytes(const std::string& name, int64_t size) {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(TensorProto::UINT8);
  proto.add_dims(size);
  std::string* raw = proto.mutable_raw_data();
  for (int64_t i = 0; i < size; ++i) raw->push_back(static_cast<char>(i % 256));
  return proto;
}

Tensor Decoded(absl::StatusOr<Tensor> tensor) {
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return tensor.ok() ? *std::move(tensor) : Tensor();
}

TEST(TensorViewFromProtoTest, ViewsRawDataOfTheThresholdSizeInPlace) {
  const TensorProto proto = Bytes("w", kMinViewedBytes);
  const Tensor view = Decoded(TensorViewFromProto(proto));
  EXPECT_TRUE(view.views_bytes());
  EXPECT_EQ(view.bytes().data(), proto.raw_data().data()) << "the proto's own bytes, not a copy";
  EXPECT_EQ(view.bytes().size(), proto.raw_data().size());
  EXPECT_TRUE(view.BitwiseEquals(Decoded(TensorFromProto(proto))));
}

TEST(TensorViewFromProtoTest, CopiesRawDataBelowTheThreshold) {
  const TensorProto proto = Bytes("w", kMinViewedBytes - 1);
  const Tensor copy = Decoded(TensorViewFromProto(proto));
  EXPECT_FALSE(copy.views_bytes());
  EXPECT_NE(copy.bytes().data(), proto.raw_data().data());
  EXPECT_EQ(copy.bytes(), proto.raw_data());
}

TEST(TensorViewFromProtoTest, DecodesTypedFieldsIntoBytesOfItsOwn) {
  TensorProto proto;
  proto.set_data_type(TensorProto::INT64);
  proto.add_dims(kMinViewedBytes);
  for (int64_t i = 0; i < kMinViewedBytes; ++i) proto.add_int64_data(i);
  const Tensor tensor = Decoded(TensorViewFromProto(proto));
  EXPECT_FALSE(tensor.views_bytes());
  EXPECT_TRUE(tensor.BitwiseEquals(Decoded(TensorFromProto(proto))));
}

TEST(TensorViewFromProtoTest, TensorFromProtoNeverViews) {
  const TensorProto proto = Bytes("w", 2 * kMinViewedBytes);
  EXPECT_FALSE(Decoded(TensorFromProto(proto)).views_bytes());
}

TEST(TensorViewFromProtoTest, RefusesWhatTensorFromProtoRefusesWithTheSameMessage) {
  TensorProto short_data = Bytes("w", kMinViewedBytes);
  short_data.set_dims(0, kMinViewedBytes + 1);
  TensorProto bad_bool = Bytes("flags", kMinViewedBytes);
  bad_bool.set_data_type(TensorProto::BOOL);  // bytes 2..255 are no bool
  for (const TensorProto* proto : {&short_data, &bad_bool}) {
    const absl::Status viewed = TensorViewFromProto(*proto, "initializer 'w'").status();
    const absl::Status copied = TensorFromProto(*proto, "initializer 'w'").status();
    EXPECT_EQ(viewed.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(viewed, copied);
  }
}

TEST(TensorViewTest, MutableBytesCopiesFirstAndLeavesTheProtoAlone) {
  const TensorProto proto = Bytes("w", kMinViewedBytes);
  Tensor tensor = Decoded(TensorViewFromProto(proto));
  tensor.mutable_bytes()[0] = 'x';
  EXPECT_FALSE(tensor.views_bytes());
  EXPECT_EQ(tensor.bytes()[0], 'x');
  EXPECT_EQ(proto.raw_data()[0], '\0');
}

TEST(TensorViewTest, ReleaseBytesAndCloneOfAViewCopy) {
  const TensorProto proto = Bytes("w", kMinViewedBytes);
  Tensor tensor = Decoded(TensorViewFromProto(proto));
  const Tensor clone = tensor.Clone();
  EXPECT_FALSE(clone.views_bytes());
  EXPECT_NE(clone.bytes().data(), proto.raw_data().data());
  EXPECT_TRUE(clone.BitwiseEquals(tensor));
  EXPECT_EQ(tensor.release_bytes(), proto.raw_data());
  EXPECT_EQ(proto.raw_data().size(), static_cast<size_t>(kMinViewedBytes)) << "the proto keeps its bytes";
}

// Legalize moves a model's large initializers into another TensorProto and back with Swap, and SaveModel
// swaps raw_data out of a tensor and back: views of them must survive both.
TEST(TensorViewTest, SurvivesSwapsBetweenHeapMessages) {
  onnx::GraphProto graph;
  *graph.add_initializer() = Bytes("w", kMinViewedBytes);
  const Tensor view = Decoded(TensorViewFromProto(graph.initializer(0)));
  const std::string expected(view.bytes());

  TensorProto aside;
  aside.Swap(graph.mutable_initializer(0));
  EXPECT_EQ(view.bytes().data(), aside.raw_data().data());
  std::string taken_out;
  taken_out.swap(*aside.mutable_raw_data());
  aside.clear_raw_data();
  EXPECT_EQ(view.bytes().data(), taken_out.data());
  aside.mutable_raw_data()->swap(taken_out);
  graph.mutable_initializer(0)->Swap(&aside);
  EXPECT_EQ(view.bytes(), expected);
  EXPECT_EQ(view.bytes().data(), graph.initializer(0).raw_data().data());
}

TEST(GraphScopeViewTest, ALargeInitializerOrConstantValueIsViewedInPlace) {
  onnx::GraphProto graph;
  *graph.add_initializer() = Bytes("w", kMinViewedBytes);
  onnx::NodeProto* constant = graph.add_node();
  constant->set_op_type("Constant");
  constant->add_output("c");
  onnx::AttributeProto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = Bytes("", kMinViewedBytes);
  GraphScope scope(graph, "main", nullptr, /*initializers_are_overridable=*/true);

  absl::StatusOr<const Tensor*> w = scope.FindConstant("w");
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_NE(*w, nullptr);
  EXPECT_EQ((*w)->bytes().data(), graph.initializer(0).raw_data().data());
  absl::StatusOr<const Tensor*> c = scope.FindConstant("c");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_NE(*c, nullptr);
  EXPECT_EQ((*c)->bytes().data(), graph.node(0).attribute(0).t().raw_data().data());
}

// A Swap between an arena's message and a heap one copies: the bytes do not stay where they were, so a
// graph on an arena gets constants of their own.
TEST(GraphScopeViewTest, AGraphOnAnArenaGetsCopies) {
  google::protobuf::Arena arena;
  auto* graph = google::protobuf::Arena::CreateMessage<onnx::GraphProto>(&arena);
  *graph->add_initializer() = Bytes("w", kMinViewedBytes);
  GraphScope scope(*graph, "main", nullptr, /*initializers_are_overridable=*/true);
  absl::StatusOr<const Tensor*> w = scope.FindConstant("w");
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_NE(*w, nullptr);
  EXPECT_FALSE((*w)->views_bytes());
  EXPECT_EQ((*w)->bytes(), graph->initializer(0).raw_data());
}

// The planner's constants view the model's weights, which Legalize moves into the result and hands to
// `use` while verification still reads them: a rewrite whose data is a constant of trial size
// (kMaxSliceTrialElements uint8 values, just large enough to be viewed) has every trial copy those bytes. Here
// `use` fails at once, without waiting for the proofs, and Legalize returns while they run; under ASan, a
// read of bytes freed on the way out fails the test.
TEST(LegalizeViewTest, AUseThatFailsEarlyFreesNothingTheVerificationStillReads) {
  static_assert(kMaxSliceTrialElements >= kMinViewedBytes, "the trials must read the viewed bytes");
  onnx::ModelProto model = testing::ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
views (int64[1] s, int64[1] e) => (uint8[?] y) {
  y = DynamicSlice(read, s, e)
}
)");
  *model.mutable_graph()->add_initializer() = Bytes("read", kMinViewedBytes);
  Options options;
  options.verify_trials = 2000;
  absl::StatusOr<Report> report =
      internal::LegalizeAndUse(model, options,
                               [](onnx::ModelProto&, const DeferredTensors&, const internal::AwaitProofs&) {
                                 return absl::UnavailableError("the disk went away");
                               })
          .report;
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("the disk went away"));
}

// LegalizeFile writes the result while verification still runs, and with external_data_name its save moves
// each large raw_data out of the model (a string swap) and back. A weight past kSkeletonKeepBytes is set
// aside and moved into the result, so the bytes the save moves are the very ones a view reads: they must
// stay where they are and whole throughout. The weight has few enough elements for every trial to copy it
// (2,000 trials, while the save runs); under ASan a read of moved or freed bytes fails the test, and
// without it a changed byte would fail the verification.
TEST(LegalizeViewTest, LegalizeFileSavingToADataFileLeavesTheViewedBytesInPlace) {
  const std::filesystem::path dir = testing::MakeTestDir("tensor_view_test");
  onnx::ModelProto model = testing::ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
views (int64[1] s, int64[1] e) => (float[?] y) {
  y = DynamicSlice(read, s, e)
}
)");
  constexpr int64_t kElements = 20000;  // 80,000 bytes: past kSkeletonKeepBytes, within kMaxSliceTrialElements
  static_assert(4 * kElements > kSkeletonKeepBytes && kElements <= kMaxSliceTrialElements, "see above");
  TensorProto read = Bytes("read", 4 * kElements);
  read.set_data_type(TensorProto::FLOAT);
  read.set_dims(0, kElements);
  *model.mutable_graph()->add_initializer() = read;
  const std::string in = (dir / "in.onnx").string();
  const std::string out = (dir / "out.onnx").string();
  ASSERT_TRUE(SaveModel(model, in).ok());
  Options options;
  options.verify_trials = 2000;
  SaveOptions save;
  save.external_data_name = "out.data";
  absl::StatusOr<Report> report = LegalizeFile(in, out, options, save);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->nodes.size(), 1u);
  EXPECT_EQ(report->nodes[0].action, Action::kRewritten);
  EXPECT_THAT(report->nodes[0].verification, HasSubstr("2000 seeded trials"));
  EXPECT_EQ(testing::ReadBytes(dir / "out.data"), model.graph().initializer(0).raw_data());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onnx_legalize
