// Legalize() on models whose constants are stored as external data: read through Options::external_data
// only when a fold needs them, and not constants at all without a reader. The reader here serves bytes
// from memory and counts what it is asked for; model_io_test reads real files.
#include <map>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "core/tensor.h"
#include "driver/legalize_internal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "io/external_data.h"
#include "onnx_legalize/error_kind.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::CountOps;
using ::onnx_legalize::testing::ExpectSameOutputs;
using ::onnx_legalize::testing::Iota;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::MakeInitializerConstant;
using ::onnx_legalize::testing::NodeFor;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::Serialize;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

// Serves "files" from memory and counts the reads of each tensor.
class MemoryReader : public ExternalDataReader {
 public:
  absl::StatusOr<std::string> Read(const onnx::TensorProto& tensor) const override {
    {  // the proofs read on threads of their own (Options::use_threads)
      const std::lock_guard<std::mutex> lock(reads_mutex);
      ++reads[tensor.name()];
    }
    if (!error.ok()) return error;
    if (auto failing = errors.find(tensor.name()); failing != errors.end()) return failing->second;
    absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(tensor, tensor.name());
    if (!ref.ok()) return ref.status();
    auto file = files.find(ref->location);
    if (file == files.end()) return absl::NotFoundError(absl::StrCat("no file ", ref->location));
    const int64_t available = static_cast<int64_t>(file->second.size()) - ref->offset;
    return file->second.substr(ref->offset, ref->length.value_or(available));
  }

  std::map<std::string, std::string> files;
  mutable std::map<std::string, int> reads;
  mutable std::mutex reads_mutex;
  absl::Status error;                          // returned by every read when set
  std::map<std::string, absl::Status> errors;  // returned by the reads of these tensors
};

// Moves `tensor`'s values to "file" `location` of `reader` (appended), as an exporter saving with external
// data does.
void MoveToReader(onnx::TensorProto& tensor, const std::string& location, MemoryReader& reader) {
  absl::StatusOr<Tensor> value = TensorFromProto(tensor);
  ASSERT_TRUE(value.ok()) << value.status();
  std::string& file = reader.files[location];
  const int64_t offset = static_cast<int64_t>(file.size());
  file += value->bytes();
  onnx::TensorProto moved;
  moved.set_name(tensor.name());
  moved.set_data_type(tensor.data_type());
  *moved.mutable_dims() = tensor.dims();
  SetExternalDataRef(moved, location, offset, static_cast<int64_t>(value->bytes().size()));
  tensor = std::move(moved);
}

onnx::TensorProto* FindInitializer(onnx::ModelProto& model, const std::string& name) {
  for (auto& initializer : *model.mutable_graph()->mutable_initializer()) {
    if (initializer.name() == name) return &initializer;
  }
  ADD_FAILURE() << "no initializer " << name;
  return nullptr;
}

// Two weights: `w` is cropped with constant indices (folds), `big` with indices computed at run time
// (rewritten), so only `w` needs its values.
constexpr char kTwoWeights[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
two_weights (int64[1] s, int64[1] e,
             float[4, 6] w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24},
             float[3, 2] big = {1, 2, 3, 4, 5, 6},
             int64[1] ws = {1}, int64[1] we = {3}) => (float[2, 6] cropped, float[M, 2] sliced) {
  cropped = DynamicSlice (w, ws, we)
  sliced = DynamicSlice (big, s, e)
}
)";

onnx::ModelProto TwoWeightsInline() {
  onnx::ModelProto model = ParseModel(kTwoWeights);
  for (const char* name : {"w", "big", "ws", "we"}) MakeInitializerConstant(model, name);
  return model;
}

onnx::ModelProto TwoWeightsExternal(MemoryReader& reader) {
  onnx::ModelProto model = TwoWeightsInline();
  MoveToReader(*FindInitializer(model, "w"), "weights.bin", reader);
  MoveToReader(*FindInitializer(model, "big"), "weights.bin", reader);
  return model;
}

TEST(LegalizeExternalDataTest, FoldsAnExternalInitializerReadThroughTheReader) {
  MemoryReader reader;
  const onnx::ModelProto model = TwoWeightsExternal(reader);
  Options options;
  options.external_data = &reader;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);

  EXPECT_EQ(NodeFor(report, "cropped").action, Action::kFolded);
  EXPECT_EQ(NodeFor(report, "sliced").action, Action::kRewritten);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  // The same bytes as folding the inline model.
  const onnx::ModelProto inline_legalized = LegalizedCopy(TwoWeightsInline(), {});
  const onnx::TensorProto* folded = nullptr;
  const onnx::TensorProto* folded_inline = nullptr;
  for (const auto& t : legalized.graph().initializer()) {
    if (t.name() == "cropped") folded = &t;
  }
  for (const auto& t : inline_legalized.graph().initializer()) {
    if (t.name() == "cropped") folded_inline = &t;
  }
  ASSERT_NE(folded, nullptr);
  ASSERT_NE(folded_inline, nullptr);
  EXPECT_EQ(folded->raw_data(), folded_inline->raw_data());
  EXPECT_FALSE(IsExternal(*folded)) << "a fold's result is a new inline initializer";
}

