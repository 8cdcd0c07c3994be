// model_file_streams reads and writes models its own way for speed; these tests hold it to protobuf's:
// whatever bytes a file holds, ParseModelFromFile either gives exactly the message protobuf's parse gives,
// or declines (and LoadModel then asks protobuf); and SerializeModelToFile writes protobuf's deterministic
// bytes.
#include "io/model_file_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_files.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using testing::MakeTestDir;
using testing::ReadBytes;
using testing::Serialize;
using testing::WriteBytes;

constexpr int kRecursionLimit = 100;

class ModelFileStreamsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTestDir("model_file_streams"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Parses `bytes` from a file with ParseModelFromFile; nullopt when it declines.
  std::optional<onnx::ModelProto> ParseFile(const std::string& bytes, int* read_errno = nullptr,
                                            const FileParseSizes& sizes = {}) {
    const std::filesystem::path path = dir_ / "model.onnx";
    WriteBytes(path, bytes);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    onnx::ModelProto model;
    int error = -1;
    const bool parsed =
        ParseModelFromFile(fd, static_cast<int64_t>(bytes.size()), kRecursionLimit, model, &error, sizes);
    ::close(fd);
    if (read_errno != nullptr) *read_errno = error;
    if (!parsed) return std::nullopt;
    return model;
  }

  // Writes `bytes` to a file, then parses its first `length` bytes for every `length` that `next` steps
  // through (from 1, while below the size; the whole file last), expecting each to be declined (without a
  // read error) or parsed exactly as protobuf parses those bytes. The whole file must parse.
  template <typename Next>
  void ExpectEveryCutDeclinedOrAsProtobuf(const std::string& bytes, Next next, const FileParseSizes& sizes = {}) {
    const std::filesystem::path path = dir_ / "cut.onnx";
    WriteBytes(path, bytes);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    for (size_t length = 1;; length = std::min(next(length), bytes.size())) {
      onnx::ModelProto expected;
      const bool protobuf_parses = expected.ParseFromArray(bytes.data(), static_cast<int>(length));
      ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
      onnx::ModelProto parsed;
      int read_errno = -1;
      if (ParseModelFromFile(fd, static_cast<int64_t>(length), kRecursionLimit, parsed, &read_errno, sizes)) {
        ASSERT_TRUE(protobuf_parses) << "length " << length;
        ASSERT_EQ(Serialize(parsed), Serialize(expected)) << "length " << length;
      } else {
        ASSERT_EQ(read_errno, 0) << "length " << length;
        ASSERT_LT(length, bytes.size()) << "the whole file was declined";
      }
      if (length == bytes.size()) break;
    }
    ::close(fd);
  }

  // The bytes SerializeModelToFile writes for `model`.
  std::string SerializeToFile(const onnx::ModelProto& model) {
    const std::filesystem::path path = dir_ / "out.onnx";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    EXPECT_GE(fd, 0);
    model.ByteSizeLong();
    EXPECT_EQ(SerializeModelToFile(model, fd), 0);
    ::close(fd);
    return ReadBytes(path);
  }

 public:
  // The bytes SerializeModelWithDeferredToFile writes for `model` and `deferred`; its return value and any
  // value failure go to `result` and `value_failure`.
  std::string SerializeWithDeferredToFile(const onnx::ModelProto& model, const DeferredTensors& deferred,
                                          int* result = nullptr, absl::Status* value_failure = nullptr) {
    const std::filesystem::path path = dir_ / "out.onnx";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    EXPECT_GE(fd, 0);
    absl::Status failure;
    const int written = SerializeModelWithDeferredToFile(model, deferred, fd, failure);
    ::close(fd);
    if (result != nullptr) *result = written;
    if (value_failure != nullptr) *value_failure = failure;
    if (result == nullptr) EXPECT_EQ(written, 0) << failure;
    return ReadBytes(path);
  }

  std::filesystem::path dir_;
};

// Bytes of `size` that differ from position to position, so a misplaced byte shows.
std::string Pattern(size_t size, char seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(seed + i * 31 + (i >> 12));
  return bytes;
}

