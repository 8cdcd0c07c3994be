// libFuzzer target: bytes -> ModelProto -> Legalize (plan, verify, onnx's shape inference, version
// converter and checker, apply) -> serialize -> parse -> Legalize again; CheckModel and the JSON report on
// the way. Built and run by fuzz/run.sh.
//
// Beyond "no crash, no sanitizer report, no exception" it checks the library's promises:
//  - a failed Legalize leaves the model byte for byte as it was (Legalize is transactional);
//  - a legalized model holds no DynamicSlice in any graph, serializes, parses back to the same bytes, and
//    legalizing it again succeeds and changes nothing (README: "legalizing a legalized model changes
//    nothing").
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "graph/graph_scope.h"
#include "graph/op_names.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace {

using onnx_legalize::Options;

using onnx_legalize::fuzz::Require;
using onnx_legalize::fuzz::Serialize;

bool HoldsDynamicSlice(const onnx::GraphProto& graph) {
  for (const onnx::NodeProto& node : graph.node()) {
    if (node.op_type() == onnx_legalize::kDynamicSliceOp && onnx_legalize::IsDefaultDomain(node.domain())) {
      return true;
    }
    bool inside = false;
    onnx_legalize::ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      inside = inside || HoldsDynamicSlice(subgraph);
    });
    if (inside) return true;
  }
  return false;
}

// The options an input is legalized with: picked from its size, so every input keeps one meaning (a crash
// reproduces from the file alone) while the corpus as a whole exercises the policies the CLI offers.
Options OptionsFor(size_t size) {
  Options options;
  options.verify_trials = 4;
  // The proofs' work bounded to about a second under the sanitizers (the default budget is minutes of work, and
  // one input may try several targets): past it a proof is "not executed", a path worth fuzzing too.
  options.proof_budget = int64_t{1} << 28;
  switch (size % 4) {
    case 0: break;  // the CLI's defaults
    case 1: options.keep_opset = true; break;
    case 2:
      options.target_opset = 13;
      options.max_fold_bytes = 16;  // most folds become rewrites
      break;
    case 3: options.verify = false; break;
  }
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) return 0;

  // --check's path: must answer (or refuse) for anything that parses.
  (void)onnx_legalize::CheckModel(model);

  const Options options = OptionsFor(size);
  const std::string before = Serialize(model);
  absl::StatusOr<onnx_legalize::Report> report = onnx_legalize::Legalize(model, options);
  if (!report.ok()) {
    Require(!report.status().message().empty(), "an error without a message");
    Require(Serialize(model) == before, "a failed Legalize changed the model", std::string(report.status().message()));
    return 0;
  }
  (void)onnx_legalize::ReportToJson(*report);
  Require(!HoldsDynamicSlice(model.graph()), "a legalized model still holds a DynamicSlice");

  const std::string legalized = Serialize(model);
  onnx::ModelProto reparsed;
  Require(reparsed.ParseFromString(legalized), "the legalized model does not parse back");
  Require(Serialize(reparsed) == legalized, "the legalized model does not serialize back to its bytes");

  absl::StatusOr<onnx_legalize::Report> again = onnx_legalize::Legalize(reparsed, options);
  Require(again.ok(), "legalizing a legalized model failed", again.ok() ? "" : std::string(again.status().message()));
  Require(!again->changed && Serialize(reparsed) == legalized, "legalizing a legalized model changed it");
  return 0;
}
