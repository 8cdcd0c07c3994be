// Hostile and broken models through the onnx-legalize binary, as a stranger's model reaches it: each gets
// exit 3 and a message on stderr naming what is wrong and where (file, graph, node or tensor), and nothing
// is written: no OUT, no temporary beside it, an existing OUT untouched, the input unchanged. Never a
// crash, never another exit code. (Issue 5; external data and failed writes are model_io's tests.)
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph_validation.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_files.h"
#include "test_models.h"

#ifndef ONNX_LEGALIZE_CLI
#error "ONNX_LEGALIZE_CLI must name the onnx-legalize binary"
#endif

// Address-space and data limits cannot be applied to a binary built with AddressSanitizer (its shadow
// memory is a huge reservation), so the allocation-bound tests skip themselves in the sanitizer build.
#if defined(__SANITIZE_ADDRESS__)
#define ONNX_LEGALIZE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONNX_LEGALIZE_ASAN 1
#endif
#endif

namespace onnx_legalize {
namespace {

namespace fs = std::filesystem;
using ::onnx_legalize::testing::CliRun;
using ::onnx_legalize::testing::FileNames;
using ::onnx_legalize::testing::MakeTestDir;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::ReadBytes;
using ::onnx_legalize::testing::RunCli;
using ::onnx_legalize::testing::WriteBytes;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kExitModel = 3;

// Names every DynamicSlice of the main graph "crop", so messages can be checked for the node's name.
onnx::ModelProto Named(onnx::ModelProto model) {
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() == "DynamicSlice") node.set_name("crop");
  }
  return model;
}

class HostileInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTestDir("hostile_input_test");
    dir_ = root_ / "work";
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }

  std::string Write(const std::string& name, const std::string& bytes) {
    WriteBytes(dir_ / name, bytes);
    return PathOf(name);
  }
  std::string WriteModel(const std::string& name, const onnx::ModelProto& model) {
    return Write(name, model.SerializeAsString());
  }

  // Runs the binary; `data_limit_kib` caps its heap (RLIMIT_DATA) when given.
  CliRun Run(const std::vector<std::string>& args, std::optional<int64_t> data_limit_kib = std::nullopt) const {
    return RunCli(ONNX_LEGALIZE_CLI, args, root_, data_limit_kib);
  }

  // The work folder's file names, sorted.
  std::vector<std::string> Listing() const {
    std::vector<std::string> names = FileNames(dir_);
    std::sort(names.begin(), names.end());
    return names;
  }

  // Legalizes `input` (a file in the work folder) expecting exit 3, a message holding each of `parts` and
  // naming the input file, and nothing written: no OUT, no stray file, an existing OUT left as it was.
  void ExpectRejected(const std::string& input, const std::vector<std::string>& parts,
                      const std::vector<std::string>& flags = {}) {
    const std::string input_bytes = ReadBytes(input);
    const std::vector<std::string> before = Listing();
    std::vector<std::string> args = flags;
    args.push_back(input);
    args.push_back(PathOf("out.onnx"));
    const CliRun run = Run(args);
    EXPECT_EQ(run.exit_code, kExitModel) << run.err;
    EXPECT_EQ(run.signal, 0) << run.err;
    EXPECT_THAT(run.err, AllOf(StartsWith("onnx-legalize: "), HasSubstr(input)));
    for (const std::string& part : parts) EXPECT_THAT(run.err, HasSubstr(part));
    EXPECT_EQ(Listing(), before) << "something was written";
    EXPECT_EQ(ReadBytes(input), input_bytes);

    // An existing OUT is left untouched.
    WriteBytes(dir_ / "out.onnx", "previous output");
    const CliRun again = Run(args);
    EXPECT_EQ(again.exit_code, kExitModel) << again.err;
    EXPECT_EQ(ReadBytes(dir_ / "out.onnx"), "previous output");
    fs::remove(dir_ / "out.onnx");
  }

  // ExpectRejected for a model written as ONNX text (its DynamicSlices named 'crop').
  void ExpectTextRejected(const char* text, const std::vector<std::string>& parts,
                          const std::vector<std::string>& flags = {}) {
    ExpectRejected(WriteModel("in.onnx", Named(ParseModel(text))), parts, flags);
  }

  fs::path root_;
  fs::path dir_;
};

