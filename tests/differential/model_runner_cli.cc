// Runs a model in the library's model runner (src/eval/model_runner.h) with the file layout of
// tests/ort/run_model.js, so that run_runner_kernels.py can compare the runner with ONNX Runtime:
//
//   model_runner_cli [--as-its-era] MODEL INPUT_DIR OUTPUT_DIR
//
// --as-its-era: the model is first read as the exporters of ONNX's first releases wrote it (era/legacy_repairs.h:
// the implied opset imports, untyped attributes, node order, legacy attributes), and its removed ops run by their
// rules' reference kernels (verify/removed_op_kernels.h): the runner's execution of a legacy original, which
// run_era_models.py compares with ONNX Runtime's execution of the legalized model.
//
// Every *.pb of INPUT_DIR but output_*.pb is a TensorProto feeding the graph input it names;
// OUTPUT_DIR/output_K.pb is the K-th graph output, as TensorToProto encodes it (raw_data). Exit 0 on success,
// 1 when the runner refuses or fails the model (its message on stderr), 2 on a usage or file error.
#include <dirent.h>

#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "core/tensor.h"
#include "era/legacy_repairs.h"
#include "eval/model_runner.h"
#include "graph/opsets.h"
#include "onnx/onnx_pb.h"
#include "verify/removed_op_kernels.h"

namespace {

bool ReadFile(const std::string& path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  bytes = buffer.str();
  return true;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The feeds of INPUT_DIR, or false with a message.
bool ReadFeeds(const std::string& dir, std::map<std::string, onnx_legalize::Tensor>& feeds) {
  DIR* folder = opendir(dir.c_str());
  if (folder == nullptr) {
    std::cerr << "cannot open " << dir << "\n";
    return false;
  }
  bool ok = true;
  while (dirent* entry = readdir(folder)) {
    const std::string name = entry->d_name;
    if (!EndsWith(name, ".pb") || name.rfind("output_", 0) == 0) continue;
    std::string bytes;
    onnx::TensorProto proto;
    if (!ReadFile(dir + "/" + name, bytes) || !proto.ParseFromString(bytes)) {
      std::cerr << "cannot read " << name << "\n";
      ok = false;
      break;
    }
    absl::StatusOr<onnx_legalize::Tensor> tensor = onnx_legalize::TensorFromProto(proto);
    if (!tensor.ok()) {
      std::cerr << name << ": " << tensor.status().message() << "\n";
      ok = false;
      break;
    }
    feeds.emplace(proto.name(), *std::move(tensor));
  }
  closedir(folder);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const bool as_its_era = argc == 5 && std::string(argv[1]) == "--as-its-era";
  if (argc != 4 && !as_its_era) {
    std::cerr << "usage: model_runner_cli [--as-its-era] MODEL INPUT_DIR OUTPUT_DIR\n";
    return 2;
  }
  char** paths = argv + (as_its_era ? 2 : 1);  // MODEL INPUT_DIR OUTPUT_DIR
  std::string bytes;
  onnx::ModelProto model;
  if (!ReadFile(paths[0], bytes) || !model.ParseFromString(bytes)) {
    std::cerr << "cannot read model " << paths[0] << "\n";
    return 2;
  }
  std::optional<onnx_legalize::RemovedOpKernels> removed_ops;
  if (as_its_era) {
    onnx_legalize::LegacyRepairs repairs;
    const absl::Status read = onnx_legalize::ReadAsItsEra(model, repairs);
    if (!read.ok()) {
      std::cerr << read << "\n";
      return 1;
    }
    absl::StatusOr<int64_t> opset = onnx_legalize::DefaultOpset(model);
    if (!opset.ok()) {
      std::cerr << opset.status() << "\n";
      return 1;
    }
    removed_ops.emplace(*opset);
  }
  std::map<std::string, onnx_legalize::Tensor> feeds;
  if (!ReadFeeds(paths[1], feeds)) return 2;
  absl::StatusOr<std::map<std::string, onnx_legalize::Tensor>> outputs =
      onnx_legalize::RunModel(model, feeds, removed_ops.has_value() ? &*removed_ops : nullptr);
  if (!outputs.ok()) {
    std::cerr << outputs.status() << "\n";
    return 1;
  }
  for (int k = 0; k < model.graph().output_size(); ++k) {
    const std::string& name = model.graph().output(k).name();
    auto output = outputs->find(name);
    if (output == outputs->end()) {
      std::cerr << "output '" << name << "' is missing\n";
      return 1;
    }
    const std::string path = std::string(paths[2]) + "/output_" + std::to_string(k) + ".pb";
    std::ofstream out(path, std::ios::binary);
    if (!out || !onnx_legalize::TensorToProto(std::move(output->second), name).SerializeToOstream(&out)) {
      std::cerr << "cannot write " << path << "\n";
      return 2;
    }
  }
  return 0;
}
