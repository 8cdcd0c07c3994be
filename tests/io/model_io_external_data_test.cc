// model_io with external data, against real files: which references LoadModel accepts, what
// OpenExternalData reads, how SaveModel writes data files (other folders, repacking, the 2 GiB switch),
// and that a failed save (full disk, unwritable folder, write limit, a signal) leaves nothing partial.
//
// Some tests mount a small tmpfs (a full disk, a read-only folder, another filesystem); they need root
// (CAP_SYS_ADMIN) and are skipped, saying so, where mounting is impossible.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "io/external_data.h"
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

// Distinct bytes, so a misplaced offset shows.
std::string Pattern(size_t size, int seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 7 + seed * 13) % 251);
  return bytes;
}

constexpr char kTwoWeightModel[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
two_weights (float[N] x) => (float[N] y) {
  t = Add (x, w)
  y = Mul (t, v)
}
)ONNX";

onnx::TensorProto* AddWeight(onnx::ModelProto& model, const std::string& name, const std::string& bytes) {
  onnx::TensorProto* w = model.mutable_graph()->add_initializer();
  w->set_name(name);
  w->set_data_type(onnx::TensorProto::UINT8);
  w->add_dims(static_cast<int64_t>(bytes.size()));
  w->set_raw_data(bytes);
  return w;
}

// Points `tensor` at `location`, offset and length, dropping its inline bytes.
void PointAt(onnx::TensorProto& tensor, const std::string& location, int64_t offset, int64_t length) {
  tensor.clear_raw_data();
  SetExternalDataRef(tensor, location, offset, length);
}

// Reads every external tensor of the model saved at `path` through OpenExternalData, keyed by name.
std::map<std::string, std::string> ReadExternal(const fs::path& path) {
  std::map<std::string, std::string> values;
  absl::StatusOr<onnx::ModelProto> model = LoadModel(path.string());
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return values;
  absl::StatusOr<std::unique_ptr<ExternalDataReader>> reader = OpenExternalData(path.string());
  EXPECT_TRUE(reader.ok()) << reader.status();
  for (const auto& t : model->graph().initializer()) {
    if (!IsExternal(t)) {
      values[t.name()] = t.raw_data();
      continue;
    }
    absl::StatusOr<std::string> bytes = (*reader)->Read(t);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (bytes.ok()) values[t.name()] = *bytes;
  }
  return values;
}

// A tmpfs mounted at `dir` for the life of the object.
class TmpfsMount {
 public:
  TmpfsMount(const fs::path& dir, const std::string& options, unsigned long flags = 0) : dir_(dir) {
    fs::create_directories(dir);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", flags, options.c_str()) == 0) {
      mounted_ = true;
    } else {
      error_ = std::strerror(errno);
    }
  }
  ~TmpfsMount() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  fs::path dir_;
  bool mounted_ = false;
  std::string error_;
};

#define MOUNT_OR_SKIP(mount)                                                                       \
  if (!(mount).mounted()) {                                                                        \
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN): " << (mount).error(); \
  }

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTestDir("model_io_external_data_test");
    in_ = root_ / "in";
    out_ = root_ / "out";
    fs::create_directories(in_);
    fs::create_directories(out_);
  }
  void TearDown() override {
    mounts_.clear();
    fs::remove_all(root_);
  }

  // in/m.onnx with `w` (1000 bytes at offset 24 of in/weights.bin, which holds 24 other bytes first) and
  // `v` (500 bytes at offset 1024 of it).
  onnx::ModelProto WriteInputModel() {
    onnx::ModelProto model = ParseModel(kTwoWeightModel);
    w_ = Pattern(1000, 1);
    v_ = Pattern(500, 2);
    std::string file = Pattern(24, 3) + w_;
    file.resize(1024, '\0');
    file += v_;
    WriteBytes(in_ / "weights.bin", file);
    PointAt(*AddWeight(model, "w", w_), "weights.bin", 24, 1000);
    PointAt(*AddWeight(model, "v", v_), "weights.bin", 1024, 500);
    EXPECT_TRUE(SaveModel(model, (in_ / "m.onnx").string()).ok());
    return model;
  }

  // in/m.onnx whose weight `w` (8 bytes) refers to `location`, saved verbatim.
  void WriteModelReferring(const std::string& location, int64_t offset = 0, int64_t length = 8) {
    onnx::ModelProto model = ParseModel(kTwoWeightModel);
    PointAt(*AddWeight(model, "w", std::string(8, 'w')), location, offset, length);
    AddWeight(model, "v", std::string(8, 'v'));
    ASSERT_TRUE(SaveModel(model, (in_ / "m.onnx").string()).ok());
  }

  void ExpectLoadFails(absl::StatusCode code, const std::vector<std::string>& parts) {
    absl::StatusOr<onnx::ModelProto> loaded = LoadModel((in_ / "m.onnx").string());
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), code) << loaded.status();
    for (const std::string& part : parts) EXPECT_THAT(std::string(loaded.status().message()), HasSubstr(part));
  }

  TmpfsMount& Mount(const fs::path& dir, const std::string& options, unsigned long flags = 0) {
    mounts_.push_back(std::make_unique<TmpfsMount>(dir, options, flags));
    return *mounts_.back();
  }

  fs::path root_, in_, out_;
  std::string w_, v_;
  std::vector<std::unique_ptr<TmpfsMount>> mounts_;
};

