// The onnx-legalize binary, run as a user runs it: arguments in, exit code, stdout, stderr and files out.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_files.h"
#include "test_models.h"
#include "tools/cli_models.h"

#ifndef ONNX_LEGALIZE_CLI
#error "ONNX_LEGALIZE_CLI must name the onnx-legalize binary"
#endif

namespace {

namespace fs = std::filesystem;
using ::onnx_legalize::testing::CliRun;
using ::onnx_legalize::testing::FileNames;
using ::onnx_legalize::testing::kCleanModel;
using ::onnx_legalize::testing::kDynamicSliceModel;
using ::onnx_legalize::testing::kMaxPoolMovedModel;
using ::onnx_legalize::testing::MakeTestDir;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::ReadBytes;
using ::onnx_legalize::testing::RunCli;
using ::onnx_legalize::testing::WriteBytes;
using ::onnx_legalize::testing::WriteModel;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTestDir("cli_test");
    dir_ = root_ / "work";
    fs::create_directories(dir_);
    WriteModel(dir_ / "clean.onnx", kCleanModel);
    WriteModel(dir_ / "dirty.onnx", kDynamicSliceModel, "crop");
    WriteBytes(dir_ / "garbage.onnx", "not a model at all");
    clean_bytes_ = ReadBytes(dir_ / "clean.onnx");
    dirty_bytes_ = ReadBytes(dir_ / "dirty.onnx");
  }

  void TearDown() override {
    // The inputs are never modified, whatever the command did.
    EXPECT_EQ(ReadBytes(dir_ / "clean.onnx"), clean_bytes_);
    EXPECT_EQ(ReadBytes(dir_ / "dirty.onnx"), dirty_bytes_);
    EXPECT_EQ(ReadBytes(dir_ / "garbage.onnx"), "not a model at all");
    fs::remove_all(root_);
  }

  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }

  // Runs the binary with `args`; stdout and stderr are captured outside the work folder.
  CliRun Run(const std::vector<std::string>& args) const { return RunCli(ONNX_LEGALIZE_CLI, args, root_); }

  // Expects a failure with `exit_code` that wrote nothing: a message on stderr, no OUT, no stray file.
  void ExpectFailureWritingNothing(const std::vector<std::string>& args, int exit_code,
                                   const std::string& message_part) {
    const CliRun run = Run(args);
    EXPECT_EQ(run.exit_code, exit_code) << run.err;
    EXPECT_THAT(run.err, AllOf(StartsWith("onnx-legalize: "), HasSubstr(message_part)));
    EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("clean.onnx", "dirty.onnx", "garbage.onnx"));
  }

  fs::path root_;
  fs::path dir_;
  std::string clean_bytes_;
  std::string dirty_bytes_;
};

// --- help and version ----------------------------------------------------------------------------------

TEST_F(CliTest, HelpPrintsUsageAndExitCodes) {
  for (const char* flag : {"--help", "-h"}) {
    const CliRun run = Run({flag});
    EXPECT_EQ(run.exit_code, 0) << flag;
    EXPECT_THAT(run.out, AllOf(HasSubstr("Usage:"), HasSubstr("--target-opset"), HasSubstr("--no-verify"),
                               HasSubstr("Exit codes"), HasSubstr("4  verification failed")));
    EXPECT_THAT(run.err, IsEmpty());
  }
}

TEST_F(CliTest, HelpWinsOverOtherArguments) { EXPECT_EQ(Run({"--bogus", "--help"}).exit_code, 0); }

TEST_F(CliTest, VersionPrintsTheVersion) {
  const CliRun run = Run({"--version"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, AllOf(StartsWith("onnx-legalize 0.1.0"), HasSubstr("onnx 1.23.2")));
}

// --- exit 2: usage errors ------------------------------------------------------------------------------

TEST_F(CliTest, UnknownFlagIsAUsageError) {
  ExpectFailureWritingNothing({"--bogus", PathOf("clean.onnx"), PathOf("out.onnx")}, 2, "unknown flag '--bogus'");
  // absl's own flags are not ours to accept.
  ExpectFailureWritingNothing({"--flagfile=x", PathOf("clean.onnx"), PathOf("out.onnx")}, 2, "unknown flag");
}

TEST_F(CliTest, WrongNumberOfPositionalsIsAUsageError) {
  ExpectFailureWritingNothing({}, 2, "missing the input model");
  ExpectFailureWritingNothing({PathOf("clean.onnx")}, 2, "missing the output model");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("out.onnx"), PathOf("more.onnx")}, 2, "too many arguments");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("a.onnx"), "-o", PathOf("out.onnx")}, 2, "-o");
}

