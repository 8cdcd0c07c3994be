// Where a canonical path lies relative to a folder (io/external_folder.h, PlaceOf): what external data
// references and a tree of models both decide by.
#include "io/external_folder.h"

#include "gtest/gtest.h"

namespace onnx_legalize {
namespace {

TEST(PlaceOfTest, ComparesWholeComponents) {
  EXPECT_EQ(PlaceOf("/models/a/w.bin", "/models/a"), PlaceInFolder::kInside);
  EXPECT_EQ(PlaceOf("/models/a", "/models/a"), PlaceInFolder::kTheFolderItself);
  EXPECT_EQ(PlaceOf("/models/ab/w.bin", "/models/a"), PlaceInFolder::kOutside) << "a prefix of a name is not a folder";
  EXPECT_EQ(PlaceOf("/models", "/models/a"), PlaceInFolder::kOutside);
  EXPECT_EQ(PlaceOf("/other/w.bin", "/models/a"), PlaceInFolder::kOutside);
}

TEST(PlaceOfTest, ATrailingSeparatorIsNoComponent) {
  EXPECT_EQ(PlaceOf("/models/a/w.bin", "/models/a/"), PlaceInFolder::kInside);
  EXPECT_EQ(PlaceOf("/models/a/", "/models/a"), PlaceInFolder::kTheFolderItself);
  EXPECT_EQ(PlaceOf("/models/a", "/models/a/"), PlaceInFolder::kTheFolderItself);
}

TEST(PlaceOfTest, AFolderHoldsOnlyWhatIsStrictlyInsideIt) {
  const absl::StatusOr<ExternalFolder> folder = ExternalFolder::At("/");
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_TRUE(folder->Holds("/etc"));
  EXPECT_FALSE(folder->Holds("/"));
}

}  // namespace
}  // namespace onnx_legalize