// --- not a model -----------------------------------------------------------------------------------------

TEST_F(HostileInputTest, NotProtobufExits3) {
  ExpectRejected(Write("text.onnx", "this is not an onnx model\n"), {"is not a valid ONNX model"});
  ExpectRejected(Write("ff.onnx", std::string(64, '\xff')), {"is not a valid ONNX model"});
}

// The early runtimes' test models left the IR version out, and are read as their imports say (era/ir_version.cc);
// a message without one whose graph holds no node, or no output, is protobuf's reading of stray bytes.
TEST_F(HostileInputTest, NoIrVersionIsAModelOnlyWithAGraphThatComputesSomething) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,3] x) => (float[1,3] y) {
  y = Relu(x)
}
)");
  model.clear_ir_version();
  const CliRun run = Run({WriteModel("no_ir.onnx", model), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(ReadBytes(dir_ / "out.onnx")));
  EXPECT_EQ(written.ir_version(), 3);
  EXPECT_THAT(run.out, HasSubstr("no ir_version: written as 3"));
  fs::remove(dir_ / "out.onnx");

  onnx::ModelProto no_nodes = model;
  no_nodes.mutable_graph()->clear_node();
  ExpectRejected(WriteModel("no_nodes.onnx", no_nodes), {"is not a valid ONNX model (no ir_version)"});
  onnx::ModelProto negative = model;
  negative.set_ir_version(-1);
  ExpectRejected(WriteModel("negative.onnx", negative), {"is not a valid ONNX model (a negative ir_version)"});
}

TEST_F(HostileInputTest, EmptyFileExits3) { ExpectRejected(Write("empty.onnx", ""), {"is empty"}); }

// Every prefix of a small legacy model (subgraphs included): a prefix may still be a valid protobuf, and a
// valid model even, so each run must exit 3 having written nothing, or 0 having written a model; nothing
// else, and never a crash.
TEST_F(HostileInputTest, TruncatedAtEveryLengthExits3Or0) {
  const std::string model = ReadBytes(fs::path(ONNX_LEGALIZE_SOURCE_DIR) / "testdata/legacy/subgraph_if_opset9.onnx");
  ASSERT_GT(model.size(), 100u);
  int rejected = 0;
  for (size_t length = 0; length <= model.size(); ++length) {
    SCOPED_TRACE(absl::StrCat("truncated to ", length, " of ", model.size(), " bytes"));
    const std::string input = Write("truncated.onnx", model.substr(0, length));
    const CliRun run = Run({input, PathOf("out.onnx")});
    ASSERT_EQ(run.signal, 0) << run.err;
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == kExitModel) << run.exit_code << ": " << run.err;
    if (run.exit_code == kExitModel) {
      ++rejected;
      ASSERT_THAT(run.err, AllOf(StartsWith("onnx-legalize: "), HasSubstr(input)));
      ASSERT_FALSE(fs::exists(dir_ / "out.onnx"));
    } else {
      onnx::ModelProto written;
      ASSERT_TRUE(written.ParseFromString(ReadBytes(dir_ / "out.onnx")));
      fs::remove(dir_ / "out.onnx");
    }
    ASSERT_EQ(Listing(), std::vector<std::string>{"truncated.onnx"});
  }
  EXPECT_GT(rejected, 0);
}

// --- DynamicSlice's signature ----------------------------------------------------------------------------

TEST_F(HostileInputTest, DynamicSliceWithFewerThan3InputsExits3) {
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s) => (float[?,?] y) { y = DynamicSlice(x, s) }
)",
                     {"DynamicSlice 'crop' (graph main)", "has 2 inputs; DynamicSlice takes 3 or 4"});
}

TEST_F(HostileInputTest, DynamicSliceWithMoreThan4InputsExits3) {
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e, int64[1] a) => (float[?,?] y) { y = DynamicSlice(x, s, e, a, a) }
)",
                     {"DynamicSlice 'crop' (graph main)", "has 5 inputs"});
}

