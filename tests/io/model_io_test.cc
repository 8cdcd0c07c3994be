// LoadModel, SaveModel and LegalizeFile against real files in a fresh folder per test.
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eval/deferred_tensor.h"
#include "gmock/gmock.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "io/model_io_internal.h"
#include "onnx_legalize/legalize.h"
#include "test_files.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

namespace fs = std::filesystem;
using ::onnx_legalize::testing::FileNames;
using ::onnx_legalize::testing::MakeTestDir;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::ReadBytes;
using ::onnx_legalize::testing::SameModel;
using ::onnx_legalize::testing::WriteBytes;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr char kReluModel[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
relu_graph (float[2, 3] x) => (float[2, 3] y) {
  y = Relu (x)
}
)ONNX";

// A model with a few kilobytes of weights, so truncation and write limits land inside real data.
constexpr char kWeightedModel[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
weighted (float[4] x) => (float[4] y) {
  y = Add (x, w)
}
)ONNX";

onnx::ModelProto WeightedModel(int64_t weight_count) {
  onnx::ModelProto model = ParseModel(kWeightedModel);
  onnx::TensorProto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(weight_count);
  w->set_raw_data(std::string(static_cast<size_t>(weight_count) * 4, '\x3f'));
  return model;
}

// WeightedModel(4) with its weight stored as external data at `location` (16 bytes).
onnx::ModelProto WeightedModelWithExternalData(const std::string& location) {
  onnx::ModelProto model = WeightedModel(4);
  onnx::TensorProto* w = model.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* entry = w->add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  return model;
}

class ModelIoTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTestDir("model_io_test"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(ModelIoTest, RoundTripsAModel) {
  const onnx::ModelProto model = WeightedModel(16);
  ASSERT_TRUE(SaveModel(model, PathOf("m.onnx")).ok());
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("m.onnx"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(SameModel(*loaded, model));
}

// LoadModelInto parses into a message the caller owns, on an arena if it likes, replacing what it held, and
// checks what LoadModel checks.
TEST_F(ModelIoTest, LoadModelIntoFillsAnArenaModelAndChecksLikeLoadModel) {
  const onnx::ModelProto model = WeightedModel(16);
  ASSERT_TRUE(SaveModel(model, PathOf("m.onnx")).ok());
  google::protobuf::Arena arena;
  onnx::ModelProto* loaded = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  loaded->set_doc_string("left over from an earlier model");
  ASSERT_TRUE(LoadModelInto(PathOf("m.onnx"), loaded).ok());
  EXPECT_TRUE(SameModel(*loaded, model));

  WriteBytes(PathOf("garbage.onnx"), std::string("this is not a model\xff\xfe\x00\x01", 23));
  const absl::Status garbage = LoadModelInto(PathOf("garbage.onnx"), loaded);
  EXPECT_EQ(garbage.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(garbage.message()), HasSubstr(PathOf("garbage.onnx")));
  EXPECT_EQ(LoadModelInto(PathOf("missing.onnx"), loaded).code(), absl::StatusCode::kNotFound);

  ASSERT_TRUE(SaveModel(WeightedModelWithExternalData("../outside.bin"), PathOf("escapes.onnx")).ok());
  EXPECT_EQ(LoadModelInto(PathOf("escapes.onnx"), loaded).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ModelIoTest, SavesByteIdenticalFilesForTheSameModel) {
  const onnx::ModelProto model = WeightedModel(64);
  ASSERT_TRUE(SaveModel(model, PathOf("a.onnx")).ok());
  ASSERT_TRUE(SaveModel(model, PathOf("b.onnx")).ok());
  const std::string a = ReadBytes(PathOf("a.onnx"));
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, ReadBytes(PathOf("b.onnx")));
  // A save re-loaded and saved again is the same bytes too.
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("a.onnx"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(SaveModel(*loaded, PathOf("c.onnx")).ok());
  EXPECT_EQ(a, ReadBytes(PathOf("c.onnx")));
}

TEST_F(ModelIoTest, SaveReplacesAnExistingFileAndLeavesNoTemporary) {
  WriteBytes(PathOf("m.onnx"), "old contents");
  ASSERT_TRUE(SaveModel(ParseModel(kReluModel), PathOf("m.onnx")).ok());
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("m.onnx"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(SameModel(*loaded, ParseModel(kReluModel)));
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("m.onnx"));
}

TEST_F(ModelIoTest, SavesUnderTheLongestFileName) {
  const std::string name(250, 'm');  // The temporary's suffix must not push it past NAME_MAX.
  ASSERT_TRUE(SaveModel(ParseModel(kReluModel), PathOf(name)).ok());
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre(name));
}

TEST_F(ModelIoTest, SaveKeepsTheReplacedFilesPermissions) {
  WriteBytes(PathOf("m.onnx"), "old");
  fs::permissions(PathOf("m.onnx"), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(SaveModel(ParseModel(kReluModel), PathOf("m.onnx")).ok());
  EXPECT_EQ(fs::status(PathOf("m.onnx")).permissions() & fs::perms::mask,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

// More on external data in model_io_external_data_test.cc.
TEST_F(ModelIoTest, LoadsAModelWithExternalDataKeepingItsEntries) {
  const onnx::ModelProto model = WeightedModelWithExternalData("weights.bin");
  WriteBytes(PathOf("weights.bin"), std::string(16, '\x3f'));
  ASSERT_TRUE(SaveModel(model, PathOf("m.onnx")).ok());
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("m.onnx"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(SameModel(*loaded, model));
}

// protobuf once refused messages past 64 MiB by default; LoadModel allows the format's own 2 GiB.
TEST_F(ModelIoTest, LoadsAModelPastProtobufsOld64MiBDefault) {
  const onnx::ModelProto model = WeightedModel(int64_t{24} << 20);  // 96 MiB of floats
  ASSERT_TRUE(SaveModel(model, PathOf("m.onnx")).ok());
  ASSERT_GT(fs::file_size(PathOf("m.onnx")), uintmax_t{64} << 20);
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("m.onnx"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->graph().initializer(0).raw_data().size(), size_t{96} << 20);
}

TEST_F(ModelIoTest, MissingFileIsNotFound) {
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("absent.onnx"));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr(PathOf("absent.onnx")));
}

TEST_F(ModelIoTest, FileUnderARegularFileIsNotFound) {
  WriteBytes(PathOf("notadir"), "x");
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("notadir/m.onnx"));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound) << loaded.status();
}

TEST_F(ModelIoTest, EmptyFileIsInvalidArgumentNamingThePath) {
  WriteBytes(PathOf("empty.onnx"), "");
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("empty.onnx"));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr(PathOf("empty.onnx")));
}

TEST_F(ModelIoTest, GarbageIsInvalidArgumentNamingThePath) {
  WriteBytes(PathOf("garbage.onnx"), std::string("this is not a model\xff\xfe\x00\x01", 23));
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("garbage.onnx"));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr(PathOf("garbage.onnx")));
}

TEST_F(ModelIoTest, BytesThatParseAsAnEmptyMessageAreInvalidArgument) {
  // Field 15 (unknown to ModelProto), varint 1: protobuf parses it, but it is no model.
  WriteBytes(PathOf("unknown_field.onnx"), std::string("\x78\x01", 2));
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("unknown_field.onnx"));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("unknown_field.onnx"));
}

TEST_F(ModelIoTest, TruncatedFileIsInvalidArgumentNamingThePath) {
  const std::string bytes = WeightedModel(256).SerializeAsString();
  WriteBytes(PathOf("truncated.onnx"), bytes.substr(0, bytes.size() / 2));
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("truncated.onnx"));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr(PathOf("truncated.onnx")));
}

