#include "eval/model_runner.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/graph_runner.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/registry.h"
#include "eval/kernels/sequence.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "graph/subgraphs.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using graph_runner::DefineMainGraphValues;
using graph_runner::InitializerValue;
using graph_runner::kIfOp;
using graph_runner::kLoopOp;
using graph_runner::MainGraphOutput;
using graph_runner::RunnableOpset;
using graph_runner::Runner;
using graph_runner::Scope;

// The first node of `graph` (or of its subgraphs) that the runner has no kernel for, as "op X (graph P)".
std::optional<std::string> FirstUnsupportedNodeIn(const onnx::GraphProto& graph, const std::string& path, int64_t opset,
                                                  const ExtraKernels* extra) {
  for (const onnx::NodeProto& node : graph.node()) {
    const std::string& op = node.op_type();
    const bool known = (extra != nullptr && extra->Handles(node, opset)) || FindKernel(node.domain(), op) != nullptr ||
                       (IsDefaultDomain(node.domain()) && (op == kIfOp || op == kLoopOp || IsSequenceOp(node)));
    if (!known) {
      return StrCat("op ", op, IsDefaultDomain(node.domain()) ? "" : StrCat(" of domain '", node.domain(), "'"),
                    " (graph ", path, ")");
    }
    std::optional<std::string> inner;
    ForEachSubgraph(node, [&](const std::string& attribute, const onnx::GraphProto& subgraph) {
      if (!inner.has_value()) {
        inner = FirstUnsupportedNodeIn(subgraph, SubgraphPath(path, node, attribute, subgraph), opset, extra);
      }
    });
    if (inner.has_value()) return inner;
  }
  return std::nullopt;
}

// The tensor of `value` for the caller: moved out when nothing else holds it and it owns its bytes, else a copy
// (a view of an initializer's bytes must not outlive the model). Every Value is made by Share, whose tensor
// is not itself const.
Tensor TakeOrCopy(const Value& value) {
  if (value.use_count() == 1 && !value->views_bytes()) return std::move(const_cast<Tensor&>(*value));
  return value->Clone();
}

}  // namespace

std::optional<std::string> FirstUnsupportedNode(const onnx::ModelProto& model, const ExtraKernels* extra) {
  absl::StatusOr<int64_t> opset = RunnableOpset(model);
  if (!opset.ok()) return std::string(opset.status().message());
  return FirstUnsupportedNodeIn(model.graph(), kMainGraphPath, *opset, extra);
}

absl::StatusOr<std::map<std::string, Tensor>> RunModel(const onnx::ModelProto& model,
                                                       const std::map<std::string, Tensor>& inputs,
                                                       const ExtraKernels* extra,
                                                       const InitializersElsewhere& elsewhere, RunMeter* meter) {
  ASSIGN_OR_RETURN(const int64_t opset, RunnableOpset(model));
  const onnx::GraphProto& graph = model.graph();
  Scope scope(kMainGraphPath, nullptr);
  std::map<std::string, Value> fed;
  for (const auto& [name, tensor] : inputs) fed.emplace(name, Share(tensor.Clone()));
  RETURN_IF_ERROR(DefineMainGraphValues(
      graph, fed,
      [&elsewhere](const onnx::TensorProto& initializer) -> absl::StatusOr<Value> {
        ASSIGN_OR_RETURN(Tensor value, InitializerValue(initializer, elsewhere));
        return Share(std::move(value));
      },
      scope));

  const Runner runner(opset, extra, meter);
  RETURN_IF_ERROR(runner.RunNodes(graph, scope));
  std::map<std::string, Tensor> outputs;
  for (const auto& output : graph.output()) {
    ASSIGN_OR_RETURN(const Value value, MainGraphOutput(output.name(), scope));
    if (outputs.count(output.name()) == 0) outputs.emplace(output.name(), TakeOrCopy(value));
  }
  return outputs;
}

}  // namespace onnx_legalize
