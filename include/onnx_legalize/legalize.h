// onnx-legalize: makes legacy ONNX models that hold the experimental operators ONNX 1.5 removed legal again.
//
// Every removed op (DynamicSlice, ImageScaler, Crop, Affine, Scale, ScaledTanh, ParametricSoftplus,
// ThresholdedRelu before opset 10, MeanVarianceNormalization-1, ConstantFill, GivenTensorFill; main graph and
// If/Loop/Scan bodies at any depth) is either folded into an initializer, when its inputs are constants, or
// rewritten into standard ops (DynamicSlice into Slice-10+), with the rest of the model moved to the opset
// they need. Each change is proved by executing both forms and comparing them bit for bit.
//
// Errors are absl::Status values; no exception leaves the library.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/error_kind.h"
#include "onnx_legalize/external_data_reader.h"
#include "onnx_legalize/findings.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/report.h"
#include "onnx_legalize/save_options.h"
#include "onnx_legalize/target_opsets.h"

namespace onnx_legalize {

// Legalizes `model` in place: every op ONNX 1.5 removed (DynamicSlice, ImageScaler, Crop, Affine, ScaledTanh,
// ParametricSoftplus, Scale, ThresholdedRelu before opset 10, MeanVarianceNormalization-1, ConstantFill,
// GivenTensorFill) is folded or replaced by standard ops, and the result has a schema for every node.
// FailedPrecondition, naming every such node, when the model holds ops no one can legalize (ATen, GRUUnit,
// an op onnx never defined). Transactional: on any error `model` is left exactly as it was.
absl::StatusOr<Report> Legalize(onnx::ModelProto& model, const Options& options);

// Reads a model file; NotFound when it does not exist, InvalidArgument naming the path when it is not a
// valid ModelProto (empty, truncated, garbage, a directory, over protobuf's 2 GiB limit); other I/O errors
// carry the code of their errno.
// Tensors stored as external data keep their entries and are not read, but every reference is checked
// (with stat only): its location resolves relative to the model's folder and must stay inside it. An
// absolute location, one that leaves the folder ("..", a symbolic link pointing out), a file that is not
// a regular file, a malformed offset or length, or a range past the end of the file is InvalidArgument;
// a missing file is NotFound; each names the tensor and the path. Nothing outside the folder is read.
absl::StatusOr<onnx::ModelProto> LoadModel(const std::string& path);

// The same, parsed into `*model` (cleared first), which may live on a protobuf Arena: reading many models
// (--check over a repository) then allocates and frees each one's messages in a few blocks. On an error,
// what `*model` holds is unspecified.
absl::Status LoadModelInto(const std::string& path, onnx::ModelProto* model);

// A reader for the external data of the model file at `model_path`: locations resolve against its folder,
// under the rules LoadModel checks, which are checked again on every read (and the file opened must be
// the one checked). Opens nothing until Read. NotFound when the model's folder does not exist.
absl::StatusOr<std::unique_ptr<ExternalDataReader>> OpenExternalData(const std::string& model_path);

// Writes `model` to `path` atomically: a temporary file beside it, fsync'ed, then renamed over it, and the
// folder fsync'ed. On failure the temporary is removed and no file at `path` is created or changed. The
// bytes are deterministic (the same model gives the same file); a replaced file keeps its permissions.
// External data references are written as they are; a model past protobuf's 2 GiB limit is
// ResourceExhausted (the overload below moves weights to a data file instead).
absl::Status SaveModel(const onnx::ModelProto& model, const std::string& path);

// True when both paths exist and name one file, however spelled ("./a" and "a", hard and symbolic links).
bool SameExistingFile(const std::string& a, const std::string& b);

// SaveModel with external data (see SaveOptions). Every file (data files, then the model last) is written
// to a temporary beside its destination, fsync'ed, and renamed only once all are complete; on failure
// every temporary is removed and no destination is created or changed. `model` is changed during the
// call (weights moved out and back, in O(1)) and is exactly as it was on return.
absl::Status SaveModel(onnx::ModelProto& model, const std::string& path, const SaveOptions& options);

// Loads `input_path`, legalizes, verifies and saves to `output_path`; writes nothing on failure.
// External data is read through OpenExternalData(input_path) when a fold needs it (unless
// options.external_data is already set) and saved with `save_options`, whose external_data_folder
// defaults to the input's folder. FailedPrecondition when `output_path` is the input file itself (any
// spelling, link included) and save_options.in_place is not set.
absl::StatusOr<Report> LegalizeFile(const std::string& input_path, const std::string& output_path,
                                    const Options& options, const SaveOptions& save_options = {});

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_