// --- LoadModel: every reference is checked, nothing is read --------------------------------------------

TEST_F(ExternalDataTest, LoadsAModelWithExternalDataAndKeepsTheReferences) {
  const onnx::ModelProto model = WriteInputModel();
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel((in_ / "m.onnx").string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(SameModel(*loaded, model));
  EXPECT_TRUE(IsExternal(loaded->graph().initializer(0)));
}

TEST_F(ExternalDataTest, RejectsAnAbsoluteLocation) {
  WriteBytes(in_ / "w.bin", std::string(8, 'w'));
  WriteModelReferring((in_ / "w.bin").string());  // Exists, and is even inside: absolute is refused anyway.
  ExpectLoadFails(absl::StatusCode::kInvalidArgument,
                  {"initializer 'w' (graph main)", (in_ / "w.bin").string(), "absolute"});
}

TEST_F(ExternalDataTest, RejectsALocationThatLeavesTheFolder) {
  WriteBytes(root_ / "w.bin", std::string(8, 'w'));
  fs::create_directories(in_ / "sub");
  for (const char* location : {"../w.bin", "sub/../../w.bin", "./../w.bin", "sub/../.."}) {
    WriteModelReferring(location);
    ExpectLoadFails(absl::StatusCode::kInvalidArgument,
                    {"initializer 'w'", location, "leaves the model's folder", fs::canonical(in_).string()});
  }
}

TEST_F(ExternalDataTest, RejectsASymbolicLinkPointingOut) {
  fs::create_directories(root_ / "outside");
  WriteBytes(root_ / "outside" / "w.bin", std::string(8, 'w'));
  fs::create_symlink(root_ / "outside" / "w.bin", in_ / "w.bin");
  WriteModelReferring("w.bin");
  ExpectLoadFails(absl::StatusCode::kInvalidArgument, {"initializer 'w'", "'w.bin'", "outside the model's folder"});
  // A linked folder on the way is caught the same.
  fs::create_directory_symlink(root_ / "outside", in_ / "linked");
  WriteModelReferring("linked/w.bin");
  ExpectLoadFails(absl::StatusCode::kInvalidArgument, {"initializer 'w'", "linked/w.bin", "outside"});
}

// A FIFO outside the folder: opening it for reading would block until a writer came, so a load (or a
// read) that returns at all has not opened it.
TEST_F(ExternalDataTest, NeverOpensAFileOutsideTheFolder) {
  fs::create_directories(root_ / "outside");
  ASSERT_EQ(::mkfifo((root_ / "outside" / "fifo").c_str(), 0600), 0);
  fs::create_symlink(root_ / "outside" / "fifo", in_ / "w.bin");
  WriteModelReferring("w.bin");
  ::alarm(20);  // Should it open the FIFO after all, fail rather than hang.
  ExpectLoadFails(absl::StatusCode::kInvalidArgument, {"outside"});
  absl::StatusOr<std::unique_ptr<ExternalDataReader>> reader = OpenExternalData((in_ / "m.onnx").string());
  ASSERT_TRUE(reader.ok());
  onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::UINT8);
  w.add_dims(8);
  SetExternalDataRef(w, "w.bin", 0, 8);
  EXPECT_EQ((*reader)->Read(w).status().code(), absl::StatusCode::kInvalidArgument);
  // And a FIFO inside the folder is no regular file: refused without being opened.
  fs::remove(in_ / "w.bin");
  ASSERT_EQ(::mkfifo((in_ / "w.bin").c_str(), 0600), 0);
  ExpectLoadFails(absl::StatusCode::kInvalidArgument, {"not a regular file"});
  EXPECT_EQ((*reader)->Read(w).status().code(), absl::StatusCode::kInvalidArgument);
  ::alarm(0);
}

TEST_F(ExternalDataTest, AcceptsASymbolicLinkThatStaysInside) {
  fs::create_directories(in_ / "data");
  WriteBytes(in_ / "data" / "real.bin", std::string(8, 'w'));
  fs::create_symlink("data/real.bin", in_ / "w.bin");
  WriteModelReferring("w.bin");
  EXPECT_EQ(ReadExternal(in_ / "m.onnx")["w"], std::string(8, 'w'));
}

TEST_F(ExternalDataTest, MissingFileIsNotFoundNamingTensorAndPath) {
  WriteModelReferring("absent.bin");
  ExpectLoadFails(absl::StatusCode::kNotFound,
                  {"model '", "initializer 'w' (graph main)", (fs::canonical(in_) / "absent.bin").string()});
  WriteModelReferring("no_such_folder/absent.bin");
  ExpectLoadFails(absl::StatusCode::kNotFound, {"initializer 'w'", "no_such_folder/absent.bin"});
}

