// What a run removes of the temporaries a killed run left (io/leftover_temporaries.h): those of its own kind, for
// the destination it writes, of a process no longer running; nothing else.
#include "io/leftover_temporaries.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "test_files.h"

namespace onnx_legalize {
namespace {

namespace fs = std::filesystem;
using ::onnx_legalize::testing::PidOfAGoneProcess;

void Touch(const fs::path& path) { std::ofstream(path) << "half-written"; }

TEST(LeftoverTemporariesTest, TheMakerIsReadBackFromTheNamesStagingMakes) {
  const std::string name = TemporaryName("dir/m.onnx", 4321, 7, 0xabcdef0123456789u);
  EXPECT_EQ(name, ".m.onnx.tmp-4321-7-abcdef0123456789");
  EXPECT_EQ(TemporaryMaker(name), 4321);
}

TEST(LeftoverTemporariesTest, OtherNamesAreNotTemporaries) {
  EXPECT_EQ(TemporaryMaker("m.onnx.tmp-4321-7-abcdef0123456789"), std::nullopt) << "no leading dot";
  EXPECT_EQ(TemporaryMaker("..tmp-4321-7-abcdef0123456789"), std::nullopt) << "no destination name";
  EXPECT_EQ(TemporaryMaker(".m.onnx.tmp-4321-7-ABCDEF0123456789"), std::nullopt) << "upper-case hex";
  EXPECT_EQ(TemporaryMaker(".m.onnx.tmp-4321-7-abcdef01"), std::nullopt) << "short random part";
  EXPECT_EQ(TemporaryMaker(".m.onnx.tmp-4321-abcdef0123456789"), std::nullopt) << "no counter";
  EXPECT_EQ(TemporaryMaker(".m.onnx.tmp-x-7-abcdef0123456789"), std::nullopt) << "no pid";
  EXPECT_EQ(TemporaryMaker(".m.onnx.tmp-4321-7-abcdef0123456789.bak"), std::nullopt);
  EXPECT_EQ(TemporaryMaker(".m.onnx.tmp-notes"), std::nullopt);
}

// A long destination name is cut (NAME_MAX), and its temporaries are still recognized.
TEST(LeftoverTemporariesTest, ALongDestinationNameIsCut) {
  const std::string name = TemporaryName(std::string(250, 'n') + ".onnx", 12, 0, 1);
  EXPECT_LE(name.size(), 255u);
  EXPECT_EQ(TemporaryMaker(name), 12);
}

TEST(LeftoverTemporariesTest, OnlyTemporariesOfAGoneProcessAreRemovedOncePerFolder) {
  const fs::path folder = fs::path(::testing::TempDir()) / "leftover_temporaries_test";
  fs::remove_all(folder);
  fs::create_directories(folder);
  const int gone = PidOfAGoneProcess();
  const fs::path dead_one = folder / TemporaryName("m.onnx", gone, 0, 0x1234);
  const fs::path dead_data = folder / TemporaryName("m.onnx.data", gone, 1, 0x1234);
  const fs::path running_one = folder / TemporaryName("m.onnx", static_cast<int>(::getpid()), 0, 0x1234);
  const fs::path not_a_temporary = folder / ".m.onnx.tmp-notes";
  const fs::path a_folder = folder / TemporaryName("m.onnx", gone, 2, 0x1234);
  for (const fs::path& file : {dead_one, dead_data, running_one, not_a_temporary}) Touch(file);
  fs::create_directory(a_folder);

  RemoveLeftoverTemporaries(folder / "m.onnx");

  EXPECT_FALSE(fs::exists(dead_one)) << "a gone process's temporary";
  EXPECT_FALSE(fs::exists(dead_data)) << "of any destination in the folder";
  EXPECT_TRUE(fs::exists(running_one)) << "a running process's (this one's) is its own";
  EXPECT_TRUE(fs::exists(not_a_temporary));
  EXPECT_TRUE(fs::is_directory(a_folder)) << "a folder is no temporary of ours";

  // Looked at once: a folder of many destinations is not listed again for each.
  Touch(dead_one);
  RemoveLeftoverTemporaries(folder / "n.onnx");
  EXPECT_TRUE(fs::exists(dead_one));
  fs::remove_all(folder);
}

}  // namespace
}  // namespace onnx_legalize