TEST_F(ModelIoTest, DirectoryIsInvalidArgument) {
  fs::create_directory(PathOf("folder.onnx"));
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(PathOf("folder.onnx"));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("directory"));
}

TEST_F(ModelIoTest, SaveIntoAMissingFolderFailsAndCreatesNothing) {
  absl::Status saved = SaveModel(ParseModel(kReluModel), PathOf("missing/m.onnx"));
  EXPECT_FALSE(saved.ok());
  EXPECT_THAT(std::string(saved.message()), HasSubstr(PathOf("missing/m.onnx")));
  EXPECT_THAT(FileNames(dir_), IsEmpty());
}

// Tests run as root, which no permission bits stop; a "folder" that is a regular file stops everyone.
TEST_F(ModelIoTest, SaveUnderARegularFileFailsAndLeavesNothingBehind) {
  WriteBytes(PathOf("notadir"), "x");
  absl::Status saved = SaveModel(ParseModel(kReluModel), PathOf("notadir/x.onnx"));
  EXPECT_FALSE(saved.ok());
  EXPECT_THAT(std::string(saved.message()), HasSubstr(PathOf("notadir/x.onnx")));
  EXPECT_THAT(std::string(saved.message()), HasSubstr("Not a directory"));  // the errno text
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("notadir"));
  EXPECT_EQ(ReadBytes(PathOf("notadir")), "x");
}

TEST_F(ModelIoTest, SaveOverADirectoryFailsAndLeavesItAlone) {
  fs::create_directory(PathOf("out.onnx"));
  WriteBytes(PathOf("out.onnx/inside"), "keep");
  EXPECT_FALSE(SaveModel(ParseModel(kReluModel), PathOf("out.onnx")).ok());
  EXPECT_EQ(ReadBytes(PathOf("out.onnx/inside")), "keep");
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("out.onnx"));
}

// A write that fails half way (here: the file size limit, EFBIG) removes the temporary and leaves the
// file already at the destination as it was.
TEST_F(ModelIoTest, FailedWriteLeavesTheExistingFileUntouched) {
  WriteBytes(PathOf("out.onnx"), "previous model");
  struct rlimit saved_limit;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved_limit), 0);
  struct rlimit small_limit = saved_limit;
  small_limit.rlim_cur = 4096;
  auto* previous_handler = std::signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of a signal
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small_limit), 0);
  absl::Status saved = SaveModel(WeightedModel(64 * 1024), PathOf("out.onnx"));
  ::setrlimit(RLIMIT_FSIZE, &saved_limit);
  std::signal(SIGXFSZ, previous_handler);

  EXPECT_FALSE(saved.ok());
  EXPECT_THAT(std::string(saved.message()), HasSubstr(PathOf("out.onnx")));
  EXPECT_EQ(ReadBytes(PathOf("out.onnx")), "previous model");
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("out.onnx"));
}

TEST_F(ModelIoTest, LegalizeFileCopiesAModelWithoutDynamicSlice) {
  const onnx::ModelProto model = ParseModel(kReluModel);
  ASSERT_TRUE(SaveModel(model, PathOf("in.onnx")).ok());
  const std::string input_bytes = ReadBytes(PathOf("in.onnx"));
  absl::StatusOr<Report> report = LegalizeFile(PathOf("in.onnx"), PathOf("out.onnx"), Options{});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->changed);
  EXPECT_THAT(report->nodes, IsEmpty());
  EXPECT_EQ(report->opset_before, 13);
  EXPECT_EQ(report->opset_after, 13);
  absl::StatusOr<onnx::ModelProto> written = LoadModel(PathOf("out.onnx"));
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_TRUE(SameModel(*written, model));
  EXPECT_EQ(ReadBytes(PathOf("in.onnx")), input_bytes);
}