TEST_F(ExternalDataTest, RejectsARangePastTheEndOfTheFile) {
  WriteBytes(in_ / "w.bin", std::string(8, 'w'));
  WriteModelReferring("w.bin", 9, 0);
  ExpectLoadFails(absl::StatusCode::kInvalidArgument,
                  {"initializer 'w'", "offset 9", "past the end", "w.bin", "8 bytes"});
  WriteModelReferring("w.bin", 4, 5);
  ExpectLoadFails(absl::StatusCode::kInvalidArgument,
                  {"initializer 'w'", "offset 4 + length 5", "past the end", "w.bin"});
  WriteModelReferring("w.bin", 0, 8);
  EXPECT_TRUE(LoadModel((in_ / "m.onnx").string()).ok()) << "exactly to the end is fine";
}

TEST_F(ExternalDataTest, RejectsAFolderAsTheDataFile) {
  fs::create_directories(in_ / "w.bin");
  WriteModelReferring("w.bin");
  ExpectLoadFails(absl::StatusCode::kInvalidArgument, {"initializer 'w'", "w.bin", "not a regular file"});
}

TEST_F(ExternalDataTest, ChecksTensorsInSubgraphsAndNodeAttributesToo) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
outer (bool cond) => (float[2] y) {
  y = If (cond) <
    then_branch = then_graph () => (float[2] t) { t = Constant <value = float[2] {1, 2}> () },
    else_branch = else_graph () => (float[2] e) { e = Constant <value = float[2] {3, 4}> () }
  >
}
)ONNX");
  onnx::TensorProto* value = model.mutable_graph()
                                 ->mutable_node(0)
                                 ->mutable_attribute(1)
                                 ->mutable_g()
                                 ->mutable_node(0)
                                 ->mutable_attribute(0)
                                 ->mutable_t();
  value->clear_float_data();
  SetExternalDataRef(*value, "missing.bin", 0, 8);
  ASSERT_TRUE(SaveModel(model, (in_ / "m.onnx").string()).ok());
  ExpectLoadFails(absl::StatusCode::kNotFound, {"attribute 'value'", "graph main/", "missing.bin"});
}

// --- OpenExternalData: reads exactly the tensor's range, checking again ----------------------------------

TEST_F(ExternalDataTest, ReaderReadsEachTensorsRange) {
  WriteInputModel();
  std::map<std::string, std::string> values = ReadExternal(in_ / "m.onnx");
  EXPECT_EQ(values["w"], w_);
  EXPECT_EQ(values["v"], v_);
}

// Hold maps the range instead of reading it (the opset move's proof reads weights this way): the same bytes, at
// an offset on no page boundary too, after the same checks.
TEST_F(ExternalDataTest, ReaderHoldsEachTensorsRangeMappedWhereItLies) {
  onnx::ModelProto model = WriteInputModel();
  absl::StatusOr<std::unique_ptr<ExternalDataReader>> reader = OpenExternalData((in_ / "m.onnx").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<std::unique_ptr<const ExternalDataReader::Held>> w = (*reader)->Hold(model.graph().initializer(0));
  absl::StatusOr<std::unique_ptr<const ExternalDataReader::Held>> v = (*reader)->Hold(model.graph().initializer(1));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*w)->bytes(), w_);
  EXPECT_EQ((*v)->bytes(), v_);
  // Held bytes stay readable after the reader is gone: the mapping keeps the file.
  reader->reset();
  EXPECT_EQ((*w)->bytes(), w_);

  reader = OpenExternalData((in_ / "m.onnx").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  fs::remove(in_ / "weights.bin");
  absl::StatusOr<std::unique_ptr<const ExternalDataReader::Held>> gone = (*reader)->Hold(model.graph().initializer(0));
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(gone.status().message()), AllOf(HasSubstr("tensor 'w'"), HasSubstr("weights.bin")));
}

TEST_F(ExternalDataTest, ReaderChecksAgainOnEveryRead) {
  onnx::ModelProto model = WriteInputModel();
  absl::StatusOr<std::unique_ptr<ExternalDataReader>> reader = OpenExternalData((in_ / "m.onnx").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  const onnx::TensorProto& w = model.graph().initializer(0);
  ASSERT_TRUE((*reader)->Read(w).ok());
  // Swapped for a link pointing out after the load: refused.
  fs::create_directories(root_ / "outside");
  fs::rename(in_ / "weights.bin", root_ / "outside" / "weights.bin");
  fs::create_symlink(root_ / "outside" / "weights.bin", in_ / "weights.bin");
  EXPECT_EQ((*reader)->Read(w).status().code(), absl::StatusCode::kInvalidArgument);
  // Gone: NotFound, naming the tensor and the file.
  fs::remove(in_ / "weights.bin");
  absl::StatusOr<std::string> gone = (*reader)->Read(w);
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(gone.status().message()), AllOf(HasSubstr("tensor 'w'"), HasSubstr("weights.bin")));
}

