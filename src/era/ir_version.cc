// A model without an IR version, as the early runtimes' own test models of 2018 were written (the field left
// unset, so 0): the model's imports say its era. A model importing default opset N is written with the lowest
// IR version onnx paired with N (graph/opsets.h's MinIrVersionForOpset: opsets 1-8 are IR 3); one importing
// nothing is read as IR 3, the first IR version with imports, whose missing import opset_imports.cc then reads
// from the nodes. The loader lets such a model in only when it has a graph with a node and an output
// (io/model_load.cc): protobuf parses many byte strings as a message of unknown fields, which is no model.
#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "era/legacy_repairs.h"
#include "graph/op_names.h"
#include "graph/opsets.h"

namespace onnx_legalize {
namespace {

// IR 3 (onnx 1.0-1.3): the first with opset imports, and the one a model of opsets 1-8 needs.
constexpr int64_t kFirstIrWithImports = 3;

}  // namespace

absl::Status RepairIrVersion(onnx::ModelProto& model, LegacyRepairs& repairs) {
  if (model.ir_version() != 0) return absl::OkStatus();
  int64_t ir_version = kFirstIrWithImports;
  std::string why = "it imports no default-domain opset: read as IR 3, the first with opset imports";
  for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
    if (!IsDefaultDomain(import.domain()) || import.version() < 1) continue;
    ir_version = std::max(ir_version, MinIrVersionForOpset(import.version()));
    why = absl::StrCat("the lowest IR version that imports default opset ", import.version());
  }
  // Undone as it was: unset, or written as 0 (a failed legalization leaves the caller's bytes as they were).
  const bool written = model.has_ir_version();
  model.set_ir_version(ir_version);
  repairs.Add(LegacyRepair{"", "", "", absl::StrCat("no ir_version: written as ", ir_version, ", ", why)},
              [&model, written] {
                model.clear_ir_version();
                if (written) model.set_ir_version(0);
              });
  return absl::OkStatus();
}

}  // namespace onnx_legalize