TEST_F(ModelIoTest, LegalizeFileRefusesToWriteOverItsInput) {
  ASSERT_TRUE(SaveModel(ParseModel(kReluModel), PathOf("in.onnx")).ok());
  const std::string input_bytes = ReadBytes(PathOf("in.onnx"));
  fs::create_symlink(PathOf("in.onnx"), PathOf("link.onnx"));
  for (const std::string& output : {PathOf("in.onnx"), PathOf("link.onnx"), (dir_ / "." / "in.onnx").string()}) {
    absl::StatusOr<Report> report = LegalizeFile(PathOf("in.onnx"), output, Options{});
    EXPECT_EQ(ErrorKindOf(report.status()), ErrorKind::kInvalidRequest) << output;
    EXPECT_THAT(std::string(report.status().message()), HasSubstr("input")) << output;
  }
  EXPECT_EQ(ReadBytes(PathOf("in.onnx")), input_bytes);
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("in.onnx", "link.onnx"));
}

TEST_F(ModelIoTest, LegalizeFileWritesNothingWhenTheInputIsBad) {
  WriteBytes(PathOf("in.onnx"), "garbage");
  absl::StatusOr<Report> report = LegalizeFile(PathOf("in.onnx"), PathOf("out.onnx"), Options{});
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("in.onnx"));

  WriteBytes(PathOf("out.onnx"), "previous");
  report = LegalizeFile(PathOf("in.onnx"), PathOf("out.onnx"), Options{});
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(ReadBytes(PathOf("out.onnx")), "previous");
  EXPECT_EQ(ReadBytes(PathOf("in.onnx")), "garbage");
}

TEST_F(ModelIoTest, SaveModelIfWritesEverythingBeforeTheGoAheadAndCommitsNothingWithoutIt) {
  WriteBytes(PathOf("out.onnx"), "previous model");
  onnx::ModelProto model = WeightedModel(4096);
  std::vector<std::string> names_at_go_ahead;
  std::string staged_bytes;
  absl::Status saved = internal::SaveModelIf(model, PathOf("out.onnx"), SaveOptions{}, internal::kMaxProtoBytes, [&] {
    names_at_go_ahead = FileNames(dir_);
    for (const std::string& name : names_at_go_ahead) {
      if (name != "out.onnx") staged_bytes = ReadBytes(PathOf(name));
    }
    return absl::AbortedError("proofs failed");
  });
  EXPECT_EQ(saved, absl::AbortedError("proofs failed"));
  // When asked, the model was complete in a temporary beside OUT; after the refusal only OUT is left, as
  // it was.
  EXPECT_EQ(names_at_go_ahead.size(), 2u);
  EXPECT_EQ(staged_bytes, testing::Serialize(model));
  EXPECT_EQ(ReadBytes(PathOf("out.onnx")), "previous model");
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("out.onnx"));

  ASSERT_TRUE(internal::SaveModelIf(model, PathOf("out.onnx"), SaveOptions{}, internal::kMaxProtoBytes, [] {
                return absl::OkStatus();
              }).ok());
  EXPECT_EQ(ReadBytes(PathOf("out.onnx")), testing::Serialize(model));
}