TEST_F(ExternalDataTest, ReaderRefusesARangeThatCannotBeTheTensorBeforeReadingIt) {
  WriteBytes(in_ / "w.bin", std::string(4096, 'w'));
  onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::FLOAT);
  w.add_dims(2);
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = w.add_external_data();
  entry->set_key("location");
  entry->set_value("w.bin");  // No length: the whole file, 4096 bytes for a float[2].
  absl::StatusOr<std::unique_ptr<ExternalDataReader>> reader = OpenExternalData((in_ / "m.onnx").string());
  ASSERT_TRUE(reader.ok());
  absl::StatusOr<std::string> bytes = (*reader)->Read(w);
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bytes.status().message()), AllOf(HasSubstr("4096 bytes"), HasSubstr("need 8")));
}

// --- SaveModel: references resolve from the output's folder ----------------------------------------------

TEST_F(ExternalDataTest, SavingIntoAnotherFolderMakesTheDataAvailableThere) {
  onnx::ModelProto model = WriteInputModel();
  const onnx::ModelProto before = model;
  const std::string input_data = ReadBytes(in_ / "weights.bin");
  SaveOptions options;
  options.external_data_folder = in_.string();
  ASSERT_TRUE(SaveModel(model, (out_ / "m.onnx").string(), options).ok());
  EXPECT_TRUE(SameModel(model, before)) << "the model is as it was after the save";
  EXPECT_THAT(FileNames(out_), UnorderedElementsAre("m.onnx", "weights.bin"));
  EXPECT_EQ(ReadBytes(out_ / "weights.bin"), input_data);
  std::map<std::string, std::string> values = ReadExternal(out_ / "m.onnx");
  EXPECT_EQ(values["w"], w_);
  EXPECT_EQ(values["v"], v_);
  EXPECT_EQ(ReadBytes(in_ / "weights.bin"), input_data);
  EXPECT_THAT(FileNames(in_), UnorderedElementsAre("m.onnx", "weights.bin"));
}

TEST_F(ExternalDataTest, SavingIntoAnotherFolderCreatesTheSubfoldersALocationNames) {
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  fs::create_directories(in_ / "weights");
  WriteBytes(in_ / "weights" / "w.bin", std::string(8, 'w'));
  PointAt(*AddWeight(model, "w", std::string(8, 'w')), "weights/w.bin", 0, 8);
  AddWeight(model, "v", std::string(8, 'v'));
  SaveOptions options;
  options.external_data_folder = in_.string();
  ASSERT_TRUE(SaveModel(model, (out_ / "m.onnx").string(), options).ok());
  EXPECT_EQ(ReadExternal(out_ / "m.onnx")["w"], std::string(8, 'w'));
}