TEST_F(CliTest, BadFlagValuesAreUsageErrors) {
  const std::string in = PathOf("clean.onnx");
  const std::string out = PathOf("out.onnx");
  ExpectFailureWritingNothing({"--target-opset=0", in, out}, 2, "--target-opset: target_opset 0 is outside 1..28");
  ExpectFailureWritingNothing({"--target-opset=29", in, out}, 2, "outside 1..28");
  ExpectFailureWritingNothing({"--target-opset=abc", in, out}, 2, "bad value 'abc' for --target-opset");
  ExpectFailureWritingNothing({"--target-opset=", in, out}, 2, "--target-opset needs a value");
  ExpectFailureWritingNothing({in, out, "--target-opset"}, 2, "--target-opset needs a value");
  ExpectFailureWritingNothing({"--max-fold-bytes=-1", in, out}, 2,
                              "--max-fold-bytes: max_fold_bytes is -1; it must be >= 0");
  ExpectFailureWritingNothing({"--proof-budget=-1", in, out}, 2, "--proof-budget: proof_budget is -1; it must be >= 0");
  ExpectFailureWritingNothing({"--proof-budget=lots", in, out}, 2, "bad value 'lots' for --proof-budget");
  ExpectFailureWritingNothing({"--keep-opset=maybe", in, out}, 2, "bad value 'maybe'");
  ExpectFailureWritingNothing({"--no-verify=1", in, out}, 2, "takes no value");
  ExpectFailureWritingNothing({"--keep-opset", "--target-opset=11", in, out}, 2,
                              "--keep-opset: keep_opset and target_opset contradict");
}

TEST_F(CliTest, OutputThatIsTheInputIsAUsageError) {
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("clean.onnx")}, 2, "use --in-place");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), (dir_ / "." / "clean.onnx").string()}, 2, "is the input file");
}

