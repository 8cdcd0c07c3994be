// The onnx-legalize binary, run as a user runs it: arguments in, exit code, stdout, stderr and files out.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"

#ifndef ONNX_LEGALIZE_CLI
#error "ONNX_LEGALIZE_CLI must name the onnx-legalize binary"
#endif

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

constexpr char kCleanModel[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
clean (float[2, 3] x) => (float[2, 3] y) {
  y = Relu (x)
}
)ONNX";

// DynamicSlice at opset 9 with run-time indices, as PyTorch's exporter wrote it.
constexpr char kDynamicSliceModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
dirty (float[20, 10, 5] x, int64[1] starts, int64[1] ends) => (float[M, 10, 5] y) {
  y = DynamicSlice (x, starts, ends)
}
)ONNX";

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  ASSERT_TRUE(out.good()) << path;
}

void WriteModel(const fs::path& path, const char* text, const std::string& node_name = "") {
  onnx::ModelProto model;
  const onnx::Status status = onnx::OnnxParser::Parse(model, text);
  ASSERT_TRUE(status.IsOK()) << status.ErrorMessage();
  if (!node_name.empty()) model.mutable_graph()->mutable_node(0)->set_name(node_name);
  WriteBytes(path, model.SerializeAsString());
}

std::vector<std::string> FileNames(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  return names;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("cli_test_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(root_);
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
  CliRun Run(const std::vector<std::string>& args) const {
    std::string command = ShellQuote(ONNX_LEGALIZE_CLI);
    for (const std::string& arg : args) command += " " + ShellQuote(arg);
    const fs::path out = root_ / "stdout.txt";
    const fs::path err = root_ / "stderr.txt";
    command += " >" + ShellQuote(out.string()) + " 2>" + ShellQuote(err.string());
    const int status = std::system(command.c_str());
    CliRun run;
    run.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    run.out = ReadBytes(out);
    run.err = ReadBytes(err);
    return run;
  }

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
  EXPECT_THAT(run.out, AllOf(StartsWith("onnx-legalize 0.1.0"), HasSubstr("onnx 1.12")));
}

// --- exit 2: usage errors ------------------------------------------------------------------------------

TEST_F(CliTest, UnknownFlagIsAUsageError) {
  ExpectFailureWritingNothing({"--bogus", PathOf("clean.onnx"), PathOf("out.onnx")}, 2,
                              "unknown flag '--bogus'");
  // absl's own flags are not ours to accept.
  ExpectFailureWritingNothing({"--flagfile=x", PathOf("clean.onnx"), PathOf("out.onnx")}, 2, "unknown flag");
}

TEST_F(CliTest, WrongNumberOfPositionalsIsAUsageError) {
  ExpectFailureWritingNothing({}, 2, "missing the input model");
  ExpectFailureWritingNothing({PathOf("clean.onnx")}, 2, "missing the output model");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("out.onnx"), PathOf("more.onnx")}, 2,
                              "too many arguments");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("a.onnx"), "-o", PathOf("out.onnx")}, 2, "-o");
}

TEST_F(CliTest, BadFlagValuesAreUsageErrors) {
  const std::string in = PathOf("clean.onnx");
  const std::string out = PathOf("out.onnx");
  ExpectFailureWritingNothing({"--target-opset=5", in, out}, 2, "--target-opset=5 is outside 10..17");
  ExpectFailureWritingNothing({"--target-opset=18", in, out}, 2, "outside 10..17");
  ExpectFailureWritingNothing({"--target-opset=abc", in, out}, 2, "bad value 'abc' for --target-opset");
  ExpectFailureWritingNothing({"--target-opset=", in, out}, 2, "--target-opset needs a value");
  ExpectFailureWritingNothing({in, out, "--target-opset"}, 2, "--target-opset needs a value");
  ExpectFailureWritingNothing({"--max-fold-bytes=-1", in, out}, 2, "negative");
  ExpectFailureWritingNothing({"--keep-opset=maybe", in, out}, 2, "bad value 'maybe'");
  ExpectFailureWritingNothing({"--no-verify=1", in, out}, 2, "takes no value");
  ExpectFailureWritingNothing({"--keep-opset", "--target-opset=11", in, out}, 2, "contradict");
}

