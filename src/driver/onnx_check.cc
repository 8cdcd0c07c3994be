// onnx's full check (the checker and strict shape inference), called with the console silenced, and its verdict
// read.
#include "driver/onnx_check.h"

#include <exception>
#include <iostream>
#include <mutex>
#include <streambuf>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "graph/message_depth.h"
#include "graph/model_skeleton.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace onnx_legalize {
namespace {

// onnx's checker writes warnings (about experimental ops) straight to the console, which belongs to the
// caller (the CLI's report and messages): while any SilencedConsole lives, std::cout and std::cerr go
// nowhere. They are process-wide and Legalize runs on several threads at once (the input's check beside
// the plan, and callers' threads: the Python module's), so the first one in swaps the buffers and the last
// one out restores them, under a lock. (Swapping per instance let a thread restore a buffer another had
// swapped in and then destroyed: the next write went to freed memory.)
class SilencedConsole {
 public:
  SilencedConsole() {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (state().count++ == 0) {
      state().cout = std::cout.rdbuf(&state().sink);
      state().cerr = std::cerr.rdbuf(&state().sink);
    }
  }
  ~SilencedConsole() {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (--state().count == 0) {
      std::cout.rdbuf(state().cout);
      std::cerr.rdbuf(state().cerr);
    }
  }
  SilencedConsole(const SilencedConsole&) = delete;
  SilencedConsole& operator=(const SilencedConsole&) = delete;

 private:
  // Discards what it is given and keeps no state, so that threads may write to it at once.
  class DiscardingBuffer : public std::streambuf {
   protected:
    int_type overflow(int_type c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
  };
  struct State {
    std::mutex mutex;
    int count = 0;  // SilencedConsoles alive
    std::streambuf* cout = nullptr;
    std::streambuf* cerr = nullptr;
    DiscardingBuffer sink;
  };
  // Never destroyed: a thread still silenced at exit must not write into a destroyed buffer.
  static State& state() {
    static State* const instance = new State;
    return *instance;
  }
};

}  // namespace

OnnxVerdict CheckWithOnnx(onnx::ModelProto& skeleton) {
  SilencedConsole silenced;
  OnnxVerdict verdict;
  // onnx's checker takes the model in memory; the users of a result load it from a file first.
  if (const int depth = MessageDepth(skeleton); depth > kMaxParsedMessageDepth) {
    verdict.status = absl::FailedPreconditionError(
        absl::StrCat("the model's messages nest ", depth,
                     " levels deep (its If/Loop/Scan bodies, three levels each); onnx's and "
                     "ONNX Runtime's parsers read at most ",
                     kMaxParsedMessageDepth, ", so saved it would not load"));
    return verdict;
  }
  try {
    // What onnx's Python check_model(model, full_check=True) calls (onnx/checker.cc): the checker, then strict
    // shape inference with type checks, of the whole model (nothing taken out). onnx infers on a copy, to leave
    // its argument as it was; the skeleton is ours to change, and a copy of a graph of many nodes would cost as
    // much memory again.
    onnx::checker::check_model(skeleton, /*full_check=*/false);
    const onnx::ShapeInferenceOptions strict(/*check_type_val=*/true, /*strict_mode_val=*/1, /*data_prop_val=*/false);
    onnx::shape_inference::InferShapes(skeleton, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& e) {
    verdict.status = absl::FailedPreconditionError(e.what());
    verdict.node = ReadNodeNamedByOnnx(e.what());
  }
  return verdict;
}

// onnx's checker on the input as it is (DynamicSlice only draws a warning from it): OK, or why it rejects
// it. A result must pass onnx's checker and strict shape inference whenever the input passes the checker;
// an input the checker already rejects for reasons of its own cannot be held to that.
absl::Status InputCheckerVerdict(const onnx::ModelProto& model) {
  SilencedConsole silenced;
  absl::Status verdict = absl::OkStatus();
  try {
    google::protobuf::Arena arena;
    onnx::ModelProto& skeleton = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    BuildModelSkeleton(model, skeleton);
    onnx::checker::check_model(skeleton);
  } catch (const std::exception& e) {
    verdict = absl::FailedPreconditionError(e.what());
  }
  return verdict;
}

std::string FirstLine(absl::string_view message) { return std::string(message.substr(0, message.find('\n'))); }

NodeNamedByOnnx ReadNodeNamedByOnnx(absl::string_view message) {
  constexpr absl::string_view kOpType = "(op_type:";
  constexpr absl::string_view kNodeName = ", node name: ";
  const absl::string_view line = message.substr(0, message.find('\n'));
  const size_t start = line.find(kOpType);
  if (start == absl::string_view::npos) return {};
  absl::string_view rest = line.substr(start + kOpType.size());
  NodeNamedByOnnx node;
  node.op_type = std::string(rest.substr(0, rest.find_first_of(",)")));
  rest.remove_prefix(node.op_type.size());
  if (absl::StartsWith(rest, kNodeName)) {
    rest.remove_prefix(kNodeName.size());
    node.name = std::string(rest.substr(0, rest.find(')')));
  }
  return node;
}

}  // namespace onnx_legalize