TEST_F(ExternalDataTest, SavingIntoTheSameFolderLeavesTheDataFilesAlone) {
  onnx::ModelProto model = WriteInputModel();
  struct stat before;
  ASSERT_EQ(::stat((in_ / "weights.bin").c_str(), &before), 0);
  SaveOptions options;
  options.external_data_folder = in_.string();
  ASSERT_TRUE(SaveModel(model, (in_ / "copy.onnx").string(), options).ok());
  struct stat after;
  ASSERT_EQ(::stat((in_ / "weights.bin").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, before.st_nlink) << "not linked, not copied";
  EXPECT_THAT(FileNames(in_), UnorderedElementsAre("m.onnx", "copy.onnx", "weights.bin"));
  EXPECT_EQ(ReadExternal(in_ / "copy.onnx")["w"], w_);
}

// Another filesystem: no hard link is possible, so the data is copied (streamed).
TEST_F(ExternalDataTest, SavingOntoAnotherFilesystemCopiesTheData) {
  TmpfsMount& mount = Mount(out_, "size=4m");
  MOUNT_OR_SKIP(mount);
  onnx::ModelProto model = WriteInputModel();
  SaveOptions options;
  options.external_data_folder = in_.string();
  ASSERT_TRUE(SaveModel(model, (out_ / "m.onnx").string(), options).ok());
  EXPECT_EQ(ReadBytes(out_ / "weights.bin"), ReadBytes(in_ / "weights.bin"));
  EXPECT_EQ(ReadExternal(out_ / "m.onnx")["v"], v_);
}

TEST_F(ExternalDataTest, AnExplicitDataFileRepacksEveryWeightWithAlignedOffsets) {
  onnx::ModelProto model = WriteInputModel();
  const std::string big = Pattern(size_t{1} << 20, 4);  // 1 MiB: aligned to 64 KiB
  AddWeight(model, "big", big);
  AddWeight(model, "tiny", "abc");  // under the threshold: stays inline
  const onnx::ModelProto before = model;
  SaveOptions options;
  options.external_data_folder = in_.string();
  options.external_data_name = "packed.bin";
  options.external_data_threshold = 16;
  ASSERT_TRUE(SaveModel(model, (out_ / "m.onnx").string(), options).ok());
  EXPECT_TRUE(SameModel(model, before));
  EXPECT_THAT(FileNames(out_), UnorderedElementsAre("m.onnx", "packed.bin"))
      << "every external tensor went into packed.bin: weights.bin is not needed";

  absl::StatusOr<onnx::ModelProto> saved = LoadModel((out_ / "m.onnx").string());
  ASSERT_TRUE(saved.ok()) << saved.status();
  for (const auto& t : saved->graph().initializer()) {
    if (t.name() == "tiny") {
      EXPECT_FALSE(IsExternal(t));
      continue;
    }
    absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(t, t.name());
    ASSERT_TRUE(ref.ok()) << ref.status();
    EXPECT_EQ(ref->location, "packed.bin") << t.name();
    EXPECT_EQ(ref->offset % (t.name() == "big" ? 65536 : 64), 0) << t.name();
  }
  std::map<std::string, std::string> values = ReadExternal(out_ / "m.onnx");
  EXPECT_EQ(values["w"], w_);
  EXPECT_EQ(values["v"], v_);
  EXPECT_EQ(values["big"], big);
  EXPECT_EQ(values["tiny"], "abc");
}

TEST_F(ExternalDataTest, SavesTheSameBytesEveryTime) {
  onnx::ModelProto model = WriteInputModel();
  AddWeight(model, "inline", Pattern(5000, 5));
  SaveOptions options;
  options.external_data_folder = in_.string();
  options.external_data_name = "packed.bin";
  ASSERT_TRUE(SaveModel(model, (out_ / "a.onnx").string(), options).ok());
  ASSERT_TRUE(SaveModel(model, (out_ / "b.onnx").string(), options).ok());
  EXPECT_EQ(ReadBytes(out_ / "a.onnx"), ReadBytes(out_ / "b.onnx"));
}

TEST_F(ExternalDataTest, RejectsADataFileNameThatIsNoPlainFileName) {
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  for (const char* name : {"sub/w.bin", "../w.bin", "..", "m.onnx"}) {
    SaveOptions options;
    options.external_data_name = name;
    absl::Status saved = SaveModel(model, (out_ / "m.onnx").string(), options);
    EXPECT_EQ(saved.code(), absl::StatusCode::kInvalidArgument) << name;
  }
  EXPECT_THAT(FileNames(out_), IsEmpty());
}

// The 2 GiB switch, with the limit scaled down: a model that would serialize past it is written with its
// weights in "<name>.data", folded ones (plain inline initializers) included.
TEST_F(ExternalDataTest, MovesWeightsToADataFileWhenTheModelWouldPassTheLimit) {
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  AddWeight(model, "w", Pattern(40000, 1));
  AddWeight(model, "v", Pattern(40000, 2));
  AddWeight(model, "small", "small");
  const onnx::ModelProto before = model;
  const int64_t limit = 64 * 1024;
  ASSERT_GT(static_cast<int64_t>(model.ByteSizeLong()), limit);
  ASSERT_TRUE(internal::SaveModelWithLimit(model, (out_ / "m.onnx").string(), SaveOptions{}, limit).ok());
  EXPECT_TRUE(SameModel(model, before));
  EXPECT_THAT(FileNames(out_), UnorderedElementsAre("m.onnx", "m.onnx.data"));
  EXPECT_LT(fs::file_size(out_ / "m.onnx"), 1024u);
  std::map<std::string, std::string> values = ReadExternal(out_ / "m.onnx");
  EXPECT_EQ(values["w"], Pattern(40000, 1));
  EXPECT_EQ(values["v"], Pattern(40000, 2));
  EXPECT_EQ(values["small"], "small");

  // Under the limit nothing moves.
  ASSERT_TRUE(internal::SaveModelWithLimit(model, (out_ / "small.onnx").string(), SaveOptions{}, 1 << 20).ok());
  EXPECT_FALSE(fs::exists(out_ / "small.onnx.data"));
}

// The real limit: 2.25 GiB of inline weights (a folded model can get there) in memory. It needs about
// 2.5 GiB of memory and 10 s, so a plain ctest skips it; ONNX_LEGALIZE_LARGE_TESTS=1 runs it, as
// scripts/test.sh (and so CI) does.
TEST_F(ExternalDataTest, MovesWeightsToADataFileWhenTheModelWouldPass2GiB) {
  const char* large = std::getenv("ONNX_LEGALIZE_LARGE_TESTS");
  if (large == nullptr || std::string(large) != "1") {
    GTEST_SKIP() << "needs ~2.5 GiB of memory; set ONNX_LEGALIZE_LARGE_TESTS=1 to run it";
  }
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  const size_t size = size_t{768} << 20;
  for (const char* name : {"a", "b", "c"}) {
    onnx::TensorProto* t = AddWeight(model, name, "");
    t->mutable_raw_data()->assign(size, name[0]);
    t->set_dims(0, static_cast<int64_t>(size));
  }
  ASSERT_GT(model.ByteSizeLong(), size_t{INT32_MAX});
  ASSERT_TRUE(SaveModel(model, (out_ / "m.onnx").string(), SaveOptions{}).ok());
  EXPECT_THAT(FileNames(out_), UnorderedElementsAre("m.onnx", "m.onnx.data"));
  EXPECT_LT(fs::file_size(out_ / "m.onnx"), 4096u);
  EXPECT_GE(fs::file_size(out_ / "m.onnx.data"), 3 * size);
  absl::StatusOr<onnx::ModelProto> saved = LoadModel((out_ / "m.onnx").string());
  ASSERT_TRUE(saved.ok()) << saved.status();
  const int fd = ::open((out_ / "m.onnx.data").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  for (const auto& t : saved->graph().initializer()) {
    absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(t, t.name());
    ASSERT_TRUE(ref.ok()) << ref.status();
    EXPECT_EQ(ref->length, static_cast<int64_t>(size));
    char first = 0, last = 0;
    ASSERT_EQ(::pread(fd, &first, 1, ref->offset), 1);
    ASSERT_EQ(::pread(fd, &last, 1, ref->offset + *ref->length - 1), 1);
    EXPECT_EQ(first, t.name()[0]);
    EXPECT_EQ(last, t.name()[0]);
  }
  ::close(fd);
}

TEST_F(ExternalDataTest, PastTheLimitEvenWithExternalDataIsResourceExhaustedAndWritesNothing) {
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  onnx::TensorProto* typed = model.mutable_graph()->add_initializer();  // Typed fields stay inline.
  typed->set_name("w");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(20000);
  for (int i = 0; i < 20000; ++i) typed->add_float_data(static_cast<float>(i));
  AddWeight(model, "v", Pattern(40000, 2));
  absl::Status saved = internal::SaveModelWithLimit(model, (out_ / "m.onnx").string(), SaveOptions{}, 64 * 1024);
  EXPECT_EQ(saved.code(), absl::StatusCode::kResourceExhausted) << saved;
  EXPECT_THAT(FileNames(out_), IsEmpty()) << "the staged data file is removed too";
}

TEST_F(ExternalDataTest, ReplacingTheDataFileItReadsFromRepacksItCorrectly) {
  onnx::ModelProto model = WriteInputModel();
  fs::rename(in_ / "weights.bin", in_ / "m.onnx.data");
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(t, t.name());
    ASSERT_TRUE(ref.ok());
    SetExternalDataRef(t, "m.onnx.data", ref->offset, *ref->length);
  }
  AddWeight(model, "inline", Pattern(3000, 9));
  ASSERT_TRUE(SaveModel(model, (in_ / "m.onnx").string()).ok());
  // In place, the automatic name is the very file the weights come from.
  SaveOptions options;
  options.external_data_folder = in_.string();
  options.external_data_name = "m.onnx.data";
  ASSERT_TRUE(SaveModel(model, (in_ / "m.onnx").string(), options).ok());
  std::map<std::string, std::string> values = ReadExternal(in_ / "m.onnx");
  EXPECT_EQ(values["w"], w_);
  EXPECT_EQ(values["v"], v_);
  EXPECT_EQ(values["inline"], Pattern(3000, 9));
  EXPECT_THAT(FileNames(in_), UnorderedElementsAre("m.onnx", "m.onnx.data"));
}

// --- atomic saves under failure ---------------------------------------------------------------------------

// Writes previous versions of OUT and its data file, which a failing save must leave as they are.
void WritePreviousOutput(const fs::path& folder) {
  WriteBytes(folder / "m.onnx", "previous model");
  WriteBytes(folder / "m.onnx.data", "previous data");
}

void ExpectPreviousOutputUntouched(const fs::path& folder) {
  EXPECT_EQ(ReadBytes(folder / "m.onnx"), "previous model");
  EXPECT_EQ(ReadBytes(folder / "m.onnx.data"), "previous data");
  EXPECT_THAT(FileNames(folder), UnorderedElementsAre("m.onnx", "m.onnx.data")) << "no temporary is left";
}

TEST_F(ExternalDataTest, AFullDiskLeavesNoPartialModelOrDataFile) {
  TmpfsMount& mount = Mount(out_, "size=1m");
  MOUNT_OR_SKIP(mount);
  WritePreviousOutput(out_);
  // 2 MiB of weights cannot fit: the data file fails half way.
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  AddWeight(model, "w", Pattern(size_t{1} << 20, 1));
  AddWeight(model, "v", Pattern(size_t{1} << 20, 2));
  const onnx::ModelProto before = model;
  SaveOptions options;
  options.external_data_name = "m.onnx.data";
  absl::Status saved = SaveModel(model, (out_ / "m.onnx").string(), options);
  EXPECT_EQ(saved.code(), absl::StatusCode::kResourceExhausted) << saved;
  EXPECT_THAT(std::string(saved.message()), AllOf(HasSubstr("m.onnx.data"), HasSubstr("No space left")));
  ExpectPreviousOutputUntouched(out_);
  EXPECT_TRUE(SameModel(model, before)) << "the model is restored after a failed save too";
}

TEST_F(ExternalDataTest, AFullDiskWhileWritingTheModelRemovesTheStagedDataFile) {
  TmpfsMount& mount = Mount(out_, "size=1m");
  MOUNT_OR_SKIP(mount);
  WritePreviousOutput(out_);
  // The data file (600 KB) fits; the model, with 600 KB left inline under a high threshold, does not.
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  AddWeight(model, "w", Pattern(600000, 1));
  AddWeight(model, "v", Pattern(599999, 2));
  SaveOptions options;
  options.external_data_name = "m.onnx.data";
  options.external_data_threshold = 600000;
  absl::Status saved = SaveModel(model, (out_ / "m.onnx").string(), options);
  EXPECT_EQ(saved.code(), absl::StatusCode::kResourceExhausted) << saved;
  EXPECT_THAT(std::string(saved.message()),
              AllOf(HasSubstr("cannot write '" + (out_ / "m.onnx").string() + "'"), HasSubstr("No space left")));
  ExpectPreviousOutputUntouched(out_);
}

TEST_F(ExternalDataTest, AnUnwritableFolderFailsAndCreatesNothing) {
  TmpfsMount& mount = Mount(out_, "size=1m", MS_RDONLY);
  MOUNT_OR_SKIP(mount);
  onnx::ModelProto model = WriteInputModel();
  const std::string input_model = ReadBytes(in_ / "m.onnx");
  const std::string input_data = ReadBytes(in_ / "weights.bin");
  SaveOptions options;
  options.external_data_folder = in_.string();
  absl::Status saved = SaveModel(model, (out_ / "m.onnx").string(), options);
  EXPECT_FALSE(saved.ok());
  EXPECT_THAT(std::string(saved.message()), HasSubstr("Read-only file system"));
  EXPECT_THAT(FileNames(out_), IsEmpty());
  EXPECT_EQ(ReadBytes(in_ / "m.onnx"), input_model);
  EXPECT_EQ(ReadBytes(in_ / "weights.bin"), input_data);
}

// RLIMIT_FSIZE stops the data file half way (EFBIG, SIGXFSZ ignored).
TEST_F(ExternalDataTest, AWriteLimitLeavesNoPartialModelOrDataFile) {
  WritePreviousOutput(out_);
  onnx::ModelProto model = ParseModel(kTwoWeightModel);
  AddWeight(model, "w", Pattern(64 * 1024, 1));
  SaveOptions options;
  options.external_data_name = "m.onnx.data";
  struct rlimit saved_limit;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved_limit), 0);
  struct rlimit small_limit = saved_limit;
  small_limit.rlim_cur = 4096;
  auto* previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small_limit), 0);
  absl::Status saved = SaveModel(model, (out_ / "m.onnx").string(), options);
  ::setrlimit(RLIMIT_FSIZE, &saved_limit);
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_FALSE(saved.ok());
  EXPECT_THAT(std::string(saved.message()), HasSubstr("m.onnx.data"));
  ExpectPreviousOutputUntouched(out_);
}