// A deferred value of `size` bytes 0, 1, 2, ... (mod 251), handed over 1000 bytes at a time.
class CountingBytes : public DeferredTensor {
 public:
  explicit CountingBytes(int64_t size) : dims_{size} {}
  DataType type() const override { return onnx::TensorProto::UINT8; }
  const std::vector<int64_t>& dims() const override { return dims_; }
  absl::Status WriteTo(const ByteSink& sink) const override {
    std::string part;
    for (int64_t at = 0; at < dims_[0]; at += 1000) {
      part.clear();
      for (int64_t i = at; i < std::min(dims_[0], at + 1000); ++i) part.push_back(static_cast<char>(i % 251));
      if (absl::Status status = sink(part); !status.ok()) return status;
    }
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> dims_;
};

// A model with a stub for a deferred value "v" of `size` bytes, and the deferred value.
std::pair<onnx::ModelProto, DeferredTensors> StubbedModel(int64_t size) {
  onnx::ModelProto model = WeightedModel(4096);
  onnx::TensorProto* stub = model.mutable_graph()->add_initializer();
  stub->set_name("v");
  stub->set_data_type(onnx::TensorProto::UINT8);
  stub->add_dims(size);
  stub->set_data_location(onnx::TensorProto::EXTERNAL);
  return {model, {{"v", std::make_shared<CountingBytes>(size)}}};
}

// Past the size limit the weights go to a data file, which the deferred values must reach too: they are
// computed into the model first, and the files are those of the model with them filled in.
TEST_F(ModelIoTest, SaveModelIfFillsDeferredValuesInWhenTheModelGoesToADataFile) {
  auto [model, deferred] = StubbedModel(300000);
  const int64_t limit = 100000;  // below what the filled model serializes to, above the stubbed model
  ASSERT_LT(static_cast<int64_t>(model.ByteSizeLong()), limit);
  ASSERT_TRUE(internal::SaveModelIf(
                  model, PathOf("out.onnx"), SaveOptions{}, limit, [] { return absl::OkStatus(); }, deferred)
                  .ok());
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("out.onnx", "out.onnx.data"));
  onnx::ModelProto filled = StubbedModel(300000).first;
  ASSERT_TRUE(MaterializeDeferred(deferred, filled).ok());
  ASSERT_TRUE(internal::SaveModelWithLimit(filled, PathOf("filled.onnx"), SaveOptions{}, limit).ok());
  EXPECT_TRUE(ReadBytes(PathOf("out.onnx.data")) == ReadBytes(PathOf("filled.onnx.data")));
}

// Within the limit the value goes straight to the file, and the file is the filled model's.
TEST_F(ModelIoTest, SaveModelIfWritesDeferredValuesStraightToTheModelWithinTheLimit) {
  auto [model, deferred] = StubbedModel(300000);
  ASSERT_TRUE(
      internal::SaveModelIf(
          model, PathOf("out.onnx"), SaveOptions{}, internal::kMaxProtoBytes, [] { return absl::OkStatus(); }, deferred)
          .ok());
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("out.onnx"));
  onnx::ModelProto filled = StubbedModel(300000).first;
  ASSERT_TRUE(MaterializeDeferred(deferred, filled).ok());
  EXPECT_TRUE(ReadBytes(PathOf("out.onnx")) == testing::Serialize(filled));
  EXPECT_TRUE(IsDeferredStub(model.graph().initializer(model.graph().initializer_size() - 1)));  // never filled
}

// Strict shape inference computes y as float[2] from the rewritten Slice, and the model says float[3]:
// the result fails onnx's checks (the input passes onnx's checker, which does not infer shapes).
constexpr char kWrongOutputShapeModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
wrong_shape (float[4] x, int64[1] s = {1}, int64[1] e = {3}) => (float[3] y) {
  y = DynamicSlice (x, s, e)
}
)ONNX";

TEST_F(ModelIoTest, LegalizeFileWritesNothingWhenTheResultFailsOnnxsChecks) {
  onnx::ModelProto model = ParseModel(kWrongOutputShapeModel);
  testing::MakeInitializerConstant(model, "s");
  testing::MakeInitializerConstant(model, "e");
  ASSERT_TRUE(SaveModel(model, PathOf("in.onnx")).ok());
  const std::string input_bytes = ReadBytes(PathOf("in.onnx"));
  absl::StatusOr<Report> report = LegalizeFile(PathOf("in.onnx"), PathOf("out.onnx"), Options{});
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(report.status().message()),
              AllOf(HasSubstr("would not pass onnx's checker"), HasSubstr(PathOf("in.onnx"))));
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("in.onnx"));
  EXPECT_EQ(ReadBytes(PathOf("in.onnx")), input_bytes);
}

}  // namespace
}  // namespace onnx_legalize
