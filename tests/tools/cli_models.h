// The models the CLI tests (single file and tree mode) run the binary on, written once.
#ifndef ONNX_LEGALIZE_TESTS_TOOLS_CLI_MODELS_H_
#define ONNX_LEGALIZE_TESTS_TOOLS_CLI_MODELS_H_

#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_files.h"
#include "test_models.h"

namespace onnx_legalize::testing {

// Nothing to legalize.
inline constexpr char kCleanModel[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
clean (float[2, 3] x) => (float[2, 3] y) {
  y = Relu (x)
}
)ONNX";

// DynamicSlice at opset 9 with run-time indices, as PyTorch's exporter wrote it.
inline constexpr char kDynamicSliceModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
dirty (float[20, 10, 5] x, int64[1] starts, int64[1] ends) => (float[M, 10, 5] y) {
  y = DynamicSlice (x, starts, ends)
}
)ONNX";

// A DynamicSlice and a MaxPool at opset 9: the move to 10 gives the MaxPool a new version, which its proof runs.
inline constexpr char kMaxPoolMovedModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
pooled (float[1, 2, 6, 6] x, int64[1] starts, int64[1] ends) => (float[M, 2, 6, 6] s, float[1, 2, 3, 3] y) {
  s = DynamicSlice (x, starts, ends)
  y = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
}
)ONNX";

// Parses `text` and writes it to `path` (its folders made), naming its first node `node_name` when given.
inline void WriteModel(const std::filesystem::path& path, const char* text, const std::string& node_name = "") {
  onnx::ModelProto model = ParseModel(text);
  if (!node_name.empty()) model.mutable_graph()->mutable_node(0)->set_name(node_name);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  WriteBytes(path, model.SerializeAsString());
}

}  // namespace onnx_legalize::testing

#endif  // ONNX_LEGALIZE_TESTS_TOOLS_CLI_MODELS_H_