// A signal that kills the process in the middle of the data file (SIGXFSZ at the write limit, its default
// action): OUT and its data file are the previous ones. Only a hidden temporary can remain.
TEST_F(ExternalDataTest, AProcessKilledWhileSavingLeavesThePreviousOutput) {
  WritePreviousOutput(out_);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    onnx::ModelProto model = ParseModel(kTwoWeightModel);
    AddWeight(model, "w", Pattern(256 * 1024, 1));
    SaveOptions options;
    options.external_data_name = "m.onnx.data";
    std::signal(SIGXFSZ, SIG_DFL);
    struct rlimit limit = {64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    (void)SaveModel(model, (out_ / "m.onnx").string(), options);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child should have died of SIGXFSZ";
  EXPECT_EQ(WTERMSIG(status), SIGXFSZ);
  EXPECT_EQ(ReadBytes(out_ / "m.onnx"), "previous model");
  EXPECT_EQ(ReadBytes(out_ / "m.onnx.data"), "previous data");
  for (const std::string& name : FileNames(out_)) {
    if (name != "m.onnx" && name != "m.onnx.data") EXPECT_EQ(name.rfind(".m.onnx.data.tmp-", 0), 0u) << name;
  }
}

// --- LegalizeFile ------------------------------------------------------------------------------------------

// A weight `w` cropped with constant indices (folds, reading w) and `big` cropped with run-time indices
// (rewritten, never read), both in in/weights.bin.
constexpr char kLegacyModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
legacy (int64[1] s, int64[1] e) => (float[2, 3] cropped, float[M, 4] sliced) {
  cropped = DynamicSlice (w, ws, we)
  sliced = DynamicSlice (big, s, e)
}
)ONNX";