TEST_F(CliTest, UsageErrorLeavesAnExistingOutputUntouched) {
  WriteBytes(dir_ / "out.onnx", "previous output");
  const CliRun run = Run({"--target-opset=0", PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(ReadBytes(dir_ / "out.onnx"), "previous output");
  fs::remove(dir_ / "out.onnx");
}

// --- exit 3: unreadable, malformed or not legalizable -------------------------------------------------

// A path that is not UTF-8 is shown as error messages show it, its stray bytes as \xNN, in the success summary
// too (issue 42: the summary echoed the raw 0xFF byte).
TEST_F(CliTest, TheSummaryEscapesAPathThatIsNotUtf8AsErrorsDo) {
  const std::string out = PathOf("out\xFF.onnx");
  const CliRun run = Run({PathOf("dirty.onnx"), out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("out\\xFF.onnx: "));
  EXPECT_EQ(run.out.find('\xFF'), std::string::npos) << run.out;
  EXPECT_TRUE(fs::exists(out));
  fs::remove(out);
}

TEST_F(CliTest, MissingInputExits3) {
  ExpectFailureWritingNothing({PathOf("absent.onnx"), PathOf("out.onnx")}, 3, PathOf("absent.onnx"));
}

TEST_F(CliTest, MalformedInputExits3AndLeavesAnExistingOutputUntouched) {
  ExpectFailureWritingNothing({PathOf("garbage.onnx"), PathOf("out.onnx")}, 3, PathOf("garbage.onnx"));
  WriteBytes(dir_ / "out.onnx", "previous output");
  const CliRun run = Run({PathOf("garbage.onnx"), "-o", PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(ReadBytes(dir_ / "out.onnx"), "previous output");
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, UnwritableOutputExits3) {
  WriteBytes(dir_ / "notadir", "x");
  const CliRun run = Run({PathOf("clean.onnx"), PathOf("notadir/out.onnx")});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_THAT(run.err, HasSubstr(PathOf("notadir/out.onnx")));
  EXPECT_EQ(ReadBytes(dir_ / "notadir"), "x");
  fs::remove(dir_ / "notadir");
}

TEST_F(CliTest, ReportIntoAMissingFolderExits3BeforeWritingTheModel) {
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("out.onnx"), "--report=" + PathOf("missing/report.json")},
                              3, "does not exist");
}

// --- exit 0: legalizing ---------------------------------------------------------------------------------

TEST_F(CliTest, ModelWithoutDynamicSliceIsWrittenAndSummarized) {
  const CliRun run = Run({PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("no removed op"), HasSubstr("opset 13")));
  EXPECT_THAT(run.err, IsEmpty());
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(ReadBytes(dir_ / "out.onnx")));
  EXPECT_EQ(written.graph().node(0).op_type(), "Relu");
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, AcceptsHyphenatedFlagsAndDashO) {
  const CliRun run = Run(
      {"--no-verify", "--max-fold-bytes=1024", "--target-opset", "13", PathOf("clean.onnx"), "-o", PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(dir_ / "out.onnx"));
  fs::remove(dir_ / "out.onnx");
  // absl's own spellings work too.
  const CliRun absl_spelling = Run({"--noverify", "--max_fold_bytes=1024", PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(absl_spelling.exit_code, 0) << absl_spelling.err;
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, ReportToStdoutIsJson) {
  const CliRun run = Run({"--report=-", PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(StartsWith("{\n  \"changed\": false,"), HasSubstr("\"opset_after\": 13"),
                             HasSubstr("\"nodes\": []"), Not(HasSubstr("no removed op"))));
  fs::remove(dir_ / "out.onnx");
  // "--report -" means the same.
  EXPECT_THAT(Run({"--report", "-", PathOf("clean.onnx"), PathOf("out.onnx")}).out, StartsWith("{"));
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, ReportToAFileReplacesTheSummary) {
  const CliRun run = Run({PathOf("clean.onnx"), PathOf("out.onnx"), "--report=" + PathOf("report.json")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, IsEmpty());
  EXPECT_THAT(ReadBytes(dir_ / "report.json"), StartsWith("{\n  \"changed\": false,"));
  fs::remove(dir_ / "out.onnx");
  fs::remove(dir_ / "report.json");
}

// The opset move's proof: what ran, in the report and the summary, within --proof-budget.
TEST_F(CliTest, ProofBudgetReachesTheProofAndTheReportSaysWhatRan) {
  const CliRun run = Run({PathOf("dirty.onnx"), PathOf("out.onnx"), "--report=-"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              AllOf(HasSubstr("\"opset_move_proof\": {\n    \"executed\": true,"), HasSubstr("\"input_sets\": 3,"),
                    HasSubstr("\"seconds\": "), HasSubstr("\"why_not\": \"\"\n  }")));
  fs::remove(dir_ / "out.onnx");

  // The move leaves the DynamicSlice as it was: identical by construction, nothing for a budget to stop. The
  // MaxPool it moves to version 10 runs in the proof, past a budget of 1.
  WriteModel(dir_ / "pooled.onnx", kMaxPoolMovedModel);
  const CliRun tiny = Run({PathOf("pooled.onnx"), PathOf("out.onnx"), "--proof-budget=1", "--report=-"});
  EXPECT_EQ(tiny.exit_code, 0) << tiny.err;
  EXPECT_THAT(tiny.out, AllOf(HasSubstr("\"executed\": false,"), HasSubstr("\"input_sets\": 0,"),
                              HasSubstr("\"why_not\": \"past the proof budget (1 element operations)"),
                              HasSubstr("raise it with --proof-budget")));
  fs::remove(dir_ / "out.onnx");
  fs::remove(dir_ / "pooled.onnx");

  const CliRun summary = Run({PathOf("dirty.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_THAT(summary.out, AllOf(HasSubstr("opset move: executed"), HasSubstr("opset move proof: 3 input sets, ")));
  fs::remove(dir_ / "out.onnx");
}

// --target-opset below the model's own moves it down, the summary saying what the move changed; a node with no
// form there is refused with exit 3 and nothing written.
TEST_F(CliTest, MovesAModelDownOrRefusesTheNodeWithNoFormThere) {
  WriteModel(dir_ / "opset14.onnx", R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2, 3] x) => (float[2, 3] y) { y = Relu (x) }
)");
  const CliRun down = Run({PathOf("opset14.onnx"), PathOf("out.onnx"), "--target-opset=11"});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_THAT(down.out, AllOf(HasSubstr("opset 14 -> 11"), HasSubstr("opset move: executed"),
                              HasSubstr("opset move changed: 1 Relu (Relu-14 -> Relu-6) version, first Relu")));
  fs::remove(dir_ / "out.onnx");

  WriteModel(dir_ / "hardswish.onnx", R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2, 3] x) => (float[2, 3] y) { y = Trilu (x) }
)");
  const CliRun refused = Run({PathOf("hardswish.onnx"), PathOf("out.onnx"), "--target-opset=13"});
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_THAT(refused.err, HasSubstr("has no form at opset 13: Trilu exists only from opset 14"));
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
}

// --- --check ----------------------------------------------------------------------------------------------

TEST_F(CliTest, CheckOnACleanModelExits0) {
  const CliRun run = Run({"--check", PathOf("clean.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("no findings in 1 file"));
}

TEST_F(CliTest, CheckOnADynamicSliceModelExits1AndNamesFileGraphNodeAndOp) {
  const CliRun run = Run({"--check", PathOf("clean.onnx"), PathOf("dirty.onnx")});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr(PathOf("dirty.onnx") + ": main: node 'crop' op DynamicSlice"),
                             Not(HasSubstr(PathOf("clean.onnx") + ":")), HasSubstr("1 finding in 1 of 2 files")));
}

TEST_F(CliTest, CheckOnAnUnreadableFileExits3AndChecksTheOthers) {
  const CliRun run = Run({"--check", PathOf("garbage.onnx"), PathOf("dirty.onnx")});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.err, AllOf(StartsWith("onnx-legalize: "), HasSubstr(PathOf("garbage.onnx"))));
  EXPECT_THAT(run.out, HasSubstr("DynamicSlice"));
}

TEST_F(CliTest, CheckWritesNothingAndRefusesOutputFlags) {
  ExpectFailureWritingNothing({"--check", PathOf("dirty.onnx"), "-o", PathOf("out.onnx")}, 2, "-o");
  // --report is --check's too (check_cli_test: ReportWritesTheFormatToAFile).
  ExpectFailureWritingNothing({"--check", "--in-place", PathOf("dirty.onnx")}, 2, "--in-place");
  ExpectFailureWritingNothing({"--check"}, 2, "at least one model");
}

TEST_F(CliTest, LegalizesDynamicSliceAndTheOutputPassesCheck) {
  const CliRun run = Run({PathOf("dirty.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("opset 9 -> 10"),
                             HasSubstr("main: DynamicSlice node 'crop' (output 'y'): rewritten as Slice-10"),
                             HasSubstr("verification: ")));
  const CliRun check = Run({"--check", PathOf("out.onnx")});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, ReportThatNamesAModelIsAUsageError) {
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("out.onnx"), "--report=" + PathOf("out.onnx")}, 2,
                              "names the input or output model");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("out.onnx"), "--report=" + PathOf("clean.onnx")}, 2,
                              "names the input or output model");
}

// --- legalization failures (the pass decides; these hold whatever it rewrites) --------------------------

TEST_F(CliTest, KeepOpsetWithRunTimeIndicesCannotBeLegalizedAndExits3) {
  ExpectFailureWritingNothing({"--keep-opset", PathOf("dirty.onnx"), PathOf("out.onnx")}, 3, "");
}

// --- --in-place ---------------------------------------------------------------------------------------------

TEST_F(CliTest, InPlaceWritesOverTheInput) {
  WriteModel(dir_ / "inplace.onnx", kDynamicSliceModel, "crop");
  const CliRun run = Run({"--in-place", PathOf("inplace.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr(PathOf("inplace.onnx") + " -> " + PathOf("inplace.onnx")),
                             HasSubstr("rewritten as Slice-10")));
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(ReadBytes(dir_ / "inplace.onnx")));
  EXPECT_EQ(written.graph().node(0).op_type(), "Slice");
  EXPECT_THAT(FileNames(dir_), UnorderedElementsAre("clean.onnx", "dirty.onnx", "garbage.onnx", "inplace.onnx"));
  // Legalizing again changes nothing, and writes nothing (a pre-commit hook sees no change).
  const std::string once = ReadBytes(dir_ / "inplace.onnx");
  const auto written_at = fs::last_write_time(dir_ / "inplace.onnx");
  const CliRun again = Run({"--in-place", PathOf("inplace.onnx")});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_THAT(again.out, HasSubstr("no removed op; model left as it is, not written"));
  EXPECT_EQ(ReadBytes(dir_ / "inplace.onnx"), once);
  EXPECT_EQ(fs::last_write_time(dir_ / "inplace.onnx"), written_at);
  fs::remove(dir_ / "inplace.onnx");
}

TEST_F(CliTest, InPlaceTakesModelsAndNoOutput) {
  // Several paths are models to legalize in place each (tests/tools/tree_cli_test.cc), all of which must exist.
  ExpectFailureWritingNothing({"--in-place", PathOf("dirty.onnx"), PathOf("out.onnx")}, 2, "out.onnx' does not exist");
  ExpectFailureWritingNothing({"--in-place", PathOf("dirty.onnx"), "-o", PathOf("out.onnx")}, 2, "--in-place");
  ExpectFailureWritingNothing({"--in-place", PathOf("dirty.onnx"), PathOf("dirty.onnx")}, 2, "is given twice");
  ExpectFailureWritingNothing({"--check", "--in-place", PathOf("dirty.onnx")}, 2, "--in-place");
}

TEST_F(CliTest, InPlaceFailureLeavesTheInputUntouched) {
  WriteModel(dir_ / "inplace.onnx", kDynamicSliceModel, "crop");
  const std::string before = ReadBytes(dir_ / "inplace.onnx");
  const CliRun run = Run({"--in-place", "--keep-opset", PathOf("inplace.onnx")});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(ReadBytes(dir_ / "inplace.onnx"), before);
  fs::remove(dir_ / "inplace.onnx");
}

// --- external data -----------------------------------------------------------------------------------------

// in/legacy.onnx: `w` (float[4, 3]) is cropped with constant indices, so it folds and is read; `big`
// (float[big_count]) is cropped with indices computed at run time, so it is rewritten and never read.
// Both live in in/weights.bin: w at 0, big at 64 (sparse when big, so a 2 GiB weight costs no disk).
constexpr char kExternalLegacyModel[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
legacy (int64[1] s, int64[1] e) => (float[2, 3] cropped, float[M] sliced) {
  cropped = DynamicSlice (w, ws, we)
  sliced = DynamicSlice (big, s, e)
}
)";

void AddExternal(onnx::ModelProto& model, const std::string& name, int64_t count, const std::string& location,
                 int64_t offset, const std::vector<int64_t>& dims) {
  onnx::TensorProto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  const std::pair<const char*, std::string> entries[] = {
      {"location", location}, {"offset", std::to_string(offset)}, {"length", std::to_string(count * 4)}};
  for (const auto& [key, value] : entries) {
    auto* entry = t->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
}

void AddIndex(onnx::ModelProto& model, const std::string& name, int64_t value) {
  onnx::TensorProto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(1);
  t->add_int64_data(value);
}

void WriteExternalLegacyModel(const fs::path& folder, int64_t big_count, const std::string& location = "weights.bin") {
  fs::create_directories(folder);
  onnx::ModelProto model = ParseModel(kExternalLegacyModel);
  AddExternal(model, "w", 12, location, 0, {4, 3});
  AddExternal(model, "big", big_count, location, 64, {big_count});
  AddIndex(model, "ws", 1);
  AddIndex(model, "we", 3);
  WriteBytes(folder / "legacy.onnx", model.SerializeAsString());
  const int fd = ::open((folder / "weights.bin").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  float w[12];
  for (int i = 0; i < 12; ++i) w[i] = static_cast<float>(i + 1);
  ASSERT_EQ(::pwrite(fd, w, sizeof(w), 0), static_cast<ssize_t>(sizeof(w)));
  ASSERT_EQ(::ftruncate(fd, 64 + big_count * 4), 0);  // A hole, not data: no disk, no memory.
  ::close(fd);
}

TEST_F(CliTest, LegalizesExternalDataIntoAnotherFolder) {
  WriteExternalLegacyModel(root_ / "in", 256);
  const std::string input = (root_ / "in" / "legacy.onnx").string();
  const fs::path out = root_ / "out";
  fs::create_directories(out);
  const CliRun run = Run({input, (out / "legal.onnx").string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("'cropped'): folded"), HasSubstr("'sliced'): rewritten")));
  EXPECT_THAT(FileNames(out), UnorderedElementsAre("legal.onnx", "weights.bin"));
  const CliRun check = Run({"--check", (out / "legal.onnx").string()});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST_F(CliTest, ExternalDataFlagWritesTheNamedDataFile) {
  WriteExternalLegacyModel(root_ / "in", 256);
  const fs::path out = root_ / "out";
  fs::create_directories(out);
  const CliRun run = Run({(root_ / "in" / "legacy.onnx").string(), (out / "legal.onnx").string(),
                          "--external-data=legal.bin", "--external-data-threshold=16"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // big is repacked into legal.bin, and so is the folded `cropped` (24 bytes >= 16).
  EXPECT_THAT(FileNames(out), UnorderedElementsAre("legal.onnx", "legal.bin"));
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(ReadBytes(out / "legal.onnx")));
  for (const auto& t : written.graph().initializer()) {
    if (t.name() == "big" || t.name() == "cropped") {
      EXPECT_EQ(t.data_location(), onnx::TensorProto::EXTERNAL) << t.name();
      EXPECT_EQ(t.external_data(0).value(), "legal.bin") << t.name();
    }
  }
  EXPECT_EQ(Run({"--check", (out / "legal.onnx").string()}).exit_code, 0);
}

TEST_F(CliTest, BadExternalDataFlagsAreUsageErrors) {
  ExpectFailureWritingNothing({"--external-data=sub/w.bin", PathOf("dirty.onnx"), PathOf("out.onnx")}, 2,
                              "--external-data: external_data_name 'sub/w.bin' must be a plain file name");
  ExpectFailureWritingNothing({"--external-data=out.onnx", PathOf("dirty.onnx"), PathOf("out.onnx")}, 2,
                              "is the model's own file name");
  ExpectFailureWritingNothing({"--external-data-threshold=-1", PathOf("dirty.onnx"), PathOf("out.onnx")}, 2,
                              "--external-data-threshold: external_data_threshold is -1; it must be >= 0");
  ExpectFailureWritingNothing({"--external-data", PathOf("dirty.onnx"), PathOf("out.onnx")}, 2, "");
}

TEST_F(CliTest, BadExternalReferenceExits3NamingTensorAndPath) {
  WriteExternalLegacyModel(root_ / "in", 256, "../weights.bin");
  const fs::path out = root_ / "out";
  fs::create_directories(out);
  const CliRun run = Run({(root_ / "in" / "legacy.onnx").string(), (out / "legal.onnx").string()});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.err, AllOf(HasSubstr("initializer 'w'"), HasSubstr("'../weights.bin'"),
                             HasSubstr("leaves the model's folder")));
  EXPECT_THAT(FileNames(out), IsEmpty());
  fs::remove(root_ / "in" / "weights.bin");
  WriteExternalLegacyModel(root_ / "in", 256, "absent.bin");
  const CliRun missing = Run({(root_ / "in" / "legacy.onnx").string(), (out / "legal.onnx").string()});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_THAT(missing.err, AllOf(HasSubstr("initializer 'w'"), HasSubstr("absent.bin"), HasSubstr("does not exist")));
  EXPECT_THAT(FileNames(out), IsEmpty());
}

// A weight past protobuf's 2 GiB limit (a sparse file: no disk, no memory), in a model legalized into
// another folder: the weight stays external (inline, the output could not be written at all), is never
// read, and the whole run stays small and quick.
TEST_F(CliTest, LegalizesAModelWithA2GiBExternalWeightInLittleMemory) {
  const int64_t big_count = (int64_t{21} << 30) / 10 / 4;  // 2.1 GiB of floats
  WriteExternalLegacyModel(root_ / "in", big_count);
  const fs::path out = root_ / "out";
  fs::create_directories(out);
  const auto start = std::chrono::steady_clock::now();
  const CliRun run = Run({(root_ / "in" / "legacy.onnx").string(), (out / "legal.onnx").string()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("'cropped'): folded"), HasSubstr("'sliced'): rewritten")));
  struct rusage usage;
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 200 * 1024) << "peak resident KiB of onnx-legalize";
  EXPECT_LT(seconds, 20.0);
  EXPECT_THAT(FileNames(out), UnorderedElementsAre("legal.onnx", "weights.bin"));
  EXPECT_EQ(fs::file_size(out / "weights.bin"), static_cast<uintmax_t>(64 + big_count * 4));
  EXPECT_LT(fs::file_size(out / "legal.onnx"), 4096u);
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(ReadBytes(out / "legal.onnx")));
  bool big_is_external = false;
  for (const auto& t : written.graph().initializer()) {
    if (t.name() == "big") big_is_external = t.data_location() == onnx::TensorProto::EXTERNAL;
  }
  EXPECT_TRUE(big_is_external);
}

}  // namespace
