// MapToAbslSpelling: what absl is handed for each way a user may spell a flag, and the usage error for
// what absl would otherwise reject with exit 1. cli_test covers the same through the binary.
#include "flag_spelling.h"

#include <initializer_list>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace onnx_legalize::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// One flag of each kind, spelled as the CLI spells its own.
constexpr FlagSpelling kSpellings[] = {
    {"o", "o", FlagKind::kString},
    {"report", "report", FlagKind::kString},
    {"target-opset", "target_opset", FlagKind::kInt},
    {"verify", "verify", FlagKind::kBool},
    {"help", "", FlagKind::kHelp},
};

MappedCommandLine Map(std::initializer_list<const char*> args_after_program) {
  std::vector<const char*> argv = {"onnx-legalize"};
  argv.insert(argv.end(), args_after_program);
  return MapToAbslSpelling(kSpellings, argv);
}

TEST(FlagSpellingTest, MapsHyphenAndUnderscoreSpellingsToAbslNames) {
  const MappedCommandLine mapped = Map({"--target-opset=13", "--target_opset", "14", "in.onnx"});
  EXPECT_THAT(mapped.error, IsEmpty());
  EXPECT_THAT(mapped.args, ElementsAre("onnx-legalize", "--target_opset=13", "--target_opset=14", "in.onnx"));
  EXPECT_THAT(mapped.given, ElementsAre("target-opset"));
}

TEST(FlagSpellingTest, NegatesABooleanInEverySpelling) {
  const MappedCommandLine mapped = Map({"--no-verify", "--no_verify", "--noverify", "--verify=false"});
  EXPECT_THAT(mapped.error, IsEmpty());
  EXPECT_THAT(mapped.args, ElementsAre("onnx-legalize", "--noverify", "--noverify", "--noverify", "--verify=false"));
}

TEST(FlagSpellingTest, NegationIsOnlyForBooleans) {
  EXPECT_EQ(Map({"--no-report"}).error, "unknown flag '--no-report'");
}

TEST(FlagSpellingTest, RefusesAValueOnANegatedBoolean) {
  EXPECT_EQ(Map({"--no-verify=1"}).error, "'--no-verify=1' takes no value");
}

TEST(FlagSpellingTest, JoinsASeparateValueSoADashReachesAbslAsAValue) {
  const MappedCommandLine mapped = Map({"--report", "-", "-o", "out.onnx", "-"});
  EXPECT_THAT(mapped.error, IsEmpty());
  EXPECT_THAT(mapped.args, ElementsAre("onnx-legalize", "--report=-", "--o=out.onnx", "-"));
}

TEST(FlagSpellingTest, LeavesEverythingAfterDoubleDashPositional) {
  const MappedCommandLine mapped = Map({"in.onnx", "--", "--bogus", "--report"});
  EXPECT_THAT(mapped.error, IsEmpty());
  EXPECT_THAT(mapped.args, ElementsAre("onnx-legalize", "in.onnx", "--", "--bogus", "--report"));
}

TEST(FlagSpellingTest, RejectsAnUnknownFlag) {
  EXPECT_EQ(Map({"in.onnx", "--bogus=1"}).error, "unknown flag '--bogus=1'");
}

TEST(FlagSpellingTest, RejectsAMalformedValueWithAbslsReason) {
  EXPECT_THAT(Map({"--target-opset=abc"}).error, StartsWith("bad value 'abc' for --target-opset: "));
  EXPECT_THAT(Map({"--verify=maybe"}).error, StartsWith("bad value 'maybe' for --verify: "));
}

TEST(FlagSpellingTest, RejectsAMissingOrEmptyValue) {
  EXPECT_EQ(Map({"in.onnx", "--target-opset"}).error, "--target-opset needs a value");
  EXPECT_EQ(Map({"--report="}).error, "--report needs a value");
  EXPECT_EQ(Map({"-o"}).error, "-o needs a value");
}

TEST(FlagSpellingTest, KeepsTheFirstErrorAndStillSeesHelp) {
  const MappedCommandLine mapped = Map({"--bogus", "--verify=maybe", "--help"});
  EXPECT_EQ(mapped.error, "unknown flag '--bogus'");
  EXPECT_TRUE(mapped.help);
}

}  // namespace
}  // namespace onnx_legalize::cli
