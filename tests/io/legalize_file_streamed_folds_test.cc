// LegalizeFile computes large folds as it writes them (eval/deferred_tensor.h, verify/streamed_fold.h), so
// that they never exist whole in memory. What it writes must be what Legalize and SaveModel write for the
// same input, byte for byte, whichever way the model is saved; the report says how each fold was proved.
#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "driver/legalize_internal.h"
#include "eval/deferred_tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_files.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::Iota;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::MakeInitializerConstant;
using ::onnx_legalize::testing::MakeTestDir;
using ::onnx_legalize::testing::NodeFor;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::ReadBytes;
using ::onnx_legalize::testing::Serialize;
using ::onnx_legalize::testing::WithoutProofSeconds;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// A 256 KiB weight and four folds of it: `rows` and `window` are large (more than kSkeletonKeepBytes) and
// read by nothing but the graph's outputs, so they are streamed; `head` is large but another DynamicSlice
// reads it (its value is needed while planning); `corner` is small. `x` keeps a node that is not folded.
onnx::ModelProto FoldsOfAWeight() {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
folds (float[256, 256] w, float[2] x, int64[1] s0, int64[1] e200, int64[2] s2, int64[2] e2, int64[2] axes,
       int64[1] s1, int64[1] e9) => (float[200, 256] rows, float[240, 247] window, float[8, 256] of_head,
                                     float[8, 256] corner, float[2] y) {
  rows = DynamicSlice (w, s0, e200)
  window = DynamicSlice (w, s2, e2, axes)
  head = DynamicSlice (w, s1, e200)
  of_head = DynamicSlice (head, s1, e9)
  corner = DynamicSlice (w, s1, e9)
  y = Relu (x)
}
)");
  auto set = [&](const std::string& name, const Tensor& value) {
    *model.mutable_graph()->add_initializer() = TensorToProto(value.Clone(), name);
    MakeInitializerConstant(model, name);
  };
  set("w", Iota({256, 256}));
  set("s0", Tensor::FromInt64s({0}));
  set("e200", Tensor::FromInt64s({200}));
  set("s2", Tensor::FromInt64s({10, 3}));
  set("e2", Tensor::FromInt64s({250, 250}));
  set("axes", Tensor::FromInt64s({0, -1}));
  set("s1", Tensor::FromInt64s({1}));
  set("e9", Tensor::FromInt64s({9}));
  return model;
}

class LegalizeFileStreamedFoldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTestDir("legalize_file_streamed_folds");
    input_ = (dir_ / "in.onnx").string();
    ASSERT_TRUE(SaveModel(FoldsOfAWeight(), input_).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string input_;
};

TEST_F(LegalizeFileStreamedFoldsTest, WritesWhatLegalizeAndSaveModelWrite) {
  for (const bool verify : {true, false}) {
    Options options;
    options.verify = verify;
    const std::string output = (dir_ / "out.onnx").string();
    absl::StatusOr<Report> report = LegalizeFile(input_, output, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(ReadBytes(output) == Serialize(LegalizedCopy(FoldsOfAWeight(), options))) << "verify " << verify;
  }
}

// The report is the one Legalize gives: a fold proved part by part says what one proved whole says.
TEST_F(LegalizeFileStreamedFoldsTest, ReportsWhatLegalizeReports) {
  const std::string output = (dir_ / "out.onnx").string();
  absl::StatusOr<Report> report = LegalizeFile(input_, output, Options{});
  ASSERT_TRUE(report.ok()) << report.status();
  Report in_memory;
  LegalizedCopy(FoldsOfAWeight(), Options{}, &in_memory);
  EXPECT_EQ(WithoutProofSeconds(ReportToJson(*report)), WithoutProofSeconds(ReportToJson(in_memory)));
  EXPECT_EQ(NodeFor(*report, "window").verification,
            "fold recomputed with the Slice kernel: float[240,247], identical");
}

// What makes the difference in memory: the large folds no DynamicSlice reads reach the writer uncomputed, as
// stubs in the model and values it computes; the others are in the model.
TEST(LegalizeAndUseTest, LeavesTheLargeFoldsNoDynamicSliceReadsToTheWriter) {
  onnx::ModelProto model = FoldsOfAWeight();
  std::vector<std::string> streamed_names, stub_names;
  absl::StatusOr<Report> report =
      internal::LegalizeAndUse(
          model, Options{},
          [&](onnx::ModelProto& legalized, const DeferredTensors& streamed, const internal::AwaitProofs& await_proofs) {
            for (const auto& [name, value] : streamed) {
              streamed_names.push_back(name);
              EXPECT_EQ(value->ByteSize(), name == "rows" ? 200 * 256 * 4 : 240 * 247 * 4) << name;
            }
            for (const auto& initializer : legalized.graph().initializer()) {
              if (IsDeferredStub(initializer)) stub_names.push_back(initializer.name());
            }
            return await_proofs();
          })
          .report;
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(streamed_names, ElementsAre("rows", "window"));
  EXPECT_THAT(stub_names, UnorderedElementsAre("rows", "window"));
}

// A large fold that a removed op reads is needed while planning, as one a DynamicSlice reads: it is not
// streamed, the Scale of it folds too, and the file is what Legalize and SaveModel write.
TEST_F(LegalizeFileStreamedFoldsTest, ALargeFoldARemovedOpReadsFoldsThroughAndIsNotStreamed) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
scaled (float[256, 256] w, int64[1] s0, int64[1] e200) => (float[200, 256] doubled) {
  rows = DynamicSlice (w, s0, e200)
  doubled = Scale <scale = 2.0> (rows)
}
)");
  for (const char* name : {"w", "s0", "e200"}) {
    const Tensor value = std::string(name) == "w"    ? Iota({256, 256})
                         : std::string(name) == "s0" ? Tensor::FromInt64s({0})
                                                     : Tensor::FromInt64s({200});
    *model.mutable_graph()->add_initializer() = TensorToProto(value.Clone(), name);
    MakeInitializerConstant(model, name);
  }
  const std::string input = (dir_ / "scaled.onnx").string(), output = (dir_ / "scaled_out.onnx").string();
  ASSERT_TRUE(SaveModel(model, input).ok());
  absl::StatusOr<Report> report = LegalizeFile(input, output, Options{});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(NodeFor(*report, "doubled").action, Action::kFolded);
  EXPECT_EQ(NodeFor(*report, "rows").action, Action::kFolded);
  EXPECT_TRUE(ReadBytes(output) == Serialize(LegalizedCopy(model))) << "the file Legalize and SaveModel write";
}

TEST_F(LegalizeFileStreamedFoldsTest, WritesTheSameFilesWhenTheWeightsGoToADataFile) {
  SaveOptions save;
  save.external_data_name = "weights.bin";
  const std::filesystem::path streamed_dir = dir_ / "streamed", saved_dir = dir_ / "saved";
  std::filesystem::create_directories(streamed_dir);
  std::filesystem::create_directories(saved_dir);
  absl::StatusOr<Report> report = LegalizeFile(input_, (streamed_dir / "out.onnx").string(), Options{}, save);
  ASSERT_TRUE(report.ok()) << report.status();
  onnx::ModelProto legalized = LegalizedCopy(FoldsOfAWeight());
  ASSERT_TRUE(SaveModel(legalized, (saved_dir / "out.onnx").string(), save).ok());
  for (const char* file : {"out.onnx", "weights.bin"}) {
    EXPECT_TRUE(ReadBytes(streamed_dir / file) == ReadBytes(saved_dir / file)) << file;
  }
}

}  // namespace
}  // namespace onnx_legalize
