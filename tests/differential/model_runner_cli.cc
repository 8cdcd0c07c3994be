// Runs a model in the library's model runner (src/eval/model_runner.h) with the file layout of
// tests/ort/run_model.js, so that run_runner_kernels.py can compare the runner with ONNX Runtime:
//
//   model_runner_cli [--as-its-era] [--zipmap-scores] MODEL INPUT_DIR OUTPUT_DIR
//
// --as-its-era: the model is first read as the exporters of ONNX's first releases wrote it (era/legacy_repairs.h:
// the implied opset imports, untyped attributes, node order, legacy attributes), and its removed ops run by their
// rules' reference kernels (verify/removed_op_kernels.h): the runner's execution of a legacy original, which
// run_era_models.py compares with ONNX Runtime's execution of the legalized model.
//
// --zipmap-scores: an ai.onnx.ml ZipMap gives its input, the scores, as its output (the runner's values hold no
// sequence of maps): for run_real_models.py's comparison of an original and its result past ONNX Runtime's
// opsets, whose ZipMaps it checks are the same node in both (the move leaves ai.onnx.ml alone).
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

// The removed ops' reference kernels (when the model is read as its era) and, when asked, ZipMap as its scores.
class CliKernels final : public onnx_legalize::ExtraKernels {
 public:
  CliKernels(const onnx_legalize::RemovedOpKernels* removed_ops, bool zipmap_scores)
      : removed_ops_(removed_ops), zipmap_scores_(zipmap_scores) {}
  bool Handles(const onnx::NodeProto& node, int64_t opset) const override {
    return IsZipMap(node) || (removed_ops_ != nullptr && removed_ops_->Handles(node, opset));
  }
  absl::StatusOr<std::vector<onnx_legalize::Tensor>> Run(
      const onnx::NodeProto& node, int64_t opset,
      const std::vector<const onnx_legalize::Tensor*>& inputs) const override {
    if (!IsZipMap(node)) return removed_ops_->Run(node, opset, inputs);
    std::vector<onnx_legalize::Tensor> scores;
    scores.push_back(inputs.at(0)->Clone());
    return scores;
  }

 private:
  bool IsZipMap(const onnx::NodeProto& node) const {
    return zipmap_scores_ && node.op_type() == "ZipMap" && node.domain() == "ai.onnx.ml" && node.input_size() == 1 &&
           node.output_size() == 1;
  }
  const onnx_legalize::RemovedOpKernels* removed_ops_;
  bool zipmap_scores_;
};

}  // namespace

int main(int argc, char** argv) {
  bool as_its_era = false;
  bool zipmap_scores = false;
  int first = 1;
  for (; first < argc && std::string(argv[first]).rfind("--", 0) == 0; ++first) {
    const std::string flag = argv[first];
    if (flag == "--as-its-era") {
      as_its_era = true;
    } else if (flag == "--zipmap-scores") {
      zipmap_scores = true;
    } else {
      break;
    }
  }
  if (argc - first != 3) {
    std::cerr << "usage: model_runner_cli [--as-its-era] [--zipmap-scores] MODEL INPUT_DIR OUTPUT_DIR\n";
    return 2;
  }
  char** paths = argv + first;  // MODEL INPUT_DIR OUTPUT_DIR
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
  const CliKernels kernels(removed_ops.has_value() ? &*removed_ops : nullptr, zipmap_scores);
  std::map<std::string, onnx_legalize::Tensor> feeds;
  if (!ReadFeeds(paths[1], feeds)) return 2;
  absl::StatusOr<std::map<std::string, onnx_legalize::Tensor>> outputs =
      onnx_legalize::RunModel(model, feeds, &kernels);
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
