#include "era/legacy_repairs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/labels.h"

namespace onnx_legalize {

void LegacyRepairs::Add(LegacyRepair repair, std::function<void()> undo) {
  repairs_.push_back(std::move(repair));
  undo_.push_back(std::move(undo));
}

std::vector<std::string> LegacyRepairs::Describe() const {
  std::vector<std::string> lines;
  for (const LegacyRepair& repair : repairs_) {
    if (repair.interface_change.has_value()) continue;
    if (repair.graph_path.empty()) {
      lines.push_back(absl::StrCat("the model: ", repair.what));
    } else if (repair.op_type.empty()) {
      lines.push_back(absl::StrCat("graph ", repair.graph_path, ": ", repair.what));
    } else {
      lines.push_back(
          absl::StrCat(InGraph(NodeLabel(repair.op_type, repair.node_name, ""), repair.graph_path), ": ", repair.what));
    }
  }
  return lines;
}

std::vector<InterfaceChange> LegacyRepairs::InterfaceChanges() const {
  std::vector<InterfaceChange> changes;
  for (const LegacyRepair& repair : repairs_) {
    if (repair.interface_change.has_value()) changes.push_back(*repair.interface_change);
  }
  return changes;
}

void LegacyRepairs::Undo() {
  for (auto undo = undo_.rbegin(); undo != undo_.rend(); ++undo) (*undo)();
  undo_.clear();
  repairs_.clear();
}

void LegacyRepairs::Absorb(LegacyRepairs&& other) {
  for (size_t i = 0; i < other.repairs_.size(); ++i) Add(std::move(other.repairs_[i]), std::move(other.undo_[i]));
  other.repairs_.clear();
  other.undo_.clear();
}

absl::Status ReadAsItsEra(onnx::ModelProto& model, LegacyRepairs& repairs) {
  LegacyRepairs made;
  absl::Status read = RepairIrVersion(model, made);
  if (read.ok()) read = RepairOpsetImports(model, made);
  if (read.ok()) read = RecoverAttributeTypes(model, made);
  if (read.ok()) read = RepairLegacyAttributes(model, made);
  if (read.ok()) read = CheckRecurrentWeightRanks(model);
  if (!read.ok()) {
    made.Undo();
    return read;
  }
  SortNodesTopologically(model, made);
  RepairDeclarations(model, made);
  repairs.Absorb(std::move(made));
  return absl::OkStatus();
}

}  // namespace onnx_legalize
