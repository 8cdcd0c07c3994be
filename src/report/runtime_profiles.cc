// The runtime profiles of `--check --runtime=NAME`: ONNX Runtime releases as OpsetPolicy, each the range of default
// opsets and the highest IR version the release loads.
//
// Sources:
//   - The floor: ONNX Runtime's compatibility page (onnxruntime.ai/docs/reference/compatibility.html, "ONNX opset
//     support"): "All versions of ONNX Runtime support ONNX opsets from ONNX v1.2.1+ (opset version 7 and higher)".
//   - The ceilings: the same page's table of releases, opset and IR versions (microsoft/onnxruntime, gh-pages,
//     docs/reference/compatibility.md), each measured here as well: the release, installed from npm
//     (onnxruntime-node, whose tarballs for 1.10.0 to 1.21.1 ship their Linux binaries) or PyPI (onnxruntime 1.15.1
//     and 1.31.1, the oldest and the newest wheels for this machine's Python 3.11), loaded one-Relu models at every
//     opset and IR version, and the highest of each it accepted is what is written below
//     (tests/differential/run_max_opset_gate.py probes them so before every run). Where the two differ, the
//     measurement is written: ORT 1.15 loads IR 9 (the table says 8). 1.21 and 1.31 are past the table.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "onnx_legalize/check_report.h"

namespace onnx_legalize {
namespace {

struct RuntimeLimits {
  const char* name;
  int64_t max_opset;
  int64_t max_ir_version;
};

constexpr int64_t kOnnxRuntimeMinOpset = 7;

constexpr RuntimeLimits kRuntimes[] = {
    {"onnxruntime-1.10", 15, 8},  {"onnxruntime-1.11", 16, 8},  {"onnxruntime-1.12", 17, 8},
    {"onnxruntime-1.13", 17, 8},  {"onnxruntime-1.14", 18, 8},  {"onnxruntime-1.15", 19, 9},
    {"onnxruntime-1.16", 19, 9},  {"onnxruntime-1.17", 20, 9},  {"onnxruntime-1.18", 21, 10},
    {"onnxruntime-1.19", 21, 10}, {"onnxruntime-1.20", 21, 10}, {"onnxruntime-1.21", 22, 10},
    {"onnxruntime-1.31", 26, 13},
};

}  // namespace

std::optional<OpsetPolicy> RuntimeProfile(absl::string_view name) {
  for (const RuntimeLimits& runtime : kRuntimes) {
    if (name == runtime.name) return OpsetPolicy{kOnnxRuntimeMinOpset, runtime.max_opset, runtime.max_ir_version};
  }
  return std::nullopt;
}

std::vector<std::string> RuntimeProfileNames() {
  std::vector<std::string> names;
  for (const RuntimeLimits& runtime : kRuntimes) names.emplace_back(runtime.name);
  return names;
}

}  // namespace onnx_legalize