onnx::TensorProto* AddFloats(onnx::ModelProto& model, const std::string& name, std::vector<int64_t> dims, float first) {
  onnx::TensorProto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t count = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    count *= d;
  }
  std::string bytes(static_cast<size_t>(count) * 4, '\0');
  for (int64_t i = 0; i < count; ++i) {
    const float value = first + static_cast<float>(i);
    std::memcpy(&bytes[i * 4], &value, 4);
  }
  t->set_raw_data(bytes);
  return t;
}

onnx::TensorProto* AddInt64s(onnx::ModelProto& model, const std::string& name, int64_t value) {
  onnx::TensorProto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(1);
  t->add_int64_data(value);
  return t;
}

// Writes in/legacy.onnx with w and big stored in in/weights.bin.
void WriteLegacyModel(const fs::path& folder) {
  onnx::ModelProto model = ParseModel(kLegacyModel);
  onnx::TensorProto* w = AddFloats(model, "w", {4, 3}, 1.f);
  onnx::TensorProto* big = AddFloats(model, "big", {64, 4}, 100.f);
  AddInt64s(model, "ws", 1);
  AddInt64s(model, "we", 3);
  const std::string file = w->raw_data() + big->raw_data();
  WriteBytes(folder / "weights.bin", file);
  PointAt(*w, "weights.bin", 0, 48);
  PointAt(*big, "weights.bin", 48, 1024);
  ASSERT_TRUE(SaveModel(model, (folder / "legacy.onnx").string()).ok());
}

