// onnx-legalize over a tree of models (`SRC... -o DEST_DIR`, `--in-place PATH...`), run as a user runs it:
// every file tried, each output byte for byte a single-file run's whatever -j, legal models copied unchanged,
// refused ones not written and named in the summary, the worst exit code, reruns that skip what is done.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
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
using ::onnx_legalize::testing::MakeTestDir;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::PidOfAGoneProcess;
using ::onnx_legalize::testing::ReadBytes;
using ::onnx_legalize::testing::RunCli;
using ::onnx_legalize::testing::WithoutProofSeconds;
using ::onnx_legalize::testing::WriteBytes;
using ::onnx_legalize::testing::WriteModel;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

// ATen: no one can legalize it, so the model is refused.
constexpr char kHopelessModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
hopeless (float[2] x) => (float[2] y) {
  y = ATen (x)
}
)ONNX";

// Every regular file below `dir`, as paths relative to it, sorted.
std::vector<std::string> FilesBelow(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path().lexically_relative(dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

class TreeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTestDir("tree_cli_test");
    src_ = root_ / "models";
    WriteModel(src_ / "clean.onnx", kCleanModel);
    WriteModel(src_ / "sub" / "dirty.onnx", kDynamicSliceModel);
    WriteModel(src_ / "sub" / "deeper" / "dirty2.onnx", kDynamicSliceModel);
    WriteModel(src_ / "zz_hopeless.onnx", kHopelessModel);
    WriteBytes(src_ / "README.txt", "not a model, and not named as one");
    for (const std::string& file : FilesBelow(src_)) input_bytes_[file] = ReadBytes(src_ / file);
  }

  void TearDown() override {
    // The inputs are never modified, whatever the command did (but --in-place, on its own copy).
    for (const auto& [file, bytes] : input_bytes_) EXPECT_EQ(ReadBytes(src_ / file), bytes) << file;
    fs::remove_all(root_);
  }

  CliRun Run(const std::vector<std::string>& args) const { return RunCli(ONNX_LEGALIZE_CLI, args, root_); }

  // What a single-file run writes for `relative` (below src_).
  std::string SingleFileOutput(const std::string& relative, const std::vector<std::string>& flags = {}) const {
    const fs::path out = root_ / "single" / relative;
    fs::create_directories(out.parent_path());
    std::vector<std::string> args = {(src_ / relative).string(), out.string()};
    args.insert(args.end(), flags.begin(), flags.end());
    const CliRun run = Run(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return ReadBytes(out);
  }

  fs::path root_;
  fs::path src_;
  std::map<std::string, std::string> input_bytes_;
};

// --- a folder mirrored into DEST_DIR ----------------------------------------------------------------------

TEST_F(TreeCliTest, FolderIsMirroredBelowTheDestinationEveryFileTried) {
  const fs::path out = root_ / "out";
  const CliRun run = Run({src_.string(), "-o", out.string()});
  // The hopeless model is refused (3), after every other file was legalized.
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_THAT(FilesBelow(out), Not(::testing::Contains("zz_hopeless.onnx")));
  EXPECT_EQ(ReadBytes(out / "sub" / "dirty.onnx"), SingleFileOutput("sub/dirty.onnx"));
  EXPECT_EQ(ReadBytes(out / "sub" / "deeper" / "dirty2.onnx"), SingleFileOutput("sub/deeper/dirty2.onnx"));
  // Already legal: the input's own bytes.
  EXPECT_EQ(ReadBytes(out / "clean.onnx"), input_bytes_["clean.onnx"]);
  // Only models are written (and the manifest of what was written).
  for (const std::string& file : FilesBelow(out)) {
    const bool model = file.size() > 5 && file.compare(file.size() - 5, 5, ".onnx") == 0;
    EXPECT_TRUE(model || file.rfind(".onnx-legalize/", 0) == 0) << file;
  }
  EXPECT_THAT(run.out, AllOf(HasSubstr("4 of 4 files"), ContainsRegex("legalized +2"),
                             ContainsRegex("already legal +1"), ContainsRegex("refused +1"),
                             ContainsRegex("not_legalizable +1"), ContainsRegex("verification failed +0")));
  // The summary names the refused model and why.
  EXPECT_THAT(run.out, AllOf(HasSubstr("refused:\n"), HasSubstr("zz_hopeless.onnx: "), HasSubstr("ATen")));
  // Not a terminal: no progress line.
  EXPECT_THAT(run.err, IsEmpty());
}

TEST_F(TreeCliTest, SourceAndDestinationAsTwoArguments) {
  const CliRun run = Run({src_.string(), (root_ / "out").string()});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(ReadBytes(root_ / "out" / "sub" / "dirty.onnx"), SingleFileOutput("sub/dirty.onnx"));
}

TEST_F(TreeCliTest, FilesGoToTheDestinationByName) {
  const fs::path out = root_ / "out";
  const CliRun run = Run({(src_ / "sub" / "dirty.onnx").string(), (src_ / "clean.onnx").string(), "-o", out.string()});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(FileNames(out), UnorderedElementsAre("dirty.onnx", "clean.onnx", ".onnx-legalize"));
  // One file into an existing folder, or one named with a trailing '/', is tree mode too.
  fs::create_directories(root_ / "one");
  EXPECT_EQ(Run({(src_ / "clean.onnx").string(), "-o", (root_ / "one").string()}).exit_code, 0);
  EXPECT_EQ(ReadBytes(root_ / "one" / "clean.onnx"), input_bytes_["clean.onnx"]);
  EXPECT_EQ(Run({(src_ / "clean.onnx").string(), "-o", (root_ / "two").string() + "/"}).exit_code, 0);
  EXPECT_EQ(ReadBytes(root_ / "two" / "clean.onnx"), input_bytes_["clean.onnx"]);
}

TEST_F(TreeCliTest, OutputIsTheSameWhateverTheJobs) {
  const CliRun one =
      Run({src_.string(), "-o", (root_ / "j1").string(), "-j", "1", "--report=" + (root_ / "j1.jsonl").string()});
  const CliRun three =
      Run({src_.string(), "-o", (root_ / "j3").string(), "-j", "3", "--report=" + (root_ / "j3.jsonl").string()});
  EXPECT_EQ(one.exit_code, 3) << one.err;
  EXPECT_EQ(three.exit_code, 3) << three.err;
  const std::vector<std::string> files = FilesBelow(root_ / "j1");
  EXPECT_EQ(files, FilesBelow(root_ / "j3"));
  for (const std::string& file : files) {
    if (file.rfind(".onnx-legalize/", 0) == 0) continue;  // the manifest holds output times
    EXPECT_EQ(ReadBytes(root_ / "j1" / file), ReadBytes(root_ / "j3" / file)) << file;
  }
  // The report differs only by the destination's name, and the proofs' wall times.
  std::string j3 = WithoutProofSeconds(ReadBytes(root_ / "j3.jsonl"));
  for (size_t at = j3.find("/j3/"); at != std::string::npos; at = j3.find("/j3/", at)) j3.replace(at, 4, "/j1/");
  EXPECT_EQ(WithoutProofSeconds(ReadBytes(root_ / "j1.jsonl")), j3);
}

// --- the report ---------------------------------------------------------------------------------------------

TEST_F(TreeCliTest, ReportIsOneJsonObjectPerFileInPathOrder) {
  const fs::path report = root_ / "report.jsonl";
  const CliRun run = Run({src_.string(), "-o", (root_ / "out").string(), "-j", "2", "--report=" + report.string()});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const std::vector<std::string> lines = Lines(ReadBytes(report));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], AllOf(StartsWith("{\"path\":\"" + (src_ / "clean.onnx").string() + "\",\"output\":"),
                              HasSubstr("\"result\":\"already_legal\""), HasSubstr("\"changed\":false")));
  EXPECT_THAT(lines[1],
              AllOf(HasSubstr("sub/deeper/dirty2.onnx\""), HasSubstr("\"result\":\"legalized\""),
                    HasSubstr("\"changed\":true"), HasSubstr("\"opset_before\":9"), HasSubstr("\"nodes\":[{")));
  EXPECT_THAT(lines[2], AllOf(HasSubstr("sub/dirty.onnx\""), HasSubstr("\"result\":\"legalized\"")));
  EXPECT_THAT(lines[3], AllOf(HasSubstr("zz_hopeless.onnx\""), HasSubstr("\"result\":\"refused\""),
                              HasSubstr("\"error_kind\":\"not_legalizable\""), HasSubstr("\"error\":\"")));
  for (const std::string& line : lines) EXPECT_EQ(line.back(), '}') << line;
  // The summary still goes to stdout; with --report=- the report is stdout alone and the summary stderr.
  EXPECT_THAT(run.out, HasSubstr("files in"));
  const CliRun to_stdout = Run({src_.string(), "-o", (root_ / "out2").string(), "--report=-"});
  EXPECT_EQ(Lines(to_stdout.out).size(), 4u);
  EXPECT_THAT(to_stdout.err, HasSubstr("files in"));
}