TEST_F(HostileInputTest, DynamicSliceWithMoreThanOneOutputExits3) {
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y) { y, z = DynamicSlice(x, s, e) }
)",
                     {"DynamicSlice 'crop' (graph main)", "has 2 outputs; DynamicSlice has exactly one"});
}

// --- index inputs ------------------------------------------------------------------------------------------

TEST_F(HostileInputTest, IndexInputsOfMixedTypesExit3) {
  // Constants (IR 3 initializers) and declared graph inputs alike.
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s = {0}, int32[1] e = {1}) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)",
                     {"DynamicSlice 'crop' (graph main)", "index inputs mix int64 and int32 (ends 'e')"});
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int32[1] s, int32[1] e, int64[1] a) => (float[?,?] y) { y = DynamicSlice(x, s, e, a) }
)",
                     {"DynamicSlice 'crop' (graph main)", "index inputs mix int32 and int64 (axes 'a')"});
}

TEST_F(HostileInputTest, IndexInputsOfANonIntegerTypeExit3) {
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, float[1] s = {0.0}, float[1] e = {1.0}) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)",
                     {"DynamicSlice 'crop' (graph main)", "starts 's' is float; DynamicSlice takes int32 or int64"});
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int16[1] e) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)",
                     {"DynamicSlice 'crop' (graph main)", "ends 'e' is int16"});
}

TEST_F(HostileInputTest, IndexInputsThatAreNot1DExit3) {
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[1,1] s = {0}, int64[1,1] e = {1}) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)",
                     {"DynamicSlice 'crop' (graph main)", "starts 's' has rank 2; index inputs are 1-D"});
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64 e) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)",
                     {"DynamicSlice 'crop' (graph main)", "ends 'e' has rank 0"});
}

TEST_F(HostileInputTest, IndexInputsOfDifferentLengthsExit3) {
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[2] s = {0, 0}, int64[1] e = {1}) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)",
                     {"DynamicSlice 'crop' (graph main)", "ends has 1 values but starts has 2"});
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[2] s, int64[2] e, int64[1] a) => (float[?,?] y) { y = DynamicSlice(x, s, e, a) }
)",
                     {"DynamicSlice 'crop' (graph main)", "axes has 1 values but"});
}

TEST_F(HostileInputTest, DuplicateConstantAxesExit3) {
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[2] s, int64[2] e, int64[2] a = {0, 0}) => (float[?,?] y) { y = DynamicSlice(x, s, e, a) }
)",
                     {"DynamicSlice 'crop' (graph main)", "axes name axis 0 twice (axes [0, 0])"});
  // Equal only once normalized: 1 and -1 on rank 2.
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[2] s, int64[2] e, int64[2] a = {1, -1}) => (float[?,?] y) { y = DynamicSlice(x, s, e, a) }
)",
                     {"DynamicSlice 'crop' (graph main)", "twice (axes [1, -1])"});
}

TEST_F(HostileInputTest, OutOfRangeConstantAxesExit3) {
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e, int64[1] a = {2}) => (float[?,?] y) { y = DynamicSlice(x, s, e, a) }
)",
                     {"DynamicSlice 'crop' (graph main)", "axis 2 is outside [-2, 1] for data of rank 2"});
  ExpectTextRejected(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e, int64[1] a = {-3}) => (float[?,?] y) { y = DynamicSlice(x, s, e, a) }
)",
                     {"DynamicSlice 'crop' (graph main)", "axis -3 is outside [-2, 1]"});
}

// --- tensors whose dims and data disagree --------------------------------------------------------------

// A model with DynamicSlice data `w` (an initializer made by `make_w`) and another initializer `b` that
// an Add reads: both kinds of tensor must be well-formed, the one the folder reads and the one it passes
// through.
onnx::ModelProto WithInitializers(const onnx::TensorProto& w, const onnx::TensorProto& b) {
  onnx::ModelProto model = Named(ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s = {0}, int64[1] e = {1}) => (float[?,?] y, float[4,5] z) {
  y = DynamicSlice(x, s, e)
  z = Add(x, x)
}
)"));
  *model.mutable_graph()->add_initializer() = w;
  *model.mutable_graph()->mutable_node(0)->mutable_input(0) = w.name();
  *model.mutable_graph()->add_initializer() = b;
  *model.mutable_graph()->mutable_node(1)->mutable_input(1) = b.name();
  return model;
}

