// The sequence ops (src/eval/kernels/sequence.cc): sequences made, read and cut, positions counted from either
// end, and the errors a model's own values cause.
#include <string>
#include <vector>

#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

constexpr char kConstructInsertAt[] = R"(
  <ir_version: 6, opset_import: ["" : 11]>
  g (float[2] a, float[2] b, float[2] c, int64 p, int64 q) => (float[2] y, int64 n) {
    s = SequenceConstruct(a, b)
    t = SequenceInsert(s, c, p)
    y = SequenceAt(t, q)
    n = SequenceLength(t)
  })";

Feeds Abc(int64_t p, int64_t q) {
  Feeds feeds = Feed("a", Floats({2}, {1, 2}), "b", Floats({2}, {3, 4}));
  feeds.emplace("c", Floats({2}, {5, 6}));
  feeds.emplace("p", Int64s({}, {p}));
  feeds.emplace("q", Int64s({}, {q}));
  return feeds;
}

TEST(SequenceKernelTest, InsertsAndReadsAtPositionsFromEitherEnd) {
  const auto model = ParseModel(kConstructInsertAt);
  // c inserted at 1: [a, c, b]; position -1 is b, 1 is c.
  Results result = RunModel(model, Abc(1, -1));
  EXPECT_TRUE(OutputIs(result, "y", Floats({2}, {3, 4})));
  EXPECT_TRUE(OutputIs(result, "n", Int64s({}, {3})));
  EXPECT_TRUE(OutputIs(RunModel(model, Abc(-2, 0)), "y", Floats({2}, {5, 6})));
  // SequenceInsert takes the end itself (2 for two tensors), SequenceAt only the tensors' positions.
  EXPECT_TRUE(OutputIs(RunModel(model, Abc(2, 2)), "y", Floats({2}, {5, 6})));
}

TEST(SequenceKernelTest, RejectsPositionsOutOfRange) {
  const auto model = ParseModel(kConstructInsertAt);
  EXPECT_TRUE(FailsWith(RunModel(model, Abc(3, 0)), StatusCode::kInvalidArgument,
                        {"SequenceInsert", "position 3 is out of range for a sequence of 2 tensors"}));
  EXPECT_TRUE(FailsWith(RunModel(model, Abc(0, -4)), StatusCode::kInvalidArgument,
                        {"SequenceAt", "position -4 is out of range for a sequence of 3 tensors"}));
}

TEST(SequenceKernelTest, ErasesTheLastByDefaultAndConcatenatesOrStacks) {
  const auto model = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1,2] a, float[1,2] b, float[1,2] c) => (float[2,2] cat, float[1,2,2] stacked) {
      s = SequenceConstruct(a, b, c)
      t = SequenceErase(s)
      cat = ConcatFromSequence <axis = 0> (t)
      stacked = ConcatFromSequence <axis = -2, new_axis = 1> (t)
    })");
  Feeds feeds = Feed("a", Floats({1, 2}, {1, 2}), "b", Floats({1, 2}, {3, 4}));
  feeds.emplace("c", Floats({1, 2}, {5, 6}));
  const Results result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "cat", Floats({2, 2}, {1, 2, 3, 4})));
  // new_axis 1 with axis -2 (of the rank-3 result): the tensors stacked along axis 1.
  EXPECT_TRUE(OutputIs(result, "stacked", Floats({1, 2, 2}, {1, 2, 3, 4})));
}

TEST(SequenceKernelTest, SplitsIntoOnesChunksOrLengths) {
  const auto split = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[2,5] x, int64 chunk, int64[2] lengths, int64 p) => (float[2] one, float[2,1] last, float[2,4] second,
                                                                 int64 n) {
      ones = SplitToSequence <axis = 1, keepdims = 0> (x)
      one = SequenceAt(ones, p)
      chunks = SplitToSequence <axis = -1> (x, chunk)
      n = SequenceLength(chunks)
      last = SequenceAt(chunks, p)
      parts = SplitToSequence <axis = 1> (x, lengths)
      second = SequenceAt(parts, p)
    })");
  Feeds feeds = Feed("x", Floats({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), "chunk", Int64s({}, {2}));
  feeds.emplace("lengths", Int64s({2}, {1, 4}));
  feeds.emplace("p", Int64s({}, {-1}));
  const Results result = RunModel(split, feeds);
  EXPECT_TRUE(OutputIs(result, "one", Floats({2}, {4, 9})));  // keepdims 0 drops the axis of the ones
  EXPECT_TRUE(OutputIs(result, "n", Int64s({}, {3})));        // chunks of 2, 2 and 1
  EXPECT_TRUE(OutputIs(result, "last", Floats({2, 1}, {4, 9})));
  EXPECT_TRUE(OutputIs(result, "second", Floats({2, 4}, {1, 2, 3, 4, 6, 7, 8, 9})));
}

TEST(SequenceKernelTest, RejectsLengthsThatDoNotAddUpAndMixedTypes) {
  const auto split = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[2,5] x, int64[2] lengths) => (int64 n) {
      s = SplitToSequence <axis = 1> (x, lengths)
      n = SequenceLength(s)
    })");
  EXPECT_TRUE(
      FailsWith(RunModel(split, Feed("x", Floats({2, 5}, std::vector<float>(10)), "lengths", Int64s({2}, {1, 3}))),
                StatusCode::kInvalidArgument, {"does not add up to the axis's 5 elements"}));
  const auto mixed = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1] a, int64[1] b) => (int64 n) {
      s = SequenceConstruct(a)
      t = SequenceInsert(s, b)
      n = SequenceLength(t)
    })");
  EXPECT_TRUE(FailsWith(RunModel(mixed, Feed("a", Floats({1}, {1}), "b", Int64s({1}, {1}))),
                        StatusCode::kInvalidArgument, {"does not match the sequence's type float"}));
}

TEST(SequenceKernelTest, ASequenceIsReadOnlyBySequenceOpsAndNotReturned) {
  const auto read_by_relu = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1] a) => (float[1] y) {
      s = SequenceConstruct(a)
      y = Relu(s)
    })");
  EXPECT_TRUE(FailsWith(RunModel(read_by_relu, Feed("a", Floats({1}, {1}))), StatusCode::kUnimplemented,
                        {"is a sequence, which only the sequence ops read"}));
  const auto returned = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1] a) => (float[1] s) { s = SequenceConstruct(a) })");
  EXPECT_TRUE(FailsWith(RunModel(returned, Feed("a", Floats({1}, {1}))), StatusCode::kUnimplemented,
                        {"output 's' is a sequence"}));
}

}  // namespace
}  // namespace onnx_legalize::testing
