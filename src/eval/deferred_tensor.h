// Tensor values computed while they are written, part by part, instead of being held whole in memory.
//
// LegalizeFile folds large constants this way: a model whose folds add a gigabyte would otherwise hold that
// gigabyte beside its own weights until the output is written. A deferred value exists whole only in the
// output file; the model holds a stub in its place (an initializer with the value's name, type and dims,
// data_location EXTERNAL and no location), and the writer asks the value for its bytes as it reaches it
// (io/model_file_streams.h).
#ifndef ONNX_LEGALIZE_SRC_EVAL_DEFERRED_TENSOR_H_
#define ONNX_LEGALIZE_SRC_EVAL_DEFERRED_TENSOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Receives the bytes of a deferred value, one part after the other; an error stops the writing.
using ByteSink = std::function<absl::Status(absl::string_view bytes)>;

class DeferredTensor {
 public:
  virtual ~DeferredTensor() = default;

  // Its element type (never STRING: a deferred value has raw bytes) and dims.
  virtual DataType type() const = 0;
  virtual const std::vector<int64_t>& dims() const = 0;

  // Hands its raw bytes (core/tensor.h's layout) to `sink` in order, in parts of bounded size, computing
  // each part as it goes; the first error (its own, or sink's) ends it and is returned. Each call computes
  // the value again.
  virtual absl::Status WriteTo(const ByteSink& sink) const = 0;

  // The number of bytes WriteTo hands over.
  int64_t ByteSize() const;
};

// Deferred values of main-graph initializers, by initializer name.
using DeferredTensors = std::map<std::string, std::shared_ptr<const DeferredTensor>>;

// Whether `tensor` is the stub of a deferred value: marked as external data, with no location.
bool IsDeferredStub(const onnx::TensorProto& tensor);

// Fills each stub of `model`'s main graph that `deferred` names with its value (raw_data, data_location
// unset), for a writer that cannot stream it. Its first error leaves the model with some stubs filled.
absl::Status MaterializeDeferred(const DeferredTensors& deferred, onnx::ModelProto& model);

// Calls `part` for consecutive parts of a row-major tensor of `dims` (elements of `element_size` bytes) that
// tile it in order, each a box of at most `max_part_bytes` (or one element, when that is more), given as an
// offset and a size per axis; returns the first error `part` returns. Nothing is called for an empty tensor.
absl::Status ForEachRowMajorPart(
    const std::vector<int64_t>& dims, int64_t element_size, int64_t max_part_bytes,
    const std::function<absl::Status(const std::vector<int64_t>& offset, const std::vector<int64_t>& size)>& part);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_DEFERRED_TENSOR_H_
