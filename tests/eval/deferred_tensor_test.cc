// Values computed as they are written: how a tensor is cut into parts, and how a save that cannot stream
// fills the stubs in.
#include "eval/deferred_tensor.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace onnx_legalize {
namespace {

using Parts = std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>;

Parts PartsOf(const std::vector<int64_t>& dims, int64_t element_size, int64_t max_part_bytes) {
  Parts parts;
  const absl::Status walked = ForEachRowMajorPart(
      dims, element_size, max_part_bytes, [&](const std::vector<int64_t>& offset, const std::vector<int64_t>& size) {
        parts.emplace_back(offset, size);
        return absl::OkStatus();
      });
  EXPECT_TRUE(walked.ok()) << walked;
  return parts;
}

TEST(ForEachRowMajorPartTest, CutsAlongTheFirstAxisWhoseTrailingAxesFitAPart) {
  // Rows of 4 x 4 bytes = 16; 40 bytes take two rows, the last part one.
  EXPECT_EQ(PartsOf({2, 3, 4}, 4, 40),
            (Parts{{{0, 0, 0}, {1, 2, 4}}, {{0, 2, 0}, {1, 1, 4}}, {{1, 0, 0}, {1, 2, 4}}, {{1, 2, 0}, {1, 1, 4}}}));
  // A whole plane (48 bytes) fits: planes are cut.
  EXPECT_EQ(PartsOf({2, 3, 4}, 4, 100), (Parts{{{0, 0, 0}, {2, 3, 4}}}));
  EXPECT_EQ(PartsOf({2, 3, 4}, 4, 50), (Parts{{{0, 0, 0}, {1, 3, 4}}, {{1, 0, 0}, {1, 3, 4}}}));
}

TEST(ForEachRowMajorPartTest, AnElementLargerThanAPartIsAPartOfItsOwn) {
  EXPECT_EQ(PartsOf({1, 2}, 8, 3), (Parts{{{0, 0}, {1, 1}}, {{0, 1}, {1, 1}}}));
}

TEST(ForEachRowMajorPartTest, AScalarIsOnePartAndAnEmptyTensorNone) {
  EXPECT_EQ(PartsOf({}, 4, 100), (Parts{{{}, {}}}));
  EXPECT_TRUE(PartsOf({3, 0, 2}, 4, 100).empty());
}

TEST(ForEachRowMajorPartTest, StopsAtTheFirstError) {
  int calls = 0;
  const absl::Status walked =
      ForEachRowMajorPart({10}, 1, 1, [&](const std::vector<int64_t>&, const std::vector<int64_t>&) {
        return ++calls == 3 ? absl::AbortedError("stop") : absl::OkStatus();
      });
  EXPECT_EQ(walked, absl::AbortedError("stop"));
  EXPECT_EQ(calls, 3);
}

// Hands over "abcdef" two bytes at a time.
class Letters : public DeferredTensor {
 public:
  DataType type() const override { return onnx::TensorProto::UINT8; }
  const std::vector<int64_t>& dims() const override { return dims_; }
  absl::Status WriteTo(const ByteSink& sink) const override {
    for (const char* part : {"ab", "cd", "ef"}) {
      if (absl::Status status = sink(part); !status.ok()) return status;
    }
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> dims_ = {6};
};

TEST(MaterializeDeferredTest, FillsTheStubsItHasValuesForAndNothingElse) {
  onnx::ModelProto model;
  for (const char* name : {"named", "unnamed"}) {
    onnx::TensorProto* stub = model.mutable_graph()->add_initializer();
    stub->set_name(name);
    stub->set_data_type(onnx::TensorProto::UINT8);
    stub->add_dims(6);
    stub->set_data_location(onnx::TensorProto::EXTERNAL);
    EXPECT_TRUE(IsDeferredStub(*stub));
  }
  onnx::TensorProto* external = model.mutable_graph()->add_initializer();
  *external = model.graph().initializer(0);
  external->set_name("external");
  onnx::StringStringEntryProto* location = external->add_external_data();
  location->set_key("location");
  location->set_value("w.bin");
  EXPECT_FALSE(IsDeferredStub(*external));
  const DeferredTensors deferred = {{"named", std::make_shared<Letters>()}, {"external", std::make_shared<Letters>()}};
  ASSERT_TRUE(MaterializeDeferred(deferred, model).ok());
  EXPECT_EQ(model.graph().initializer(0).raw_data(), "abcdef");
  EXPECT_FALSE(model.graph().initializer(0).has_data_location());
  EXPECT_TRUE(IsDeferredStub(model.graph().initializer(1)));
  EXPECT_EQ(model.graph().initializer(2).raw_data(), "");  // external data is not a stub
}

}  // namespace
}  // namespace onnx_legalize