// A float initializer `name` of `dims` whose raw data is `raw_bytes` zero bytes, whatever the dims need.
onnx::TensorProto RawFloats(const std::string& name, const std::vector<int64_t>& dims, size_t raw_bytes) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : dims) tensor.add_dims(dim);
  tensor.set_raw_data(std::string(raw_bytes, '\0'));
  return tensor;
}

TEST_F(HostileInputTest, RawDataNotMatchingDimsExits3) {
  const onnx::TensorProto good_w = RawFloats("w", {4, 5}, 80);
  const onnx::TensorProto good_b = RawFloats("b", {5}, 20);
  ExpectRejected(WriteModel("short_w.onnx", WithInitializers(RawFloats("w", {4, 5}, 79), good_b)),
                 {"initializer 'w' (graph main)", "raw_data has 79 bytes, but float [4, 5] needs 80"});
  ExpectRejected(WriteModel("long_b.onnx", WithInitializers(good_w, RawFloats("b", {5}, 24))),
                 {"initializer 'b' (graph main)", "raw_data has 24 bytes, but float [5] needs 20"});
  // A typed field of the wrong length.
  onnx::TensorProto typed = good_b;
  typed.clear_raw_data();
  typed.add_float_data(1.0f);
  ExpectRejected(WriteModel("typed_b.onnx", WithInitializers(good_w, typed)),
                 {"initializer 'b' (graph main)", "holds 1 values, but float [5] needs 5"});
}

TEST_F(HostileInputTest, NegativeDimsExit3) {
  const onnx::TensorProto good_b = RawFloats("b", {5}, 20);
  ExpectRejected(WriteModel("negative_w.onnx", WithInitializers(RawFloats("w", {-4, -5}, 80), good_b)),
                 {"initializer 'w' (graph main)", "dim 0 of [-4, -5] is negative"});
  ExpectRejected(
      WriteModel("negative_b.onnx", WithInitializers(RawFloats("w", {4, 5}, 80), RawFloats("b", {5, -1}, 0))),
      {"initializer 'b' (graph main)", "dim 1 of [5, -1] is negative"});
}

TEST_F(HostileInputTest, DimsWhoseProductOverflowsExit3) {
  const int64_t big = int64_t{1} << 40;
  ExpectRejected(
      WriteModel("overflow_w.onnx", WithInitializers(RawFloats("w", {big, big}, 0), RawFloats("b", {5}, 20))),
      {"initializer 'w' (graph main)", "the element count of dims [1099511627776, 1099511627776] overflows"});
  // The count fits int64, its bytes do not.
  const int64_t count_fits = int64_t{1} << 62;
  ExpectRejected(
      WriteModel("bytes_b.onnx", WithInitializers(RawFloats("w", {4, 5}, 80), RawFloats("b", {count_fits}, 0))),
      {"initializer 'b' (graph main)", "byte size overflows int64"});
}

TEST_F(HostileInputTest, MalformedConstantNodeValueExits3) {
  onnx::ModelProto model = Named(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x) => (float[?,?] y) {
  s = Constant <value = int64[1] {0}> ()
  e = Constant <value = int64[1] {1}> ()
  y = DynamicSlice(x, s, e)
}
)"));
  model.mutable_graph()->mutable_node(0)->set_name("starts");
  onnx::TensorProto* value = model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t();
  value->clear_int64_data();
  value->set_raw_data("1234567");
  ExpectRejected(WriteModel("constant.onnx", model),
                 {"Constant 'starts' (graph main): attribute 'value'", "raw_data has 7 bytes"});
}

// --- graph structure -----------------------------------------------------------------------------------

TEST_F(HostileInputTest, AnUndefinedInputExits3) {
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s) => (float[?,?] y) { y = DynamicSlice(x, s, nowhere) }
)",
                     {"DynamicSlice 'crop' (graph main): input 'nowhere' is not defined"});
  // In a subgraph, where outer names are visible but this one is not.
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y) {
  y = If (c) <
    then_branch = then_body () => (float[?,?] t) { t = DynamicSlice(x, s, nowhere) },
    else_branch = else_body () => (float[?,?] u) { u = DynamicSlice(x, s, e) }
  >
}
)",
                     {"(graph main/then_body): input 'nowhere' is not defined"});
}

