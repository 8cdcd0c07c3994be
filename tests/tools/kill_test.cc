// onnx-legalize killed with SIGKILL at each point of its saves where a kill leaves the most behind
// (io/kill_points.h: a temporary just made, every temporary of a save complete, some renamed), in tree mode, in
// place and saving a model with its data file. After every kill each file is the original, the complete output or
// absent, never partial; a rerun completes the work and leaves no temporary behind (issue 42).
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test_files.h"
#include "tools/cli_models.h"

#ifndef ONNX_LEGALIZE_CLI
#error "ONNX_LEGALIZE_CLI must name the onnx-legalize binary"
#endif

namespace {

namespace fs = std::filesystem;
using ::onnx_legalize::testing::CliRun;
using ::onnx_legalize::testing::kCleanModel;
using ::onnx_legalize::testing::kDynamicSliceModel;
using ::onnx_legalize::testing::MakeTestDir;
using ::onnx_legalize::testing::ReadBytes;
using ::onnx_legalize::testing::RunCli;
using ::onnx_legalize::testing::WriteBytes;
using ::onnx_legalize::testing::WriteModel;

// A DynamicSlice beside a weight: with --external-data the save writes the model and a data file.
constexpr char kWeightedModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
weighted (float[20, 10, 5] x, int64[1] starts, int64[1] ends) => (float[M, 10, 5] y) <float[5] w = {1, 2, 3, 4, 5}> {
  s = DynamicSlice (x, starts, ends)
  y = Add (s, w)
}
)ONNX";

constexpr int kSigkill = 9;

// kWeightedModel with its weight in raw_data: what --external-data moves to the data file (typed fields stay).
void WriteWeightedModel(const fs::path& path) {
  onnx::ModelProto model = ::onnx_legalize::testing::ParseModel(kWeightedModel);
  onnx::TensorProto& w = *model.mutable_graph()->mutable_initializer(0);
  const std::vector<float> values(w.float_data().begin(), w.float_data().end());
  w.clear_float_data();
  w.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  fs::create_directories(path.parent_path());
  WriteBytes(path, model.SerializeAsString());
}

// Tree mode's resume records (`.onnx-legalize/`) hold the outputs' modification times, which differ from run
// to run: compared as complete, not byte for byte.
bool IsResumeRecord(const std::string& relative) { return relative.rfind(".onnx-legalize/", 0) == 0; }
constexpr char kResumeRecordStart[] = "onnx-legalize-manifest 1\n";

// The files below `dir` but the resume records, and whether every record is complete.
std::map<std::string, std::string> ModelsBelow(const fs::path& dir, bool* records_complete = nullptr) {
  std::map<std::string, std::string> models;
  if (records_complete != nullptr) *records_complete = true;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = entry.path().lexically_relative(dir).string();
    const std::string bytes = ReadBytes(entry.path());
    if (!IsResumeRecord(relative)) {
      models[relative] = bytes;
    } else if (records_complete != nullptr && relative.find(".tmp-") == std::string::npos) {
      *records_complete = *records_complete && bytes.rfind(kResumeRecordStart, 0) == 0 && bytes.back() == '\n';
    }
  }
  return models;
}

// Every file below `dir` whose name is a temporary's (".NAME.tmp-..."), as paths relative to it.
std::vector<std::string> TemporariesBelow(const fs::path& dir) {
  std::vector<std::string> found;
  if (!fs::exists(dir)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) {
      found.push_back(entry.path().lexically_relative(dir).string());
    }
  }
  return found;
}

// The regular files below `dir` and their bytes, by path relative to it.
std::map<std::string, std::string> FilesBelow(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files[entry.path().lexically_relative(dir).string()] = ReadBytes(entry.path());
  }
  return files;
}

class KillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTestDir("kill_test");
    src_ = root_ / "models";
    WriteModel(src_ / "a_dirty.onnx", kDynamicSliceModel);
    WriteModel(src_ / "b_clean.onnx", kCleanModel);
    WriteModel(src_ / "sub" / "c_dirty.onnx", kDynamicSliceModel);
    WriteWeightedModel(src_ / "sub" / "deeper" / "d_weighted.onnx");
    originals_ = FilesBelow(src_);
  }

  void TearDown() override { fs::remove_all(root_); }

  CliRun Run(const std::vector<std::string>& args) const { return RunCli(ONNX_LEGALIZE_CLI, args, root_); }

  // The run of `args` killed the `n`th time it reaches `point`, if it reaches it that often.
  CliRun RunKilledAt(const std::string& point, int n, const std::vector<std::string>& args) const {
    ::setenv("ONNX_LEGALIZE_KILL_AT", (point + ":" + std::to_string(n)).c_str(), 1);
    CliRun run = Run(args);
    ::unsetenv("ONNX_LEGALIZE_KILL_AT");
    return run;
  }

  fs::path root_;
  fs::path src_;
  std::map<std::string, std::string> originals_;
};