TEST_F(ExternalDataTest, LegalizeFileFoldsFromExternalDataIntoAnotherFolder) {
  WriteLegacyModel(in_);
  const std::string input_model = ReadBytes(in_ / "legacy.onnx");
  absl::StatusOr<Report> report = LegalizeFile((in_ / "legacy.onnx").string(), (out_ / "legal.onnx").string(), {});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->nodes.size(), 2u);
  EXPECT_EQ(report->nodes[0].action, Action::kFolded);
  EXPECT_EQ(report->nodes[1].action, Action::kRewritten);
  EXPECT_EQ(ReadBytes(in_ / "legacy.onnx"), input_model);

  // big still refers to weights.bin, now in out/; the folded value is inline.
  EXPECT_THAT(FileNames(out_), UnorderedElementsAre("legal.onnx", "weights.bin"));
  std::map<std::string, std::string> values = ReadExternal(out_ / "legal.onnx");
  ASSERT_EQ(values.count("cropped"), 1u);
  std::vector<float> cropped(6);
  ASSERT_EQ(values["cropped"].size(), 24u);
  std::memcpy(cropped.data(), values["cropped"].data(), 24);
  EXPECT_THAT(cropped, ::testing::ElementsAre(4, 5, 6, 7, 8, 9));
  EXPECT_EQ(values.count("w"), 0u) << "the folded weight is removed";
  ASSERT_EQ(values["big"].size(), 1024u);
}

// The opset move of a model with external data is proved like any other's, its weights read from their file.
TEST_F(ExternalDataTest, LegalizeFileProvesTheOpsetMoveWithTheWeightsOfTheDataFile) {
  WriteLegacyModel(in_);
  absl::StatusOr<Report> report = LegalizeFile((in_ / "legacy.onnx").string(), (out_ / "legal.onnx").string(), {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, ::testing::StartsWith("executed in the model runner at opset 9 and 10"));
  EXPECT_TRUE(report->opset_move_proof.executed);
}

TEST_F(ExternalDataTest, LegalizeFileWritesOverItsInputOnlyInPlace) {
  WriteLegacyModel(in_);
  const std::string input_model = ReadBytes(in_ / "legacy.onnx");
  const std::string in = (in_ / "legacy.onnx").string();
  absl::StatusOr<Report> refused = LegalizeFile(in, in, {});
  EXPECT_EQ(ErrorKindOf(refused.status()), ErrorKind::kInvalidRequest) << refused.status();
  EXPECT_EQ(InvalidRequestField(refused.status()), "output_path");
  EXPECT_EQ(ReadBytes(in_ / "legacy.onnx"), input_model);

  SaveOptions in_place;
  in_place.in_place = true;
  absl::StatusOr<Report> report = LegalizeFile(in, in, {}, in_place);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->changed);
  EXPECT_THAT(FileNames(in_), UnorderedElementsAre("legacy.onnx", "weights.bin"));
  absl::StatusOr<onnx::ModelProto> legal = LoadModel(in);
  ASSERT_TRUE(legal.ok()) << legal.status();
  EXPECT_EQ(testing::CountOps(*legal, "DynamicSlice"), 0);
  EXPECT_EQ(ReadExternal(in_ / "legacy.onnx")["big"].size(), 1024u);
  // A second run finds nothing to do and changes nothing.
  const std::string once = ReadBytes(in_ / "legacy.onnx");
  ASSERT_TRUE(LegalizeFile(in, in, {}, in_place).ok());
  EXPECT_EQ(ReadBytes(in_ / "legacy.onnx"), once);
}

TEST_F(ExternalDataTest, LegalizeFileRejectsABadReferenceAndWritesNothing) {
  WriteLegacyModel(in_);
  fs::remove(in_ / "weights.bin");
  absl::StatusOr<Report> report = LegalizeFile((in_ / "legacy.onnx").string(), (out_ / "legal.onnx").string(), {});
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(report.status().message()), AllOf(HasSubstr("initializer 'w'"), HasSubstr("weights.bin")));
  EXPECT_THAT(FileNames(out_), IsEmpty());
}

}  // namespace
}  // namespace onnx_legalize
