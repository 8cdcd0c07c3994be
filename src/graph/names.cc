#include "graph/names.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "graph/subgraphs.h"

namespace onnx_legalize {

size_t CountDefinedNames(const onnx::GraphProto& graph) {
  size_t count = static_cast<size_t>(graph.input_size()) + static_cast<size_t>(graph.initializer_size()) +
                 static_cast<size_t>(graph.sparse_initializer_size());
  for (const auto& node : graph.node()) count += static_cast<size_t>(node.output_size());
  return count;
}

std::unordered_set<std::string> DefinedNames(const onnx::GraphProto& graph) {
  std::unordered_set<std::string> names;
  names.reserve(CountDefinedNames(graph));
  for (const auto& value : graph.input()) names.insert(value.name());
  for (const auto& tensor : graph.initializer()) names.insert(tensor.name());
  for (const auto& sparse : graph.sparse_initializer()) names.insert(sparse.values().name());
  for (const auto& node : graph.node()) {
    for (const auto& name : node.output()) names.insert(name);
  }
  return names;
}

void ForEachValueName(const onnx::GraphProto& graph, absl::FunctionRef<void(const std::string&)> visit) {
  for (const auto& value : graph.input()) visit(value.name());
  for (const auto& value : graph.output()) visit(value.name());
  for (const auto& value : graph.value_info()) visit(value.name());
  for (const auto& tensor : graph.initializer()) visit(tensor.name());
  for (const auto& sparse : graph.sparse_initializer()) visit(sparse.values().name());
  for (const auto& node : graph.node()) {
    for (const auto& name : node.input()) visit(name);
    for (const auto& name : node.output()) visit(name);
    ForEachSubgraph(node,
                    [&](const std::string&, const onnx::GraphProto& subgraph) { ForEachValueName(subgraph, visit); });
  }
}

void ForEachReadName(const onnx::GraphProto& graph, absl::FunctionRef<void(const std::string&)> visit) {
  for (const auto& node : graph.node()) {
    for (const auto& name : node.input()) visit(name);
    ForEachSubgraph(node,
                    [&](const std::string&, const onnx::GraphProto& subgraph) { ForEachReadName(subgraph, visit); });
  }
  for (const auto& output : graph.output()) visit(output.name());
}

void FreshNames::Reserve(const std::string& name) {
  if (!name.empty()) taken_.insert(name);
}

void FreshNames::ReserveAll(const onnx::GraphProto& graph) {
  ForEachValueName(graph, [&](const std::string& name) { Reserve(name); });
}

std::string FreshNames::Make(const std::string& base) {
  std::string candidate = base;
  for (int64_t k = 1; taken_.count(candidate) > 0; ++k) candidate = absl::StrCat(base, "_", k);
  taken_.insert(candidate);
  return candidate;
}

}  // namespace onnx_legalize
