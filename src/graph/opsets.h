// The opsets a model (or a function) imports, read one way for the whole library: the driver, the planners,
// the opset upgrade, the model runner, the validation of a model's nodes, the check and its policy.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_OPSETS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_OPSETS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Domain -> opset version. The default domain's two spellings ("" and "ai.onnx") are one key, "".
using OpsetImports = std::map<std::string, int64_t>;

// The imports of a model or a function; `importer` names it in messages ("the model", "function 'f'").
// InvalidArgument for a version below 1, or a domain imported twice at different versions (twice at one
// version is harmless).
absl::StatusOr<OpsetImports> ReadOpsetImports(
    const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports, absl::string_view importer);

// A model's imports as ReadOpsetImports reads them, and for a model of IR version 1 or 2 without any, the
// default domain at opset 1, which those versions implied (they had no opset_import).
absl::StatusOr<OpsetImports> ModelOpsetImports(const onnx::ModelProto& model);

// The version `model` imports for the default domain. As ReadOpsetImports, and InvalidArgument when it
// imports none: Legalize rewrites that import, so it must be there (an IR 1 or 2 model that only implies
// it is refused).
absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model);

// The lowest IR version that a model importing default opset `opset` needs, as onnx's releases paired them
// (3 for <=8, 4 for 9, 5 for 10, 6 for 11, 7 for 12-14, 8 for 15-18, 9 for 19-20, 10 from 21).
int64_t MinIrVersionForOpset(int64_t opset);

// `domain` as OpsetImports keys it: "" for either spelling of the default domain.
std::string NormalizedDomain(const std::string& domain);

// The default domain's name in messages: "ai.onnx" (its empty name reads badly); other domains as they are.
std::string DomainForDisplay(const std::string& domain);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_OPSETS_H_
