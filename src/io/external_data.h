// External data references (TensorProto.data_location EXTERNAL) as plain values: every tensor of a model,
// what its external_data entries say, and how to rewrite them. Nothing here touches a file:
// external_folder.h resolves them, model_load.cc reads and model_save.cc writes the files.
//
// onnx.proto: a tensor stored externally has data_location EXTERNAL and external_data entries
//   location  (required) a path relative to the model file's folder
//   offset    (optional) where the bytes start in that file, a decimal integer; 0 when absent
//   length    (optional) how many bytes, a decimal integer; to the end of the file when absent
//   checksum  (optional) SHA1 of the bytes; kept as it is, not verified
// and its bytes are what raw_data would hold.
#ifndef ONNX_LEGALIZE_SRC_IO_EXTERNAL_DATA_H_
#define ONNX_LEGALIZE_SRC_IO_EXTERNAL_DATA_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/external_tensor.h"
#include "graph/external_reference.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Points `tensor` at `length` bytes at `offset` of `location`: data_location EXTERNAL, entries location,
// offset and length (other entries, a checksum among them, are dropped: they described other bytes).
void SetExternalDataRef(onnx::TensorProto& tensor, const std::string& location, int64_t offset, int64_t length);

// Where a tensor sits in a model, for visitors.
struct TensorSite {
  std::string what;             // "initializer 'w' (graph main)", "attribute 'value' of node 'c' (...)"
  bool is_initializer = false;  // a dense initializer of some graph (not sparse, not an attribute)
};

// Calls `visit` for every TensorProto of `model`, in a fixed order: per graph (main graph, then the
// subgraphs of its nodes depth first; model-local functions; training_info graphs) its initializers,
// sparse initializers (values, indices), then node attributes (t, tensors, sparse_tensor(s)).
void ForEachTensor(const onnx::ModelProto& model,
                   const std::function<void(const onnx::TensorProto&, const TensorSite&)>& visit);
void ForEachMutableTensor(onnx::ModelProto& model,
                          const std::function<void(onnx::TensorProto&, const TensorSite&)>& visit);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_EXTERNAL_DATA_H_