// --- reruns resume --------------------------------------------------------------------------------------------

TEST_F(TreeCliTest, RerunSkipsOutputsWrittenFromTheSameInputWithTheSameOptions) {
  const fs::path out = root_ / "out";
  ASSERT_EQ(Run({src_.string(), "-o", out.string()}).exit_code, 3);
  const auto written = fs::last_write_time(out / "sub" / "dirty.onnx");
  const std::string bytes = ReadBytes(out / "sub" / "dirty.onnx");

  const CliRun again = Run({src_.string(), "-o", out.string(), "--report=" + (root_ / "again.jsonl").string()});
  EXPECT_EQ(again.exit_code, 3);  // the refused model is tried again
  EXPECT_THAT(again.out, AllOf(ContainsRegex("legalized +0"), ContainsRegex("up to date +3")));
  EXPECT_EQ(fs::last_write_time(out / "sub" / "dirty.onnx"), written);
  EXPECT_THAT(ReadBytes(root_ / "again.jsonl"), HasSubstr("\"result\":\"up_to_date\",\"changed\":true"));

  // Other options: legalized again.
  const CliRun other = Run({src_.string(), "-o", out.string(), "--max-fold-bytes=1000"});
  EXPECT_THAT(other.out, ContainsRegex("legalized +2"));
  EXPECT_EQ(ReadBytes(out / "sub" / "dirty.onnx"), SingleFileOutput("sub/dirty.onnx", {"--max-fold-bytes=1000"}));

  // An output changed or removed since: written again.
  fs::remove(out / "sub" / "dirty.onnx");
  WriteBytes(out / "clean.onnx", "edited by hand");
  const CliRun repaired = Run({src_.string(), "-o", out.string(), "--max-fold-bytes=1000"});
  EXPECT_THAT(repaired.out,
              AllOf(ContainsRegex("legalized +1 +\\(0 nodes folded, 1 rewritten, opset moved in 1 file\\)"),
                    ContainsRegex("already legal +1"), ContainsRegex("up to date +1")));
  EXPECT_EQ(ReadBytes(out / "clean.onnx"), input_bytes_["clean.onnx"]);
}

