// Reading and writing a serialized ModelProto with as few copies of the weights as protobuf allows.
//
// A model's bytes are almost all tensor payloads (TensorProto.raw_data of the main graph's initializers).
// Through protobuf's file streams each payload is copied twice on the way in (kernel -> stream buffer ->
// string, and the string is grown in steps past 50 MB, copying again) and twice on the way out. Here each
// large payload is read straight into a string of its final size, and written straight from it.
#ifndef ONNX_LEGALIZE_SRC_IO_MODEL_FILE_STREAMS_H_
#define ONNX_LEGALIZE_SRC_IO_MODEL_FILE_STREAMS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "eval/deferred_tensor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The sizes that steer ParseModelFromFile. The defaults suit real models; tests and the fuzzer pass tiny
// ones, so that small inputs take every path.
struct FileParseSizes {
  size_t buffer_bytes = size_t{1} << 20;  // the read buffer, and the most one read() moves
  // Main-graph initializers this large are walked field by field, their raw_data read directly.
  uint64_t direct_initializer_bytes = uint64_t{1} << 20;
  // Other records go to protobuf in batches of about this size; a record this large alone, from the file.
  size_t batch_bytes = size_t{4} << 20;
};

// Parses the regular file open at `fd` (at offset 0, `file_size` bytes) into `model`, which must be empty.
// Every field goes through protobuf except the raw_data of large main-graph initializers, which is read
// directly; the result equals protobuf's parse of the same bytes (a message parses as the merge of its
// fields in order). Nested messages parse with `recursion_limit` levels, counted from the ModelProto.
//
// Returns false, with `model` in an unspecified state, on a read error (`*read_errno` set) or when the bytes
// are not a well-formed ModelProto (`*read_errno` 0); the caller then parses again with protobuf's own
// stream for its diagnosis, so malformed input is judged exactly as protobuf judges it.
bool ParseModelFromFile(int fd, int64_t file_size, int recursion_limit, onnx::ModelProto& model, int* read_errno,
                        const FileParseSizes& sizes = {});

// Serializes `model` deterministically to `fd` (at its current position). Large strings go from the
// model to the kernel without passing through a buffer. Returns 0, or the errno of the failed write.
int SerializeModelToFile(const onnx::ModelProto& model, int fd);

// What SerializeModelToFile writes for `model` with the stubs (eval/deferred_tensor.h) of the main-graph
// initializers `deferred` names filled in (raw_data set, data_location cleared), each value computed part
// by part as it is reached and written straight to `fd`, never whole in memory. Returns 0, the errno of a
// failed write, or -1 with `value_failure` set when a value failed (or gave other than its ByteSize()).
int SerializeModelWithDeferredToFile(const onnx::ModelProto& model, const DeferredTensors& deferred, int fd,
                                     absl::Status& value_failure);

// The bytes SerializeModelWithDeferredToFile writes for `model` and `deferred`.
int64_t SerializedSizeWithDeferred(const onnx::ModelProto& model, const DeferredTensors& deferred);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_MODEL_FILE_STREAMS_H_