// A model with what the reader handles itself (initializers of 1 MiB and more) between what it leaves to
// protobuf: small initializers, nodes with a tensor attribute, inputs, outputs, doc strings, metadata.
onnx::ModelProto MixedModel() {
  onnx::ModelProto model;
  model.set_ir_version(4);
  model.set_producer_name("model_file_streams_test");
  model.add_opset_import()->set_version(9);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("g");
  graph.set_doc_string("graph doc");
  for (int i = 0; i < 3; ++i) {
    onnx::NodeProto& node = *graph.add_node();
    node.set_op_type("Identity");
    node.add_input(i == 0 ? "x" : "y" + std::to_string(i - 1));
    node.add_output("y" + std::to_string(i));
    onnx::AttributeProto& attribute = *node.add_attribute();
    attribute.set_name("unused");
    attribute.set_type(onnx::AttributeProto::TENSOR);
    attribute.mutable_t()->set_data_type(onnx::TensorProto::UINT8);
    attribute.mutable_t()->add_dims(100);
    attribute.mutable_t()->set_raw_data(Pattern(100, static_cast<char>(i)));
  }
  const size_t sizes[] = {16, (size_t{1} << 20) - 64, size_t{1} << 20, (size_t{3} << 20) + 5, 7};
  int index = 0;
  for (size_t size : sizes) {
    onnx::TensorProto& tensor = *graph.add_initializer();
    tensor.set_name("w" + std::to_string(index));
    tensor.set_data_type(onnx::TensorProto::UINT8);
    tensor.add_dims(static_cast<int64_t>(size));
    tensor.set_raw_data(Pattern(size, static_cast<char>(index)));
    tensor.set_doc_string("tensor doc " + std::to_string(index++));
  }
  graph.add_input()->set_name("x");
  graph.add_output()->set_name("y2");
  onnx::StringStringEntryProto& metadata = *model.add_metadata_props();
  metadata.set_key("k");
  metadata.set_value("v");
  return model;
}

