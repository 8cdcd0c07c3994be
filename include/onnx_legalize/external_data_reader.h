// The interface the library reads tensors stored as external data through, in a header of its own: the
// stages that only hold a reader (graph/'s scopes decode constants through one) need no file and no entry
// point. io/ implements it for a model file (OpenExternalData, legalize.h).
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_EXTERNAL_DATA_READER_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_EXTERNAL_DATA_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Reads the bytes of tensors stored as external data (data_location EXTERNAL; the external_data keys
// location, offset and length say where). OpenExternalData gives one for a model file; tests and callers
// with their own storage implement it.
class ExternalDataReader {
 public:
  virtual ~ExternalDataReader() = default;
  // `tensor`'s external bytes: exactly what its raw_data would hold. Errors name the tensor and the file.
  virtual absl::StatusOr<std::string> Read(const onnx::TensorProto& tensor) const = 0;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_EXTERNAL_DATA_READER_H_
