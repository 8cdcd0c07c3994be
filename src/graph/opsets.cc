#include "graph/opsets.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "graph/op_names.h"

namespace onnx_legalize {

absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model) {
  std::optional<int64_t> opset;
  for (const auto& import : model.opset_import()) {
    if (!IsDefaultDomain(import.domain())) continue;
    if (opset.has_value() && *opset != import.version()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the model imports the default domain twice, at opsets ", *opset, " and ", import.version()));
    }
    opset = import.version();
  }
  if (!opset.has_value()) {
    return absl::InvalidArgumentError("the model imports no default-domain opset (opset_import has no \"\" entry)");
  }
  return *opset;
}

}  // namespace onnx_legalize