TEST_F(ModelFileStreamsTest, ParsesAModelAsProtobufDoes) {
  const onnx::ModelProto model = MixedModel();
  const std::string bytes = Serialize(model);
  std::optional<onnx::ModelProto> parsed = ParseFile(bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(Serialize(*parsed), bytes);
}

// One length-delimited record: `field`'s tag, the length, the bytes.
std::string Record(uint32_t field, const std::string& bytes) {
  std::string record;
  google::protobuf::io::StringOutputStream stream(&record);
  {
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag((field << 3) | 2);
    coded.WriteVarint32(static_cast<uint32_t>(bytes.size()));
  }
  return record + bytes;
}

TEST_F(ModelFileStreamsTest, KeepsProtobufsMergeSemanticsForFieldsInAnyOrderAndGivenTwice) {
  // A second graph record (merged into the first: its node and initializer append), holding a large
  // initializer whose raw_data comes twice (the last wins) around its name; then a model field again.
  onnx::TensorProto early;
  early.set_raw_data(Pattern(size_t{2} << 20, 'a'));
  onnx::TensorProto late;
  late.set_name("late");
  late.set_raw_data(Pattern(size_t{1} << 20, 'b'));
  onnx::GraphProto second_graph;
  second_graph.add_node()->set_op_type("Relu");
  const std::string graph_bytes =
      second_graph.SerializeAsString() + Record(5, early.SerializeAsString() + late.SerializeAsString());
  const std::string bytes = Serialize(MixedModel()) + Record(7, graph_bytes) + MixedModel().SerializeAsString();

  onnx::ModelProto expected;
  ASSERT_TRUE(expected.ParseFromString(bytes));
  ASSERT_EQ(expected.graph().initializer_size(), 11);
  ASSERT_EQ(expected.graph().initializer(5).raw_data(), late.raw_data());
  std::optional<onnx::ModelProto> parsed = ParseFile(bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(Serialize(*parsed), Serialize(expected));
}

TEST_F(ModelFileStreamsTest, EveryTruncationIsDeclinedOrParsedAsProtobufParsesIt) {
  const std::string bytes = Serialize(MixedModel());
  // Every length near the start and the end (where the small records are), and a stride through the
  // large payloads between.
  ExpectEveryCutDeclinedOrAsProtobuf(
      bytes, [&](size_t length) { return length + ((length < 4096 || bytes.size() - length < 512) ? 1 : 4093); });
}

TEST_F(ModelFileStreamsTest, ParsesRecordsTooLargeForABatchFromTheFile) {
  // A Constant node holding 5 MiB (more than one batch) between two ordinary nodes, in the main graph and
  // as a model-level record: protobuf parses each from the file, and the walk resumes right after it.
  onnx::ModelProto model = MixedModel();
  onnx::NodeProto constant;
  constant.set_op_type("Constant");
  constant.add_output("big");
  onnx::AttributeProto& value = *constant.add_attribute();
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  value.mutable_t()->set_data_type(onnx::TensorProto::UINT8);
  value.mutable_t()->add_dims(int64_t{5} << 20);
  value.mutable_t()->set_raw_data(Pattern(size_t{5} << 20, 'c'));
  *model.mutable_graph()->mutable_node()->Add() = constant;
  model.mutable_graph()->mutable_node()->SwapElements(1, 3);
  model.set_doc_string(Pattern(size_t{5} << 20, 'd'));
  const std::string bytes = Serialize(model);
  std::optional<onnx::ModelProto> parsed = ParseFile(bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(Serialize(*parsed), bytes);

  // Cut inside and around those records: declined, or protobuf's parse.
  ExpectEveryCutDeclinedOrAsProtobuf(bytes, [](size_t length) { return length + (length < 2048 ? 1 : 65521); });
}

TEST_F(ModelFileStreamsTest, TakesEveryPathWithTinySizesAndStillParsesAsProtobuf) {
  // A buffer of 16 bytes, initializers of 24 bytes read directly, records of 64 bytes parsed from the
  // file: a model of a few hundred bytes crosses every boundary, and every cut of it is tried.
  FileParseSizes tiny;
  tiny.buffer_bytes = 16;
  tiny.direct_initializer_bytes = 24;
  tiny.batch_bytes = 64;
  onnx::ModelProto model;
  model.set_ir_version(4);
  model.set_doc_string(Pattern(100, 'm'));
  onnx::GraphProto& graph = *model.mutable_graph();
  for (size_t size : {4, 20, 40, 90}) {
    onnx::TensorProto& tensor = *graph.add_initializer();
    tensor.set_name("w" + std::to_string(size));
    tensor.add_dims(static_cast<int64_t>(size));
    tensor.set_data_type(onnx::TensorProto::UINT8);
    tensor.set_raw_data(Pattern(size, static_cast<char>(size)));
    onnx::NodeProto& node = *graph.add_node();
    node.set_op_type("Identity");
    node.add_input(tensor.name());
    node.add_output("y" + std::to_string(size));
    node.set_doc_string(Pattern(size, 'n'));
  }
  ExpectEveryCutDeclinedOrAsProtobuf(
      Serialize(model), [](size_t length) { return length + 1; }, tiny);
}

TEST_F(ModelFileStreamsTest, DeclinesMalformedRecordsInsideTheWalkedMessages) {
  const std::string valid = Serialize(MixedModel());
  const std::string graph_past_end = std::string("\x3a\xff\xff\xff\x07", 5) + "abc";
  const std::string field_zero = std::string("\x02\x01x", 3);
  const std::string group = std::string("\x0b\x0c", 2);  // protobuf keeps it as an unknown field
  const std::string tensor_past_graph = Record(7, Record(5, std::string(size_t{1} << 20, 'x')).substr(0, 100));
  for (const std::string& bad : {graph_past_end, field_zero, group, valid + "\x3a", tensor_past_graph}) {
    int read_errno = -1;
    EXPECT_FALSE(ParseFile(bad, &read_errno).has_value());
    EXPECT_EQ(read_errno, 0);
  }
}

TEST_F(ModelFileStreamsTest, RefusesZeroPaddedTagsAndLengthsAsProtobufDoes) {
  // Protobuf reads a tag or a length in at most 5 bytes and a value in at most 10, whatever a longer,
  // zero-padded encoding would mean. Found by model_file_fuzzer: a 6-byte tag.
  const std::string six_byte_tag =
      std::string("\x08\x04", 2) + std::string("\xd8\xd4\xd8\xbd\x80\x00", 6) + std::string("\x01", 1);
  const std::string six_byte_length = std::string("\x08\x04\x3a", 3) + std::string("\x80\x80\x80\x80\x80\x00", 6);
  const std::string eleven_byte_value = std::string("\x08", 1) + std::string(10, '\x80') + std::string("\x00", 1);
  const std::string fuzzer_finding(
      "\xd8\xd4\xd8\xc7\x00\xbd\x00\xd8\xd4\xd8\xbd\x80\x00\xbd\x00\x98\x20\x20\x20\x20"
      "\x20\x20\x20\x20",
      24);
  FileParseSizes tiny;
  tiny.buffer_bytes = 16;
  tiny.direct_initializer_bytes = 1;
  tiny.batch_bytes = 4;
  for (const std::string& bytes : {six_byte_tag, six_byte_length, eleven_byte_value, fuzzer_finding}) {
    onnx::ModelProto expected;
    ASSERT_FALSE(expected.ParseFromString(bytes));
    for (const FileParseSizes& sizes : {FileParseSizes{}, tiny}) {
      int read_errno = -1;
      EXPECT_FALSE(ParseFile(bytes, &read_errno, sizes).has_value());
      EXPECT_EQ(read_errno, 0);
    }
  }
}

TEST_F(ModelFileStreamsTest, StopsAtTheSameNestingDepthAsProtobuf) {
  // Graph -> Node -> Attribute -> Graph ...: three messages a level, and 0 to 2 more at the bottom (a node,
  // an attribute of it), so that the depths around the limit are all tried. There the reader and protobuf
  // (given the same limit) accept and refuse the same models.
  for (int levels = 30; levels <= 34; ++levels) {
    for (int extra = 0; extra <= 2; ++extra) {
      onnx::ModelProto model;
      model.set_ir_version(4);
      onnx::GraphProto* graph = model.mutable_graph();
      for (int level = 0; level < levels; ++level) {
        onnx::AttributeProto& attribute = *graph->add_node()->add_attribute();
        attribute.set_name("then_branch");
        graph = attribute.mutable_g();
      }
      graph->set_name("deepest");
      if (extra >= 1) graph->add_node()->set_op_type("Relu");
      if (extra >= 2) graph->mutable_node(0)->add_attribute()->set_name("a");
      const std::string bytes = Serialize(model);
      google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                   static_cast<int>(bytes.size()));
      coded.SetRecursionLimit(kRecursionLimit);
      onnx::ModelProto expected;
      const bool protobuf_parses = expected.ParseFromCodedStream(&coded);
      EXPECT_EQ(ParseFile(bytes).has_value(), protobuf_parses) << levels << " levels and " << extra;
    }
  }
}

TEST_F(ModelFileStreamsTest, WritesProtobufsDeterministicBytes) {
  const onnx::ModelProto model = MixedModel();
  EXPECT_EQ(SerializeToFile(model), Serialize(model));
}

TEST_F(ModelFileStreamsTest, ReportsTheErrnoOfAFailedWrite) {
  const onnx::ModelProto model = MixedModel();
  model.ByteSizeLong();
  const int fd = ::open((dir_ / "read_only").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(SerializeModelToFile(model, fd), EBADF);
  ::close(fd);
}

// A deferred value over bytes held here, handed over `part_bytes` at a time; it can fail after some parts, or
// hand over fewer bytes than it has.
class HeldBytes : public DeferredTensor {
 public:
  HeldBytes(std::string bytes, size_t part_bytes) : bytes_(std::move(bytes)), part_bytes_(part_bytes) {
    dims_ = {static_cast<int64_t>(bytes_.size())};
  }
  DataType type() const override { return onnx::TensorProto::UINT8; }
  const std::vector<int64_t>& dims() const override { return dims_; }
  absl::Status WriteTo(const ByteSink& sink) const override {
    const size_t end = bytes_.size() - short_by_;
    int parts = 0;
    for (size_t at = 0; at < end; at += part_bytes_) {
      if (parts++ == fail_after_parts_) return absl::InternalError("verification failed: part differs");
      RETURN_IF_ERROR(sink(absl::string_view(bytes_).substr(at, std::min(part_bytes_, end - at))));
    }
    return absl::OkStatus();
  }

  int fail_after_parts_ = -1;
  size_t short_by_ = 0;

 private:
  std::string bytes_;
  size_t part_bytes_;
  std::vector<int64_t> dims_;
};

// `model` with a stub for each of `values` (inserted before initializer `at` of the main graph, in turn),
// and the same model with the values filled in as a fold fills them (TensorToProto: dims, type, name, raw).
struct StubbedModel {
  onnx::ModelProto stubbed, filled;
  DeferredTensors deferred;
};
StubbedModel WithStubs(const onnx::ModelProto& model, const std::vector<std::pair<std::string, size_t>>& values, int at,
                       size_t part_bytes = 4096) {
  StubbedModel out{model, model, {}};
  for (const auto& [name, size] : values) {
    const std::string bytes = Pattern(size, static_cast<char>(size));
    auto held = std::make_shared<HeldBytes>(bytes, part_bytes);
    out.deferred.emplace(name, held);
    onnx::TensorProto stub;
    stub.set_name(name);
    stub.set_data_type(onnx::TensorProto::UINT8);
    stub.add_dims(static_cast<int64_t>(size));
    onnx::TensorProto filled = stub;
    filled.set_raw_data(bytes);
    stub.set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [graph, tensor] :
         {std::make_pair(out.stubbed.mutable_graph(), &stub), std::make_pair(out.filled.mutable_graph(), &filled)}) {
      *graph->add_initializer() = *tensor;
      auto* initializers = graph->mutable_initializer();
      for (int i = initializers->size() - 1; i > at; --i) initializers->SwapElements(i, i - 1);
    }
  }
  return out;
}

TEST_F(ModelFileStreamsTest, WritesDeferredValuesAsTheModelWithThemFilledInWouldBeWritten) {
  // Sizes on both sides of the varint steps of the value's and the tensor's lengths, an empty value, and
  // values that span many parts.
  const std::vector<std::pair<std::string, size_t>> values = {
      {"a", 0},     {"b", 1},     {"c", 100},   {"d", 127},     {"e", 128},          {"f", 16360},
      {"g", 16383}, {"h", 16384}, {"i", 70000}, {"j", 1 << 20}, {"k", (3 << 20) + 5}};
  onnx::ModelProto model = MixedModel();
  // Unknown fields, which deterministic serialization writes after the known ones, in the model and graph.
  model.GetReflection()->MutableUnknownFields(&model)->AddVarint(1000, 5);
  model.mutable_graph()->GetReflection()->MutableUnknownFields(model.mutable_graph())->AddVarint(999, 7);
  for (int at : {0, 2, 5}) {
    const StubbedModel stubbed = WithStubs(model, values, at);
    const std::string expected = Serialize(stubbed.filled);
    EXPECT_EQ(SerializedSizeWithDeferred(stubbed.stubbed, stubbed.deferred), static_cast<int64_t>(expected.size()));
    EXPECT_TRUE(SerializeWithDeferredToFile(stubbed.stubbed, stubbed.deferred) == expected) << "at " << at;
  }
}

TEST_F(ModelFileStreamsTest, WritesAGraphOfStubsAloneAndLeavesStubsNoValueNames) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  StubbedModel stubbed = WithStubs(model, {{"only", 5000}}, 0);
  EXPECT_TRUE(SerializeWithDeferredToFile(stubbed.stubbed, stubbed.deferred) == Serialize(stubbed.filled));
  // A stub no deferred value names is written as it is.
  stubbed.deferred.clear();
  EXPECT_TRUE(SerializeWithDeferredToFile(stubbed.stubbed, stubbed.deferred) == Serialize(stubbed.stubbed));
}

// Writes MixedModel with a stub for `held` (100,000 bytes); the value's failure, expecting the write to
// return -1 for it.
absl::Status FailureOfAValueThatMisbehaves(ModelFileStreamsTest& test, const std::shared_ptr<HeldBytes>& held) {
  StubbedModel stubbed = WithStubs(MixedModel(), {{"v", 100000}}, 1);
  stubbed.deferred["v"] = held;
  int result = 0;
  absl::Status failure;
  test.SerializeWithDeferredToFile(stubbed.stubbed, stubbed.deferred, &result, &failure);
  EXPECT_EQ(result, -1);
  return failure;
}

TEST_F(ModelFileStreamsTest, StopsAtTheFirstFailureOfADeferredValue) {
  auto held = std::make_shared<HeldBytes>(Pattern(100000, 1), 4096);
  held->fail_after_parts_ = 3;
  EXPECT_EQ(FailureOfAValueThatMisbehaves(*this, held).message(), "verification failed: part differs");
}

TEST_F(ModelFileStreamsTest, RefusesADeferredValueThatGivesFewerBytesThanItHas) {
  auto held = std::make_shared<HeldBytes>(Pattern(100000, 1), 4096);
  held->short_by_ = 10;
  const absl::Status failure = FailureOfAValueThatMisbehaves(*this, held);
  EXPECT_EQ(failure.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(failure.message()), ::testing::HasSubstr("gave 99990 bytes of 100000"));
}

}  // namespace
}  // namespace onnx_legalize