TEST(LegalizeExternalDataTest, ReadsOnlyTheWeightAFoldNeeds) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  Options options;
  options.external_data = &reader;
  options.verify = false;  // the opset move's proof reads every weight the model runs with (below)
  ASSERT_TRUE(Legalize(model, options).ok());
  EXPECT_THAT(reader.reads, ElementsAre(Pair("w", 1))) << "'big' is never read: its DynamicSlice is rewritten";
}

// The opset move (9 -> 10, for the rewritten DynamicSlice's Slice-10) is proved with the external weights the
// model runs with: each held through the reader once per input set for both forms, and let go after its last
// reader (OpenExternalData's reader maps it: nothing is copied).
TEST(LegalizeExternalDataTest, TheOpsetMovesProofHoldsEachExternalWeightOncePerInputSet) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  Options options;
  options.external_data = &reader;
  absl::StatusOr<Report> report = Legalize(model, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, ::testing::StartsWith("executed in the model runner at opset 9 and 10"));
  EXPECT_TRUE(report->opset_move_proof.executed);
  ASSERT_EQ(report->opset_move_proof.input_sets, 3);
  EXPECT_THAT(reader.reads, ElementsAre(Pair("big", 3), Pair("w", 1 + 3))) << "w: once by its fold, then by the proof";
}

// A weight only the proof reads ('big', rewritten), whose file has become unreadable since the model was loaded:
// the legalization fails as a file-system error naming the read, not as a verification failure, and not with the
// move left unproved as though the model had refused its drawn inputs.
TEST(LegalizeExternalDataTest, AWeightTheProofCannotReadIsAFileSystemError) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  reader.errors.emplace("big", absl::PermissionDeniedError("cannot open 'weights.bin': Permission denied"));
  Options options;
  options.external_data = &reader;
  const absl::StatusOr<Report> report = Legalize(model, options);
  EXPECT_EQ(ErrorKindOf(report.status()), ErrorKind::kFileSystem) << report.status();
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("the opset move's proof could not read the model's external data"));
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("cannot open 'weights.bin': Permission denied"));
}

// Writing a file (internal::LegalizeAndUse) overlaps the opset move's proof: a weight the proof cannot read fails
// the proofs `use` awaits before it makes anything permanent, and the attempt fails at its transformation step, as
// when the proof ran before the write.
TEST(LegalizeExternalDataTest, AWeightTheProofCannotReadFailsTheWriteThatRanBesideIt) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  reader.errors.emplace("big", absl::PermissionDeniedError("cannot open 'weights.bin': Permission denied"));
  Options options;
  options.external_data = &reader;
  bool used = false;
  absl::Status awaited;
  const internal::Attempt attempt = internal::LegalizeAndUse(
      model, options, [&](onnx::ModelProto&, const DeferredTensors&, const internal::AwaitProofs& await_proofs) {
        used = true;
        awaited = await_proofs();
        return awaited;
      });
  EXPECT_TRUE(used) << "the result is handed over once onnx's check of it has passed, while the move is proved";
  EXPECT_EQ(ErrorKindOf(awaited), ErrorKind::kFileSystem) << awaited;
  EXPECT_EQ(ErrorKindOf(attempt.report.status()), ErrorKind::kFileSystem) << attempt.report.status();
  EXPECT_THAT(std::string(attempt.report.status().message()),
              HasSubstr("the opset move's proof could not read the model's external data"));
  ASSERT_TRUE(attempt.failed_at_target.has_value());
  EXPECT_EQ(attempt.failed_at_target->step, internal::TargetFailure::Step::kTransform);
  EXPECT_EQ(attempt.failed_at_target->target, 10);
}

// A weight large enough to be set aside while the model is transformed goes back into the result before it is
// handed to `use`; the opset move's proof, running meanwhile, reads it there, where it lies.
TEST(LegalizeExternalDataTest, TheProofBesideTheWriteReadsASetAsideWeightInTheResult) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1, 256] x, int64[1] s, int64[1] e) => (float[1, 128] y, float[M, 256] sliced) {
  y = MatMul (x, w)
  sliced = DynamicSlice (x, s, e)
}
)");
  *model.mutable_graph()->add_initializer() = TensorToProto(Iota({256, 128}), "w");
  ASSERT_GT(model.graph().initializer(0).raw_data().size(), size_t{64} * 1024) << "large enough to be set aside";
  const onnx::ModelProto expected = LegalizedCopy(model);

  std::string written;
  const internal::Attempt attempt = internal::LegalizeAndUse(
      model, Options{},
      [&](onnx::ModelProto& legalized, const DeferredTensors&, const internal::AwaitProofs& await_proofs) {
        written = Serialize(legalized);
        return await_proofs();
      });
  ASSERT_TRUE(attempt.report.ok()) << attempt.report.status();
  EXPECT_THAT(attempt.report->opset_move, ::testing::StartsWith("executed in the model runner at opset 9 and 10"));
  EXPECT_EQ(attempt.report->opset_move_proof.input_sets, 3);
  EXPECT_EQ(written, Serialize(expected)) << "the weight's data is back in the model written";
}

