// Runs a model in the library's model runner (src/eval/model_runner.h) with the file layout of
// tests/ort/run_model.js, so that run_runner_kernels.py can compare the runner with ONNX Runtime:
//
//   model_runner_cli MODEL INPUT_DIR OUTPUT_DIR
//
// Every *.pb of INPUT_DIR but output_*.pb is a TensorProto feeding the graph input it names;
// OUTPUT_DIR/output_K.pb is the K-th graph output, as TensorToProto encodes it (raw_data). Exit 0 on success,
// 1 when the runner refuses or fails the model (its message on stderr), 2 on a usage or file error.
#include <dirent.h>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "eval/model_runner.h"
#include "eval/tensor.h"
#include "onnx/onnx_pb.h"

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
  if (argc != 4) {
    std::cerr << "usage: model_runner_cli MODEL INPUT_DIR OUTPUT_DIR\n";
    return 2;
  }
  std::string bytes;
  onnx::ModelProto model;
  if (!ReadFile(argv[1], bytes) || !model.ParseFromString(bytes)) {
    std::cerr << "cannot read model " << argv[1] << "\n";
    return 2;
  }
  std::map<std::string, onnx_legalize::Tensor> feeds;
  if (!ReadFeeds(argv[2], feeds)) return 2;
  absl::StatusOr<std::map<std::string, onnx_legalize::Tensor>> outputs = onnx_legalize::RunModel(model, feeds);
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
    const std::string path = std::string(argv[3]) + "/output_" + std::to_string(k) + ".pb";
    std::ofstream out(path, std::ios::binary);
    if (!out || !onnx_legalize::TensorToProto(std::move(output->second), name).SerializeToOstream(&out)) {
      std::cerr << "cannot write " << path << "\n";
      return 2;
    }
  }
  return 0;
}