TEST_F(HostileInputTest, ACycleExits3) {
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y) {
  a = Relu(b)
  b = Relu(a)
  y = DynamicSlice(b, s, e)
}
)",
                     {"Relu node #0 (graph main): input 'b' is not defined", "or a cycle"});
}

TEST_F(HostileInputTest, TwoNodesWritingOneNameExit3) {
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y) {
  a = Relu(x)
  a = Neg(x)
  y = DynamicSlice(a, s, e)
}
)",
                     {"graph main: 'a' is defined twice (again as an output of Neg node #1)"});
  // A node output that is also a graph input.
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y) {
  x = Relu(x)
  y = DynamicSlice(x, s, e)
}
)",
                     {"graph main: 'x' is defined twice"});
}

// Two values for one constant: whichever a fold read, a runtime may read the other. Refused whether the
// model moves to a new opset (onnx's converter would refuse it too) or keeps its own.
TEST_F(HostileInputTest, TwoInitializersOfOneNameExit3) {
  const char* kTwoStarts = R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x) => (float[?,?] y) <int64[1] s = {1}, int64[1] s = {2}, int64[1] e = {3}> {
  y = DynamicSlice(x, s, e)
}
)";
  ExpectTextRejected(kTwoStarts, {"graph main: initializer 's' is defined twice"});
  ExpectTextRejected(kTwoStarts, {"graph main: initializer 's' is defined twice"}, {"--keep-opset"});
}

// A model whose If then-branches nest `depth` levels deep ("level1", "level2", ...), with a DynamicSlice
// at the bottom; each else-branch is an Identity.
onnx::ModelProto NestedIfs(int depth) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)");
  const onnx::NodeProto slice = model.graph().node(0);
  auto graph_attribute = [](onnx::NodeProto& node, const char* name) {
    onnx::AttributeProto* attribute = node.add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::GRAPH);
    return attribute->mutable_g();
  };
  // The graph at `level` (1..depth) computes y<level>; the main graph's node computes y.
  onnx::GraphProto body;
  body.set_name(absl::StrCat("level", depth));
  *body.add_node() = slice;
  body.mutable_node(0)->set_output(0, absl::StrCat("y", depth));
  body.add_output()->set_name(absl::StrCat("y", depth));
  for (int level = depth - 1; level >= 0; --level) {
    onnx::NodeProto node;
    node.set_op_type("If");
    node.add_input("c");
    node.add_output(level == 0 ? "y" : absl::StrCat("y", level));
    *graph_attribute(node, "then_branch") = std::move(body);
    onnx::GraphProto* else_branch = graph_attribute(node, "else_branch");
    else_branch->set_name(absl::StrCat("else", level + 1));
    onnx::NodeProto* identity = else_branch->add_node();
    identity->set_op_type("Identity");
    identity->add_input("x");
    identity->add_output(absl::StrCat("x", level + 1));
    else_branch->add_output()->set_name(absl::StrCat("x", level + 1));
    if (level == 0) {
      *model.mutable_graph()->mutable_node(0) = std::move(node);
      break;
    }
    body = onnx::GraphProto();
    body.set_name(absl::StrCat("level", level));
    *body.add_node() = std::move(node);
    body.add_output()->set_name(absl::StrCat("y", level));
  }
  return model;
}

// Issue 42's mutants: a doc_string in Latin-1 (not the UTF-8 protobuf expects of a string field) made libprotobuf
// print its own "[libprotobuf ERROR ...]" lines on stderr; the tool speaks for itself, and only when it has to.
TEST_F(HostileInputTest, LibprotobufDoesNotWriteToStderr) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) { y = Relu(x) }
)");
  model.mutable_graph()->mutable_node(0)->set_doc_string("caf\xe9");
  const CliRun run = Run({WriteModel("latin1.onnx", model), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  fs::remove(dir_ / "out.onnx");
}

// Issue 42's mutants: a name holding control characters (an escape sequence, a NUL) reached the terminal raw in
// the error naming it; they are written as \xNN, as stray bytes are.
TEST_F(HostileInputTest, ControlCharactersOfANameAreEscapedInTheMessage) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s) => (float[?,?] y) { y = DynamicSlice(x, s) }
)");
  model.mutable_graph()->mutable_node(0)->set_name(std::string("crop\x1b[2J\0", 9));
  const std::string input = WriteModel("in.onnx", model);
  const CliRun run = Run({input, PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, kExitModel) << run.err;
  EXPECT_THAT(run.err, HasSubstr("crop\\x1B[2J\\x00"));
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(run.err.find('\0'), std::string::npos);
}

