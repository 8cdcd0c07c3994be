#include "graph/opsets.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "graph/op_names.h"

namespace onnx_legalize {

absl::StatusOr<OpsetImports> ReadOpsetImports(
    const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports, absl::string_view importer) {
  OpsetImports opsets;
  for (const onnx::OperatorSetIdProto& import : imports) {
    const std::string domain = NormalizedDomain(import.domain());
    if (import.version() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(importer, " imports domain '", DomainForDisplay(domain),
                                                     "' at opset ", import.version(), "; opset versions start at 1"));
    }
    auto [it, inserted] = opsets.emplace(domain, import.version());
    if (!inserted && it->second != import.version()) {
      return absl::InvalidArgumentError(absl::StrCat(importer, " imports domain '", DomainForDisplay(domain),
                                                     "' twice, at opsets ", it->second, " and ", import.version()));
    }
  }
  return opsets;
}

absl::StatusOr<OpsetImports> ModelOpsetImports(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(OpsetImports opsets, ReadOpsetImports(model.opset_import(), "the model"));
  if (model.opset_import_size() == 0 && model.ir_version() < 3) opsets.emplace(kDefaultDomain, 1);
  return opsets;
}

absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(const OpsetImports opsets, ReadOpsetImports(model.opset_import(), "the model"));
  auto found = opsets.find(kDefaultDomain);
  if (found == opsets.end()) {
    return absl::InvalidArgumentError("the model imports no default-domain opset (opset_import has no \"\" entry)");
  }
  return found->second;
}

int64_t MinIrVersionForOpset(int64_t opset) {
  // onnx releases (onnx.helper.VERSION_TABLE): 1.3 IR 3 / opset 8, 1.4 IR 4 / 9, 1.5 IR 5 / 10, 1.6 IR 6 / 11,
  // 1.7-1.9 IR 7 / 12-14, 1.10-1.12 IR 8 / 15-17, 1.13 IR 8 / 18, 1.14-1.15 IR 9 / 19-20, 1.16-1.17 IR 10 /
  // 21-22, 1.18 IR 11 / 23, 1.19 IR 12 / 24, 1.20-1.22 IR 13 / 25-27, 1.23 IR 14 / 28.
  if (opset <= 8) return 3;
  if (opset == 9) return 4;
  if (opset == 10) return 5;
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  if (opset == 23) return 11;
  if (opset == 24) return 12;
  if (opset <= 27) return 13;
  return 14;
}

std::string NormalizedDomain(const std::string& domain) {
  return IsDefaultDomain(domain) ? std::string(kDefaultDomain) : domain;
}

std::string DomainForDisplay(const std::string& domain) {
  return IsDefaultDomain(domain) ? std::string(kDefaultDomainAlias) : domain;
}

}  // namespace onnx_legalize
