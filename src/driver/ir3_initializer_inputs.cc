#include "driver/ir3_initializer_inputs.h"

#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "graph/subgraphs.h"

namespace onnx_legalize {

std::optional<std::string> UnlistIr3InitializerInputs(int64_t ir_version_before, onnx::ModelProto& model) {
  if (ir_version_before > 3 || model.ir_version() <= 3) return std::nullopt;
  onnx::GraphProto& graph = *model.mutable_graph();
  std::unordered_set<std::string> initialized;
  for (const onnx::TensorProto& initializer : graph.initializer()) initialized.insert(initializer.name());
  for (const onnx::SparseTensorProto& sparse : graph.sparse_initializer()) initialized.insert(sparse.values().name());
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& inputs = *graph.mutable_input();
  const int listed = inputs.size();
  int kept = 0;
  for (int i = 0; i < inputs.size(); ++i) {
    if (initialized.count(inputs.Get(i).name()) > 0) continue;
    if (kept != i) inputs.SwapElements(kept, i);
    ++kept;
  }
  if (kept == listed) return std::nullopt;
  inputs.DeleteSubrange(kept, listed - kept);
  return absl::StrCat("graph ", kMainGraphPath, ": ", listed - kept,
                      " initializer(s) listed as graph inputs, as IR 3 required, are no longer listed at IR ",
                      model.ir_version(),
                      ": from IR 4 a listed initializer is an input a caller may override, which no runtime allowed "
                      "at IR 3 (ONNX Runtime would stop folding them)");
}

}  // namespace onnx_legalize