TEST_F(HostileInputTest, SubgraphsNestedPastTheDocumentedDepthExit3) {
  ExpectRejected(WriteModel("deep.onnx", NestedIfs(kMaxSubgraphDepth + 1)), {});
  ExpectRejected(WriteModel("deeper.onnx", NestedIfs(4 * kMaxSubgraphDepth)), {});
}

// The message says what is wrong: LoadModel parses deep enough for ValidateGraphs to name the nesting.
TEST_F(HostileInputTest, SubgraphsNestedPastTheDocumentedDepthAreNamedAsSuch) {
  ExpectRejected(WriteModel("deep.onnx", NestedIfs(kMaxSubgraphDepth + 1)), {"nested"});
}

// A model as deep as onnx's and ONNX Runtime's parsers read (32 bodies: 99 message levels, within their 101) is
// legalized, and what is written parses again.
TEST_F(HostileInputTest, SubgraphsNestedAsDeepAsOnnxReadsAreLegalized) {
  const CliRun run = Run({WriteModel("deep.onnx", NestedIfs(32)), PathOf("out.onnx")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("main/level1/level2/"));
  const CliRun again = Run({"--check", PathOf("out.onnx")});
  EXPECT_EQ(again.exit_code, 0) << again.err << again.out;
}

// Issue 42: 63 and 64 levels, which this tool reads, were written with exit 0 as files neither onnx nor ONNX
// Runtime can parse (protobuf's recursion limit). Exit 0 means the result loads: past that depth, exit 3 and
// nothing written.
TEST_F(HostileInputTest, AResultNestedPastWhatOnnxParsesIsRefused) {
  for (const int depth : {34, kMaxSubgraphDepth}) {
    const std::string out = PathOf(absl::StrCat("out", depth, ".onnx"));
    const CliRun run = Run({WriteModel(absl::StrCat("deep", depth, ".onnx"), NestedIfs(depth)), out});
    EXPECT_EQ(run.exit_code, 3) << depth << run.out;
    EXPECT_THAT(run.err, HasSubstr("onnx's and ONNX Runtime's parsers read at most 101")) << depth;
    EXPECT_FALSE(fs::exists(out)) << depth;
  }
}

TEST_F(HostileInputTest, AGraphOutputNoNodeProducesExits3) {
  // The DynamicSlice is a rewrite, so without validation this model would reach onnx 1.12's version
  // converter, which dies with a segmentation fault on it.
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y, float[?,?] ghost) { y = DynamicSlice(x, s, e) }
)",
                     {"graph main: output 'ghost' is produced by no node, input or initializer"});
  ExpectTextRejected(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y) {
  y = If (c) <
    then_branch = then_body () => (float[?,?] t) { t = DynamicSlice(x, s, e) },
    else_branch = else_body () => (float[?,?] ghost) { u = DynamicSlice(x, s, e) }
  >
}
)",
                     {"graph main/else_body: output 'ghost' is produced by no node"});
}

// --- sizes: rejected or rewritten before anything is allocated -----------------------------------------

// float data of `dims` (zeros) sliced along axis 0 from 1 to the end: a fold of nearly all of it.
onnx::ModelProto FoldOfNearlyAll(const std::vector<int64_t>& dims, size_t raw_bytes) {
  onnx::ModelProto model = Named(ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (int64[1] s = {1}, int64[1] e = {9223372036854775807}) => (float[?,?] y) { y = DynamicSlice(w, s, e) }
)"));
  *model.mutable_graph()->add_initializer() = RawFloats("w", dims, raw_bytes);
  return model;
}