TEST_F(TreeCliTest, RerunLegalizesAChangedInputAgain) {
  const fs::path copy = root_ / "copy";
  fs::copy(src_, copy, fs::copy_options::recursive);
  fs::remove(copy / "zz_hopeless.onnx");
  const fs::path out = root_ / "out";
  ASSERT_EQ(Run({copy.string(), "-o", out.string()}).exit_code, 0);
  WriteModel(copy / "clean.onnx", kDynamicSliceModel);
  const CliRun again = Run({copy.string(), "-o", out.string()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, AllOf(ContainsRegex("legalized +1"), ContainsRegex("up to date +2")));
  EXPECT_EQ(ReadBytes(out / "clean.onnx"), SingleFileOutput("sub/dirty.onnx"));
}

// --- in place -----------------------------------------------------------------------------------------------------

TEST_F(TreeCliTest, InPlaceOverAFolderWritesOnlyWhatItLegalizes) {
  const fs::path copy = root_ / "copy";
  fs::copy(src_, copy, fs::copy_options::recursive);
  const auto clean_time = fs::last_write_time(copy / "clean.onnx");
  const CliRun run = Run({"--in-place", copy.string(), "-j", "2"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(ReadBytes(copy / "sub" / "dirty.onnx"), SingleFileOutput("sub/dirty.onnx"));
  EXPECT_EQ(ReadBytes(copy / "sub" / "deeper" / "dirty2.onnx"), SingleFileOutput("sub/deeper/dirty2.onnx"));
  // Legal: never written. Refused: left as it was.
  EXPECT_EQ(fs::last_write_time(copy / "clean.onnx"), clean_time);
  EXPECT_EQ(ReadBytes(copy / "zz_hopeless.onnx"), input_bytes_["zz_hopeless.onnx"]);
  EXPECT_THAT(run.out, AllOf(ContainsRegex("legalized +2"), ContainsRegex("already legal +1  \\(left untouched\\)")));
  // No manifest, no temporary: the folder holds what it held.
  EXPECT_EQ(FilesBelow(copy), FilesBelow(src_));
  // Legalizing again changes nothing.
  const CliRun again = Run({"--in-place", copy.string()});
  EXPECT_THAT(again.out, AllOf(ContainsRegex("legalized +0"), ContainsRegex("already legal +3")));
}

// --- temporaries a killed run left --------------------------------------------------------------------------

// A temporary as a run of process `pid` names it beside `destination` (io/staging.h), half-written.
fs::path LeftTemporary(const fs::path& destination, int pid) {
  const fs::path temporary = destination.parent_path() / ("." + destination.filename().string() + ".tmp-" +
                                                          std::to_string(pid) + "-0-00000000deadbeef");
  WriteBytes(temporary, "half-written by a run that was killed");
  return temporary;
}

// Issue 42: SIGKILL gives a run no chance to remove its temporaries. A rerun removes those of a process no longer
// running beside every output it handles, written again or found up to date, and nothing else.
TEST_F(TreeCliTest, ARerunRemovesTheTemporariesAKilledRunLeft) {
  const fs::path out = root_ / "out";
  ASSERT_EQ(Run({src_.string(), "-o", out.string()}).exit_code, 3);
  const int gone = PidOfAGoneProcess();
  const std::vector<fs::path> left = {LeftTemporary(out / "clean.onnx", gone),
                                      LeftTemporary(out / "sub" / "deeper" / "dirty2.onnx", gone),
                                      LeftTemporary(out / ".onnx-legalize" / "sub" / "dirty.onnx.json", gone)};
  const fs::path running = LeftTemporary(out / "sub" / "dirty.onnx", static_cast<int>(::getpid()));
  WriteBytes(out / "sub" / ".notes.tmp-of-mine", "a user's own file");
  const CliRun again = Run({src_.string(), "-o", out.string()});
  EXPECT_THAT(again.out, ContainsRegex("up to date +3"));
  for (const fs::path& temporary : left) EXPECT_FALSE(fs::exists(temporary)) << temporary;
  EXPECT_TRUE(fs::exists(running)) << "a running process's temporary is its own";
  EXPECT_TRUE(fs::exists(out / "sub" / ".notes.tmp-of-mine"));
}

TEST_F(TreeCliTest, AnInPlaceRerunRemovesTheTemporariesAKilledRunLeftThoughItWritesNothing) {
  const fs::path copy = root_ / "copy";
  fs::copy(src_, copy, fs::copy_options::recursive);
  ASSERT_EQ(Run({"--in-place", copy.string()}).exit_code, 3);
  const int gone = PidOfAGoneProcess();
  const fs::path left = LeftTemporary(copy / "sub" / "dirty.onnx", gone);
  const fs::path left_by_single = LeftTemporary(copy / "clean.onnx", gone);
  const CliRun again = Run({"--in-place", copy.string()});
  EXPECT_THAT(again.out, ContainsRegex("legalized +0"));
  EXPECT_FALSE(fs::exists(left));
  EXPECT_FALSE(fs::exists(left_by_single));
  EXPECT_EQ(FilesBelow(copy), FilesBelow(src_));
  // The single-file door too.
  const fs::path left_again = LeftTemporary(copy / "clean.onnx", PidOfAGoneProcess());
  EXPECT_EQ(Run({"--in-place", (copy / "clean.onnx").string()}).exit_code, 0);
  EXPECT_FALSE(fs::exists(left_again));
}

TEST_F(TreeCliTest, InPlaceOverSeveralFiles) {
  const fs::path copy = root_ / "copy";
  fs::copy(src_, copy, fs::copy_options::recursive);
  const CliRun run = Run({"--in-place", (copy / "clean.onnx").string(), (copy / "sub" / "dirty.onnx").string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ReadBytes(copy / "sub" / "dirty.onnx"), SingleFileOutput("sub/dirty.onnx"));
  EXPECT_EQ(ReadBytes(copy / "sub" / "deeper" / "dirty2.onnx"), input_bytes_["sub/deeper/dirty2.onnx"]);
}

TEST_F(TreeCliTest, ALinkToAModelOfTheTreeIsAModelOfItsOwn) {
  fs::create_symlink(fs::path("sub") / "dirty.onnx", src_ / "link.onnx");
  const CliRun run = Run({src_.string(), "-o", (root_ / "out").string()});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_FALSE(fs::is_symlink(root_ / "out" / "link.onnx"));
  EXPECT_EQ(ReadBytes(root_ / "out" / "link.onnx"), ReadBytes(root_ / "out" / "sub" / "dirty.onnx"));
  fs::remove(src_ / "link.onnx");
}

// --- external data ----------------------------------------------------------------------------------------------

TEST_F(TreeCliTest, ExternalDataFilesAreCarriedAlong) {
  const fs::path tree = root_ / "tree";
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
legacy (int64[1] s, int64[1] e) => (float[M] y) {
  y = DynamicSlice (w, s, e)
}
)ONNX");
  onnx::TensorProto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [key, value] : {std::pair{"location", "w.bin"}, {"offset", "0"}, {"length", "16"}}) {
    auto* entry = w->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  fs::create_directories(tree / "a");
  WriteBytes(tree / "a" / "m.onnx", model.SerializeAsString());
  WriteBytes(tree / "a" / "w.bin", std::string(16, '\x01'));
  const CliRun run = Run({tree.string(), "-o", (root_ / "out").string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ReadBytes(root_ / "out" / "a" / "w.bin"), std::string(16, '\x01'));
  const CliRun check = Run({"--check", (root_ / "out" / "a" / "m.onnx").string()});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

// --- exit codes and usage errors ----------------------------------------------------------------------------------

TEST_F(TreeCliTest, ExitZeroWhenEveryFileSucceeds) {
  const CliRun run = Run({(src_ / "sub").string(), (src_ / "clean.onnx").string(), "-o", (root_ / "out").string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("3 of 3 files"));
}

TEST_F(TreeCliTest, UsageErrorsWriteNothing) {
  const std::string out = (root_ / "out").string();
  const std::string src = src_.string();
  const std::string clean = (src_ / "clean.onnx").string();
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{(root_ / "missing").string(), "-o", out + "/"}, "missing' does not exist"},
      {{src, clean, (root_ / "nope.onnx").string(), "-o", out}, "nope.onnx' does not exist"},
      {{src, "-o", (src_ / "sub" / "out").string()}, "is inside the source folder"},
      {{src, "-o", src}, "is inside the source folder"},
      {{src, "-o", clean}, "is a file; it must be a folder"},
      {{clean, (src_ / "sub" / "dirty.onnx").string(), "-o", (root_ / "x.onnx").string()}, "looks like a model file"},
      {{clean, (src_ / "sub").string(), "-o", src}, "is the input"},
      {{(src_ / "sub" / "dirty.onnx").string(), (root_ / "other" / "dirty.onnx").string(), "-o", out},
       "would both be written to"},
      {{(src_ / "sub").string(), (src_ / "sub" / "dirty.onnx").string(), "-o", out}, "is given twice"},
      {{src, "-o", out, "--external-data=w.bin"}, "--external-data names one data file"},
      {{src, "-o", out, "-j", "0"}, "-j 0 is outside 1..256"},
      {{"--in-place", src, "-o", out}, "--in-place writes over each input"},
      {{"--in-place", src, (src_ / "sub").string()}, "is given twice"},
      {{src, "-o", out, "--target-opset=0"}, "--target-opset"},
      {{src, "-o", out, "--report=" + clean}, "names a model of the run"},
  };
  WriteModel(root_ / "other" / "dirty.onnx", kDynamicSliceModel);
  for (const auto& c : cases) {
    const CliRun run = Run(c.args);
    EXPECT_EQ(run.exit_code, 2) << c.message << ": " << run.err;
    EXPECT_THAT(run.err, AllOf(StartsWith("onnx-legalize: "), HasSubstr(c.message)));
    EXPECT_FALSE(fs::exists(out)) << c.message;
  }
  EXPECT_FALSE(fs::exists(root_ / "x.onnx"));
  EXPECT_FALSE(fs::exists(src_ / "sub" / "out"));
  EXPECT_FALSE(fs::exists(src_ / ".onnx-legalize"));
}

TEST_F(TreeCliTest, JobsWithOneModelIsASingleFileRun) {
  // A pre-commit hook's args (-j 2) serve a commit of one model as well as of many.
  const CliRun run = Run({"--in-place", "-j", "2", (root_ / "copy.onnx").string()});
  EXPECT_EQ(run.exit_code, 3);  // it does not exist: the single-file message
  EXPECT_THAT(run.err, HasSubstr("copy.onnx' does not exist"));
  fs::copy_file(src_ / "sub" / "dirty.onnx", root_ / "copy.onnx");
  EXPECT_EQ(Run({"--in-place", "-j", "2", (root_ / "copy.onnx").string()}).exit_code, 0);
  EXPECT_EQ(ReadBytes(root_ / "copy.onnx"), SingleFileOutput("sub/dirty.onnx"));
}

TEST_F(TreeCliTest, HelpDescribesTreeMode) {
  const CliRun run = Run({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, AllOf(HasSubstr("onnx-legalize SRC... -o DEST_DIR [-j N] [flags]"),
                             HasSubstr("onnx-legalize --in-place PATH... [-j N] [flags]"), HasSubstr("(JSON Lines)"),
                             HasSubstr("exits 130"), HasSubstr("0 < 3 < 4")));
}

TEST_F(TreeCliTest, AFolderWithoutModelsIsNoError) {
  fs::create_directories(root_ / "empty");
  const CliRun run = Run({(root_ / "empty").string(), "-o", (root_ / "out").string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("0 of 0 files"));
}

}  // namespace
