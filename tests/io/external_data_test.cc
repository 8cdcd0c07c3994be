// External data references as values: parsing the external_data entries, rewriting them, and visiting
// every tensor of a model.
#include "io/external_data.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::ParseModel;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

onnx::TensorProto External(const std::vector<std::pair<std::string, std::string>>& entries) {
  onnx::TensorProto tensor;
  tensor.set_name("w");
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  tensor.set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [key, value] : entries) {
    auto* entry = tensor.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  return tensor;
}

void ExpectRejected(const onnx::TensorProto& tensor, const std::string& message) {
  absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(tensor, "initializer 'w'");
  EXPECT_EQ(ref.status().code(), absl::StatusCode::kInvalidArgument) << ref.status();
  EXPECT_THAT(std::string(ref.status().message()), AllOf(HasSubstr("initializer 'w'"), HasSubstr(message)));
}

TEST(ParseExternalDataRefTest, ReadsLocationOffsetAndLength) {
  absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(
      External({{"location", "weights.bin"}, {"offset", "4096"}, {"length", "24"}, {"checksum", "ab"}}), "w");
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->location, "weights.bin");
  EXPECT_EQ(ref->offset, 4096);
  EXPECT_THAT(ref->length, Optional(24));
}

TEST(ParseExternalDataRefTest, OffsetDefaultsToZeroAndLengthToTheRestOfTheFile) {
  absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(External({{"location", "w.bin"}}), "w");
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->offset, 0);
  EXPECT_EQ(ref->length, std::nullopt);
}

TEST(ParseExternalDataRefTest, RejectsAMissingOrEmptyLocation) {
  ExpectRejected(External({{"offset", "0"}}), "no location");
  ExpectRejected(External({{"location", ""}}), "no non-empty location");
}

TEST(ParseExternalDataRefTest, RejectsAKeyGivenTwice) {
  ExpectRejected(External({{"location", "a.bin"}, {"location", "b.bin"}}), "'location' twice");
}

TEST(ParseExternalDataRefTest, RejectsOffsetsAndLengthsThatAreNotNonNegativeIntegers) {
  for (const char* bad : {"-1", "1e3", "", " 1", "0x10", "99999999999999999999", "9223372036854775808"}) {
    ExpectRejected(External({{"location", "a.bin"}, {"offset", bad}}), "offset");
    ExpectRejected(External({{"location", "a.bin"}, {"length", bad}}), "length");
  }
  absl::StatusOr<ExternalDataRef> largest =
      ParseExternalDataRef(External({{"location", "a.bin"}, {"offset", "9223372036854775807"}}), "w");
  ASSERT_TRUE(largest.ok()) << largest.status();
  EXPECT_EQ(largest->offset, INT64_MAX);
}

TEST(ParseExternalDataRefTest, RejectsANulByteInTheLocation) {
  ExpectRejected(External({{"location", std::string("a\0b", 3)}}), "NUL");
}

TEST(SetExternalDataRefTest, WritesTheThreeKeysAndDropsTheRest) {
  onnx::TensorProto tensor = External({{"location", "old.bin"}, {"checksum", "stale"}});
  SetExternalDataRef(tensor, "new.data", 65536, 96);
  EXPECT_TRUE(IsExternal(tensor));
  std::vector<std::string> entries;
  for (const auto& entry : tensor.external_data()) entries.push_back(entry.key() + "=" + entry.value());
  EXPECT_THAT(entries, ElementsAre("location=new.data", "offset=65536", "length=96"));
}

TEST(ForEachTensorTest, VisitsInitializersAttributesAndSubgraphsInOrder) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
outer (bool cond, float[2] a = {1, 2}) => (float[2] y) {
  c = Constant <value = float[2] {3, 4}> ()
  y = If (cond) <
    then_branch = then_graph () => (float[2] t) { t = Identity (c) },
    else_branch = else_graph () => (float[2] e) { e = Constant <value = float[2] {5, 6}> () }
  >
}
)");
  std::vector<std::string> seen;
  ForEachTensor(model, [&](const onnx::TensorProto&, const TensorSite& site) {
    seen.push_back(std::string(site.is_initializer ? "init " : "attr ") + site.what);
  });
  EXPECT_THAT(seen, ElementsAre("init initializer 'a' (graph main)",
                                "attr attribute 'value' of Constant producing 'c' (graph main)",
                                "attr attribute 'value' of Constant producing 'e' (graph main/else_graph)"));
}

TEST(ForEachTensorTest, MutableVisitorChangesTheModelsTensors) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] a = {1, 2}) => (float[2] y) { y = Identity (a) }
)");
  ForEachMutableTensor(model,
                       [](onnx::TensorProto& tensor, const TensorSite&) { SetExternalDataRef(tensor, "x.bin", 0, 8); });
  EXPECT_TRUE(IsExternal(model.graph().initializer(0)));
}

}  // namespace
}  // namespace onnx_legalize