// A constant whose dims claim 2^40 floats (4 TiB) but that holds no data is refused on its sizes: under a
// 256 MiB heap, so a single allocation that trusted the dims would fail.
TEST_F(HostileInputTest, AConstantClaimingAHugeSizeIsRejectedWithoutAllocating) {
#ifdef ONNX_LEGALIZE_ASAN
  GTEST_SKIP() << "RLIMIT_DATA does not combine with AddressSanitizer's shadow memory";
#endif
  const std::string input = WriteModel("huge.onnx", FoldOfNearlyAll({int64_t{1} << 20, int64_t{1} << 20}, 0));
  const CliRun run = Run({input, PathOf("out.onnx")}, 256 * 1024);
  EXPECT_EQ(run.exit_code, kExitModel) << run.err;
  EXPECT_THAT(run.err, AllOf(HasSubstr("initializer 'w' (graph main)"),
                             HasSubstr("raw_data has 0 bytes, but float [1048576, 1048576] needs 4398046511104")));
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
}

// A fold whose result passes --max-fold-bytes is rewritten, and its result is never computed: 32 MiB of
// data sliced to nearly all of it, under a heap limit of 4 times the data. Folding needs the data, its
// decoded copy, the result and verification's recomputation at once (measured: > 150 MiB); the rewrite
// needs the data and its decoded copy (< 100 MiB).
TEST_F(HostileInputTest, AFoldPastTheSizeLimitIsRewrittenWithoutAllocatingIt) {
#ifdef ONNX_LEGALIZE_ASAN
  GTEST_SKIP() << "RLIMIT_DATA does not combine with AddressSanitizer's shadow memory";
#endif
  constexpr int64_t kRows = 2048, kColumns = 4096;  // 32 MiB of float
  const std::string input = WriteModel("big.onnx", FoldOfNearlyAll({kRows, kColumns}, kRows * kColumns * 4));
  const CliRun run = Run({"--max-fold-bytes=1048576", input, PathOf("out.onnx")}, 128 * 1024);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("node 'crop' (output 'y'): rewritten as Slice-10"),
                             HasSubstr("is over max_fold_bytes (1048576)")));
}

// A constant of zero elements may claim any other dim: nothing to allocate, and its fold is empty too.
TEST_F(HostileInputTest, AZeroElementConstantOfHugeDimsFoldsWithoutAllocating) {
#ifdef ONNX_LEGALIZE_ASAN
  GTEST_SKIP() << "RLIMIT_DATA does not combine with AddressSanitizer's shadow memory";
#endif
  const std::string input = WriteModel("zero.onnx", FoldOfNearlyAll({0, std::numeric_limits<int64_t>::max()}, 0));
  const CliRun run = Run({input, PathOf("out.onnx")}, 256 * 1024);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("node 'crop' (output 'y'): folded"));
}

// Each fold below passes the limit on its own, but together they would allocate the data once per node: 64
// DynamicSlices of one 4 MiB constant would make 256 MiB of folded constants from a 4 MiB model, so the
// node count would multiply the memory. --max-total-fold-bytes bounds the total; the rest are rewritten.
TEST_F(HostileInputTest, ManyFoldsOfOneConstantStayWithinTheSizeLimitTogether) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (int64[1] s = {0}, int64[1] e = {1024}) => (float[?,?] y) { y = Identity(w) }
)");
  *model.mutable_graph()->add_initializer() = RawFloats("w", {1024, 1024}, 4 << 20);
  for (int i = 0; i < 64; ++i) {
    onnx::NodeProto* node = model.mutable_graph()->add_node();
    node->set_op_type("DynamicSlice");
    node->set_name(absl::StrCat("crop", i));
    for (const char* input : {"w", "s", "e"}) node->add_input(input);
    node->add_output(absl::StrCat("y", i));
    onnx::ValueInfoProto* output = model.mutable_graph()->add_output();
    output->set_name(absl::StrCat("y", i));
    *output->mutable_type() = model.graph().output(0).type();
  }
  const std::string input = WriteModel("many.onnx", model);
  const CliRun run = Run({"--max-total-fold-bytes=16777216", input, PathOf("out.onnx")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_LT(fs::file_size(dir_ / "out.onnx"), fs::file_size(input) + (16u << 20) + (1u << 20));
}

}  // namespace
}  // namespace onnx_legalize
