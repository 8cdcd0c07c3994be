// What a tensor stored as external data (TensorProto.data_location EXTERNAL) says of where its bytes are, read
// and checked as far as that can be without a file: every model is checked so before it is legalized, in memory
// (Legalize, Python's legalize()) as from a file. io/external_folder.h resolves a location against the model's
// folder, io/model_load.cc reads the bytes.
//
// onnx.proto: a tensor stored externally has external_data entries
//   location  (required) a path relative to the model file's folder
//   offset    (optional) where the bytes start in that file, a decimal integer; 0 when absent
//   length    (optional) how many bytes, a decimal integer; to the end of the file when absent
//   checksum  (optional) SHA1 of the bytes; kept as it is, not verified
#ifndef ONNX_LEGALIZE_SRC_GRAPH_EXTERNAL_REFERENCE_H_
#define ONNX_LEGALIZE_SRC_GRAPH_EXTERNAL_REFERENCE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

inline constexpr char kLocationKey[] = "location";
inline constexpr char kOffsetKey[] = "offset";
inline constexpr char kLengthKey[] = "length";

struct ExternalDataRef {
  std::string location;
  int64_t offset = 0;
  std::optional<int64_t> length;  // nullopt: to the end of the file
};

// The reference of `tensor` (which must be stored externally). InvalidArgument, starting with `what`, when
// location is missing or empty, holds a NUL byte, is absolute ("/dev/zero") or leaves the model's folder
// ("../secrets.bin", "a/../../b"), a key appears twice, or offset or length is not a non-negative decimal
// integer that fits int64. Where the location leads once symbolic links are followed is the folder's to check.
absl::StatusOr<ExternalDataRef> ParseExternalDataRef(const onnx::TensorProto& tensor, absl::string_view what);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_EXTERNAL_REFERENCE_H_
