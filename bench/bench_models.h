// The benchmark's models, built in memory (issue 4, "A benchmark in the repository").
//
//   scenario 1  opset 9: a chain of DynamicSlice nodes whose data, starts and ends are computed at run time
//               (half of them with constant axes), each followed by a Relu, plus large weights that have
//               nothing to do with them (each read by one MatMul).
//   scenario 2  opset 9: eight 64 MiB float weights [4096, 4096] and 64 DynamicSlice nodes over them with
//               constant indices, each folding to a 16 MiB tensor [1024, 4096].
//   scenario 3  scenario 1 with its weights in an external file (data_location EXTERNAL).
//   scenario 6  opset 9: an image classifier of real size (issue 24): four Conv + BatchNormalization + Relu +
//               MaxPool blocks (3 -> 32 -> 64 -> 128 -> 256 channels, 224 -> 14 pixels) and a Gemm to 10
//               classes, on a 1x3x224x224 image; about 0.74 G multiply-adds per inference.
#ifndef ONNX_LEGALIZE_BENCH_BENCH_MODELS_H_
#define ONNX_LEGALIZE_BENCH_BENCH_MODELS_H_

#include <cstdint>
#include <string>

#include "onnx/onnx_pb.h"

namespace onnx_legalize::bench {

// One weight of scenarios 1 and 3: float [4096, 4096], 64 MiB.
inline constexpr int64_t kWeightDim = 4096;
inline constexpr int64_t kWeightBytes = kWeightDim * kWeightDim * 4;

// Scenario 1 with `dynamic_slices` DynamicSlice nodes and `weights` weights of kWeightBytes.
// `weight_dim` shrinks the weights (for the pass timer, which measures the pass, not I/O).
onnx::ModelProto BuildDynamicChain(int64_t dynamic_slices, int64_t weights, int64_t weight_dim = kWeightDim);

// Scenario 2: `weights` weights of kWeightBytes, `slices_per_weight` constant DynamicSlices over each.
onnx::ModelProto BuildConstantFolds(int64_t weights = 8, int64_t slices_per_weight = 8);

// Scenario 6: the image classifier, with weights scaled by their fan-in so that activations stay finite.
onnx::ModelProto BuildImageCnn();

// Scenario 3: moves every initializer of `model` larger than 4 KiB to the file `data_file_name` in
// `folder` (one after the other, each at an offset aligned to 4 KiB), leaving an EXTERNAL reference
// (location, offset, length) behind. Returns false and fills `error` when the file cannot be written.
bool MoveWeightsToExternalFile(onnx::ModelProto& model, const std::string& folder, const std::string& data_file_name,
                               std::string* error);

// Writes `model` to `path` (streamed, no whole-file copy); false and `error` on failure.
bool WriteModel(const onnx::ModelProto& model, const std::string& path, std::string* error);

}  // namespace onnx_legalize::bench

#endif  // ONNX_LEGALIZE_BENCH_BENCH_MODELS_H_
