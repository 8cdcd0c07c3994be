// The internals of loading and saving (model_load.cc, model_save.cc) for tests and LegalizeFile: protobuf's
// 2 GiB limit, past which LoadModel refuses a file and SaveModel moves weights to a data file, which no test
// can fill in memory (tests pass a smaller limit); and a save whose last step waits for a go-ahead.
#ifndef ONNX_LEGALIZE_SRC_IO_MODEL_IO_INTERNAL_H_
#define ONNX_LEGALIZE_SRC_IO_MODEL_IO_INTERNAL_H_

#include <climits>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "eval/deferred_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize::internal {

// protobuf addresses a message with int offsets, so one serialized message cannot exceed INT_MAX bytes
// (2 GiB - 1). Bigger models must keep their weights as external data.
inline constexpr int64_t kMaxProtoBytes = INT_MAX;

// SaveModel(model, path, options), with weights moved to a data file when the model would serialize to
// more than `max_model_bytes` (SaveModel passes protobuf's limit, INT_MAX).
absl::Status SaveModelWithLimit(onnx::ModelProto& model, const std::string& path, const SaveOptions& options,
                                int64_t max_model_bytes);

// SaveModelWithLimit, calling `before_commit` once every file is written and flushed but before any is
// renamed into place: if it fails, nothing is, and its error is returned. LegalizeFile writes the model
// while the proofs of its legalization still run (and read it), and lets it into place only once they hold.
// Until `before_commit` returns the model is only read; where the save must change it (a data file packed,
// deferred values computed into it), `before_commit` is called first (it may be called more than once).
// The main-graph initializers `deferred` names are stubs (eval/deferred_tensor.h): their values are
// computed as the model is written, straight into the file, when the model goes to one file within
// `max_model_bytes`; otherwise (a data file asked for or needed, external data to carry) they are computed
// into the model first. Either way the files are those the filled model would give; a value's error fails
// the save.
absl::Status SaveModelIf(onnx::ModelProto& model, const std::string& path, const SaveOptions& options,
                         int64_t max_model_bytes, const std::function<absl::Status()>& before_commit,
                         const DeferredTensors& deferred = {});

}  // namespace onnx_legalize::internal

#endif  // ONNX_LEGALIZE_SRC_IO_MODEL_IO_INTERNAL_H_
