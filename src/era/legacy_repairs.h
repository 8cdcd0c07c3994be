// Reading a model the way the exporters and runtimes of ONNX's first releases (2017-2018) read it, and writing
// what they left implicit as onnx reads it today: the first stage of legalizing and of --check, before a model
// is validated. Only what those exporters wrote and onnx 1.12 refuses is touched:
//  - the IR version: the early runtimes' test models left it out; the imports say which it is;
//  - opset imports: IR 1 and 2 had none and meant the default domain at opset 1; WinMLTools 0.1 wrote IR 3
//    models with none at all, or with the default domain twice (at 1 and 2);
//  - attribute types: IR 1 exporters (PyTorch 0.2) wrote attributes without their type field;
//  - node order: WinMLTools 0.1 listed some nodes after the nodes that read them;
//  - declarations: a graph without a name (onnx's checker requires one); a ZipMap's output declared as the map
//    its exporter thought of (WinMLTools 0.1, OnnxMLTools 1.2), where ZipMap makes a sequence of maps;
//  - declarations (2): a single-layer RNN's, GRU's or LSTM's Y declared without its num_directions axis (PyTorch
//    0.3) where no node reads it;
//  - legacy attributes: the Caffe2-era flags a schema omits or requires (BatchNormalization-1's required
//    consumed_inputs, which exporters left out; InstanceNormalization's is_test and spatial).
// What no runtime of today can run and no one step repairs is refused: recurrent weights of rank 2 (PyTorch 0.3).
// Each repair is recorded with how to take it back, so that Legalize stays transactional.
#ifndef ONNX_LEGALIZE_SRC_ERA_LEGACY_REPAIRS_H_
#define ONNX_LEGALIZE_SRC_ERA_LEGACY_REPAIRS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/report.h"

namespace onnx_legalize {

// One repair: where it was made and what it was, in a few words.
struct LegacyRepair {
  std::string graph_path;  // "" for a repair of the model itself (its opset imports)
  std::string op_type;     // of the node repaired; "" for a graph or the model
  std::string node_name;
  std::string what;  // "consumed_inputs, which BatchNormalization-1 requires and exporters left out, written as ..."
  // For a graph output whose declared type was written anew: the output, its old and its new type.
  std::optional<InterfaceChange> interface_change = std::nullopt;
};

// The repairs made to one model, and how to take each back.
class LegacyRepairs {
 public:
  // Records `repair`, which `undo` takes back (it may hold pointers into the model: the model's objects must
  // stay where they are until Undo or Keep).
  void Add(LegacyRepair repair, std::function<void()> undo);

  const std::vector<LegacyRepair>& repairs() const { return repairs_; }
  bool empty() const { return repairs_.empty(); }

  // Each repair in a line of text: "BatchNormalization 'bn1' (graph main): consumed_inputs ...", but those of a
  // graph output's type, which InterfaceChanges lists.
  std::vector<std::string> Describe() const;

  // The graph outputs whose declared types were written anew, in the order of the repairs.
  std::vector<InterfaceChange> InterfaceChanges() const;

  // Takes every repair back, the last first; the model is then as it was read.
  void Undo();

  // Moves `other`'s repairs after these.
  void Absorb(LegacyRepairs&& other);

 private:
  std::vector<LegacyRepair> repairs_;
  std::vector<std::function<void()>> undo_;
};

// Repairs `model` as the header says, recording each repair in `repairs`. InvalidArgument, naming the node and
// the attribute or import, for what no reading of its era makes sense of (an attribute that sets two value
// fields, nodes that fit no opset); `model` is then as it was. A graph whose nodes form a cycle or read a
// name nothing defines is left in its order: validation names the problem.
absl::Status ReadAsItsEra(onnx::ModelProto& model, LegacyRepairs& repairs);

// The steps of ReadAsItsEra, in the order it runs them (each file of era/ holds one).
absl::Status RepairIrVersion(onnx::ModelProto& model, LegacyRepairs& repairs);         // ir_version.cc
absl::Status RepairOpsetImports(onnx::ModelProto& model, LegacyRepairs& repairs);      // opset_imports.cc
absl::Status RecoverAttributeTypes(onnx::ModelProto& model, LegacyRepairs& repairs);   // attribute_types.cc
absl::Status RepairLegacyAttributes(onnx::ModelProto& model, LegacyRepairs& repairs);  // legacy_attributes.cc
absl::Status CheckRecurrentWeightRanks(onnx::ModelProto& model);                       // recurrent_weights.cc
void SortNodesTopologically(onnx::ModelProto& model, LegacyRepairs& repairs);          // topological_order.cc
void RepairDeclarations(onnx::ModelProto& model, LegacyRepairs& repairs);              // declarations.cc

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_ERA_LEGACY_REPAIRS_H_