TEST_F(KillTest, TreeModeKilledAnywhereLeavesEveryOutputCompleteOrAbsent) {
  const fs::path reference = root_ / "reference";
  ASSERT_EQ(Run({src_.string(), "-o", reference.string(), "-j", "1"}).exit_code, 0);
  const std::map<std::string, std::string> complete = ModelsBelow(reference);
  int kills = 0;
  for (const std::string point : {"created", "written"}) {
    for (int n = 1;; ++n) {
      const fs::path out = root_ / ("out_" + point + std::to_string(n));
      const CliRun killed = RunKilledAt(point, n, {src_.string(), "-o", out.string(), "-j", "1"});
      if (killed.signal != kSigkill) {
        EXPECT_EQ(killed.exit_code, 0) << point << n << killed.err;
        break;
      }
      ++kills;
      bool records_complete = false;
      for (const auto& [file, bytes] : ModelsBelow(out, &records_complete)) {
        if (file.find(".tmp-") != std::string::npos) continue;
        ASSERT_TRUE(complete.count(file) == 1) << point << n << ": " << file;
        EXPECT_EQ(bytes, complete.at(file)) << point << n << ": " << file << " is partial";
      }
      EXPECT_TRUE(records_complete) << point << n;
      const CliRun rerun = Run({src_.string(), "-o", out.string(), "-j", "1"});
      EXPECT_EQ(rerun.exit_code, 0) << point << n << rerun.err;
      EXPECT_EQ(ModelsBelow(out), complete) << point << n;
      EXPECT_TRUE(TemporariesBelow(out).empty()) << point << n;
    }
  }
  EXPECT_GE(kills, 8) << "every output and resume record reaches both points";
  EXPECT_EQ(FilesBelow(src_), originals_);
}

TEST_F(KillTest, InPlaceKilledAnywhereLeavesEveryModelOriginalOrLegalized) {
  const fs::path reference = root_ / "reference";
  fs::copy(src_, reference, fs::copy_options::recursive);
  ASSERT_EQ(Run({"--in-place", reference.string(), "-j", "1"}).exit_code, 0);
  const std::map<std::string, std::string> legalized = FilesBelow(reference);
  int kills = 0;
  for (const std::string point : {"created", "written"}) {
    for (int n = 1;; ++n) {
      const fs::path copy = root_ / ("copy_" + point + std::to_string(n));
      fs::copy(src_, copy, fs::copy_options::recursive);
      const CliRun killed = RunKilledAt(point, n, {"--in-place", copy.string(), "-j", "1"});
      if (killed.signal != kSigkill) break;
      ++kills;
      for (const auto& [file, bytes] : FilesBelow(copy)) {
        if (file.find(".tmp-") != std::string::npos) continue;
        EXPECT_TRUE(bytes == originals_.at(file) || bytes == legalized.at(file)) << point << n << ": " << file;
      }
      EXPECT_EQ(Run({"--in-place", copy.string(), "-j", "1"}).exit_code, 0) << point << n;
      EXPECT_EQ(FilesBelow(copy), legalized) << point << n;
      EXPECT_TRUE(TemporariesBelow(copy).empty()) << point << n;
    }
  }
  EXPECT_GE(kills, 4) << "three models legalized, each reaching both points";
}

// A model saved with its data file: killed after the data file is renamed into place and before the model is, the
// destination holds the complete data file and no model; the rerun writes both.
TEST_F(KillTest, AModelAndItsDataFileKilledBetweenTheirRenames) {
  const std::string input = (src_ / "sub" / "deeper" / "d_weighted.onnx").string();
  const std::vector<std::string> save = {"--external-data=w.bin", "--external-data-threshold=0"};
  const fs::path reference = root_ / "reference";
  fs::create_directories(reference);
  std::vector<std::string> args = {input, (reference / "out.onnx").string()};
  args.insert(args.end(), save.begin(), save.end());
  ASSERT_EQ(Run(args).exit_code, 0);
  const std::map<std::string, std::string> complete = FilesBelow(reference);
  ASSERT_EQ(complete.size(), 2u);

  const fs::path out = root_ / "out";
  fs::create_directories(out);
  args[1] = (out / "out.onnx").string();
  const CliRun killed = RunKilledAt("renamed", 1, args);
  ASSERT_EQ(killed.signal, kSigkill) << killed.err;
  EXPECT_FALSE(fs::exists(out / "out.onnx"));
  EXPECT_EQ(ReadBytes(out / "w.bin"), complete.at("w.bin"));
  EXPECT_EQ(Run(args).exit_code, 0);
  EXPECT_EQ(FilesBelow(out), complete);
  EXPECT_TRUE(TemporariesBelow(out).empty());
}

}  // namespace
