// Whether a tensor's bytes are stored outside the model (TensorProto.data_location EXTERNAL): a property of the
// proto alone, asked by graph/'s scopes (such a constant is read through an ExternalDataReader, if at all)
// and by io/, which resolves, reads and writes the files (io/external_data.h).
#ifndef ONNX_LEGALIZE_SRC_CORE_EXTERNAL_TENSOR_H_
#define ONNX_LEGALIZE_SRC_CORE_EXTERNAL_TENSOR_H_

#include "onnx/onnx_pb.h"

namespace onnx_legalize {

inline bool IsExternal(const onnx::TensorProto& tensor) {
  return tensor.data_location() == onnx::TensorProto::EXTERNAL;
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_CORE_EXTERNAL_TENSOR_H_