TEST_F(CliTest, OutputThatIsTheInputIsAUsageError) {
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("clean.onnx")}, 2, "is the input file");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), (dir_ / "." / "clean.onnx").string()}, 2,
                              "is the input file");
}

TEST_F(CliTest, UsageErrorLeavesAnExistingOutputUntouched) {
  WriteBytes(dir_ / "out.onnx", "previous output");
  const CliRun run = Run({"--target-opset=5", PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(ReadBytes(dir_ / "out.onnx"), "previous output");
  fs::remove(dir_ / "out.onnx");
}

// --- exit 3: unreadable, malformed or not legalizable -------------------------------------------------

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
  ExpectFailureWritingNothing(
      {PathOf("clean.onnx"), PathOf("out.onnx"), "--report=" + PathOf("missing/report.json")}, 3,
      "does not exist");
}

// --- exit 0: legalizing ---------------------------------------------------------------------------------

TEST_F(CliTest, ModelWithoutDynamicSliceIsWrittenAndSummarized) {
  const CliRun run = Run({PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("no DynamicSlice"), HasSubstr("opset 13")));
  EXPECT_THAT(run.err, IsEmpty());
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(ReadBytes(dir_ / "out.onnx")));
  EXPECT_EQ(written.graph().node(0).op_type(), "Relu");
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, AcceptsHyphenatedFlagsAndDashO) {
  const CliRun run = Run({"--no-verify", "--max-fold-bytes=1024", "--target-opset", "13",
                          PathOf("clean.onnx"), "-o", PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(dir_ / "out.onnx"));
  fs::remove(dir_ / "out.onnx");
  // absl's own spellings work too.
  const CliRun absl_spelling =
      Run({"--noverify", "--max_fold_bytes=1024", PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(absl_spelling.exit_code, 0) << absl_spelling.err;
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, ReportToStdoutIsJson) {
  const CliRun run = Run({"--report=-", PathOf("clean.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(StartsWith("{\n  \"changed\": false,"), HasSubstr("\"opset_after\": 13"),
                             HasSubstr("\"nodes\": []"), Not(HasSubstr("no DynamicSlice"))));
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

// --- --check ----------------------------------------------------------------------------------------------

TEST_F(CliTest, CheckOnACleanModelExits0) {
  const CliRun run = Run({"--check", PathOf("clean.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("no findings in 1 file"));
}

TEST_F(CliTest, CheckOnADynamicSliceModelExits1AndNamesFileGraphNodeAndOp) {
  const CliRun run = Run({"--check", PathOf("clean.onnx"), PathOf("dirty.onnx")});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out,
              AllOf(HasSubstr(PathOf("dirty.onnx") + ": main: node 'crop' op DynamicSlice"),
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
  ExpectFailureWritingNothing({"--check", "--report=" + PathOf("r.json"), PathOf("dirty.onnx")}, 2,
                              "--report");
  ExpectFailureWritingNothing({"--check"}, 2, "at least one model");
}

TEST_F(CliTest, LegalizesDynamicSliceAndTheOutputPassesCheck) {
  const CliRun run = Run({PathOf("dirty.onnx"), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              AllOf(HasSubstr("opset 9 -> 10"), HasSubstr("main: node 'crop' (output 'y'): rewritten"),
                    HasSubstr("verification: ")));
  const CliRun check = Run({"--check", PathOf("out.onnx")});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  fs::remove(dir_ / "out.onnx");
}

TEST_F(CliTest, ReportThatNamesAModelIsAUsageError) {
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("out.onnx"), "--report=" + PathOf("out.onnx")}, 2,
                              "names the input or output model");
  ExpectFailureWritingNothing({PathOf("clean.onnx"), PathOf("out.onnx"), "--report=" + PathOf("clean.onnx")},
                              2, "names the input or output model");
}

// --- legalization failures (the pass decides; these hold whatever it rewrites) --------------------------

TEST_F(CliTest, KeepOpsetWithRunTimeIndicesCannotBeLegalizedAndExits3) {
  ExpectFailureWritingNothing({"--keep-opset", PathOf("dirty.onnx"), PathOf("out.onnx")}, 3, "");
}

}  // namespace