TEST(LegalizeExternalDataTest, DoesNotReadAWeightWhoseFoldIsOverTheLimit) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  Options options;
  options.external_data = &reader;
  options.max_fold_bytes = 16;  // "cropped" is 48 bytes
  options.verify = false;       // the opset move's proof reads every weight the model runs with
  absl::StatusOr<Report> report = Legalize(model, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(NodeFor(*report, "cropped").action, Action::kRewritten);
  EXPECT_THAT(NodeFor(*report, "cropped").detail, HasSubstr("max_fold_bytes"));
  EXPECT_THAT(reader.reads, IsEmpty()) << "the size check comes before the read";
}

TEST(LegalizeExternalDataTest, WithoutAReaderAnExternalConstantIsRewrittenAndTheReportSaysWhy) {
  MemoryReader reader;
  const onnx::ModelProto model = TwoWeightsExternal(reader);
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(NodeFor(report, "cropped").action, Action::kRewritten);
  EXPECT_THAT(NodeFor(report, "cropped").detail,
              HasSubstr("data 'w' is stored as external data, which was not read (no reader given)"));
  EXPECT_EQ(NodeFor(report, "sliced").detail,
            "starts 's' and ends 'e' are computed at run time; data 'big' is stored as external data, which "
            "was not read (no reader given)");
  EXPECT_EQ(CountOps(legalized, "Slice"), 2);
  // Still known from the TensorProto without its values: the dims, so the rewrite targets Slice-10.
  EXPECT_EQ(NodeFor(report, "cropped").slice_version, 10);
  // The external references are kept as they were.
  for (const auto& t : legalized.graph().initializer()) {
    if (t.name() == "w" || t.name() == "big") EXPECT_TRUE(IsExternal(t)) << t.name();
  }
}

TEST(LegalizeExternalDataTest, AReadErrorFailsWithItsCodeAndLeavesTheModelUntouched) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  const std::string before = Serialize(model);
  reader.error = absl::NotFoundError("weights.bin vanished");
  Options options;
  options.external_data = &reader;
  absl::StatusOr<Report> report = Legalize(model, options);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound) << report.status();
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("weights.bin vanished"));
  EXPECT_EQ(Serialize(model), before);
}

TEST(LegalizeExternalDataTest, RejectsExternalDataOfTheWrongSizeNamingTheInitializer) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  onnx::TensorProto* w = FindInitializer(model, "w");
  SetExternalDataRef(*w, "weights.bin", 0, 20);  // float[4, 6] needs 96
  Options options;
  options.external_data = &reader;
  absl::StatusOr<Report> report = Legalize(model, options);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
  EXPECT_THAT(std::string(report.status().message()),
              AllOf(HasSubstr("initializer 'w'"), HasSubstr("20 bytes"), HasSubstr("96")));
}

TEST(LegalizeExternalDataTest, FoldsAConstantNodeWhoseValueIsExternal) {
  MemoryReader reader;
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 7, opset_import: ["" : 9]>
constant_node (float[1] unused) => (float[1, 2] y) {
  data = Constant <value = float[2, 2] {1, 2, 3, 4}> ()
  starts = Constant <value = int64[1] {1}> ()
  ends = Constant <value = int64[1] {2}> ()
  y = DynamicSlice (data, starts, ends)
}
)");
  MoveToReader(*model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t(), "c.bin", reader);
  Options options;
  options.external_data = &reader;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  absl::StatusOr<Tensor> y = TensorFromProto(legalized.graph().initializer(0));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(y->dims(), ElementsAre(1, 2));
  int reads = 0;
  for (const auto& [name, count] : reader.reads) reads += count;
  EXPECT_EQ(reads, 1);
}

TEST(LegalizeExternalDataTest, RewrittenModelComputesWhatTheOriginalDoes) {
  MemoryReader reader;
  onnx::ModelProto model = TwoWeightsExternal(reader);
  Options options;
  options.external_data = &reader;
  const onnx::ModelProto legalized = LegalizedCopy(model, options);
  // The test runner reads inline data only: compare the inline forms, with the same values.
  onnx::ModelProto legalized_inline = legalized;
  for (auto& t : *legalized_inline.mutable_graph()->mutable_initializer()) {
    if (!IsExternal(t)) continue;
    absl::StatusOr<std::string> bytes = reader.Read(t);
    ASSERT_TRUE(bytes.ok());
    t.clear_external_data();
    t.clear_data_location();
    t.set_raw_data(*bytes);
  }
  Tensor s = Tensor::FromInt64s({0});
  Tensor e = Tensor::FromInt64s({2});
  ExpectSameOutputs(TwoWeightsInline(), legalized_inline, {{"s", &s}, {"e", &e}});
}

}  // namespace
}  // namespace onnx_legalize
