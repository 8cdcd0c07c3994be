// Nodes put in topological order. ONNX has always required it, but WinMLTools 0.1 listed some nodes after the
// nodes that read them (Custom Vision's 2018 classifiers: a MaxPool before the LegacyPadding that feeds it),
// and the Windows ML preview sorted them itself. The sort is stable: Kahn's algorithm taking, of the nodes
// ready, always the one listed first, so nodes already in order keep it. Graphs whose nodes form a cycle are
// left as they are (validation names the problem).
#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "era/era_walk.h"
#include "era/legacy_repairs.h"
#include "graph/names.h"
#include "graph/subgraphs.h"

namespace onnx_legalize {
namespace {

// The names `node` reads: its inputs, and what its subgraphs read (a superset of what they capture).
std::vector<std::string> NamesRead(const onnx::NodeProto& node) {
  std::vector<std::string> names(node.input().begin(), node.input().end());
  ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
    ForEachReadName(subgraph, [&](const std::string& name) { names.push_back(name); });
  });
  return names;
}

// A stable topological order of `graph`'s nodes (indices), or empty when they form a cycle.
std::vector<int> StableTopologicalOrder(const onnx::GraphProto& graph) {
  const int count = graph.node_size();
  std::unordered_map<std::string, int> producer;
  for (int index = 0; index < count; ++index) {
    for (const std::string& output : graph.node(index).output()) {
      if (!output.empty()) producer.emplace(output, index);
    }
  }
  std::vector<std::vector<int>> readers(static_cast<size_t>(count));
  std::vector<int> waiting_on(static_cast<size_t>(count), 0);
  for (int index = 0; index < count; ++index) {
    std::vector<int> producers;
    for (const std::string& name : NamesRead(graph.node(index))) {
      auto it = producer.find(name);
      if (it != producer.end() && it->second != index) producers.push_back(it->second);
    }
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
    for (int from : producers) readers[static_cast<size_t>(from)].push_back(index);
    waiting_on[static_cast<size_t>(index)] = static_cast<int>(producers.size());
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int index = 0; index < count; ++index) {
    if (waiting_on[static_cast<size_t>(index)] == 0) ready.push(index);
  }
  std::vector<int> order;
  order.reserve(static_cast<size_t>(count));
  while (!ready.empty()) {
    const int next = ready.top();
    ready.pop();
    order.push_back(next);
    for (int reader : readers[static_cast<size_t>(next)]) {
      if (--waiting_on[static_cast<size_t>(reader)] == 0) ready.push(reader);
    }
  }
  if (static_cast<int>(order.size()) != count) order.clear();
  return order;
}

// Rearranges `graph`'s nodes so that position i holds the node that was at order[i]. Only pointers move: each
// node stays the object it was.
void Rearrange(onnx::GraphProto& graph, const std::vector<int>& order) {
  const size_t count = order.size();
  std::vector<int> position_of(count), node_at(count);  // by original index; by current position
  for (size_t i = 0; i < count; ++i) position_of[i] = node_at[i] = static_cast<int>(i);
  for (size_t target = 0; target < count; ++target) {
    const int wanted = order[target];
    const int from = position_of[static_cast<size_t>(wanted)];
    if (from == static_cast<int>(target)) continue;
    graph.mutable_node()->SwapElements(static_cast<int>(target), from);
    const int displaced = node_at[target];
    node_at[target] = wanted;
    node_at[static_cast<size_t>(from)] = displaced;
    position_of[static_cast<size_t>(wanted)] = static_cast<int>(target);
    position_of[static_cast<size_t>(displaced)] = from;
  }
}

}  // namespace

void SortNodesTopologically(onnx::ModelProto& model, LegacyRepairs& repairs) {
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    const std::vector<int> order = StableTopologicalOrder(graph);
    int moved = 0;
    for (size_t i = 0; i < order.size(); ++i) moved += order[i] != static_cast<int>(i) ? 1 : 0;
    if (moved == 0) return;
    Rearrange(graph, order);
    std::vector<int> back(order.size());  // the inverse: where each original node went
    for (size_t i = 0; i < order.size(); ++i) back[static_cast<size_t>(order[i])] = static_cast<int>(i);
    repairs.Add(LegacyRepair{path, "", "",
                             absl::StrCat("nodes listed out of topological order, sorted (", moved, " of ",
                                          order.size(), " moved; the others keep their order)")},
                [&graph, back] { Rearrange(graph, back); });
  });
}

}  // namespace onnx_legalize
