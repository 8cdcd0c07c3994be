// The names of a model's graphs, collected one way for every part of the tool: what a graph and its
// subgraphs name, what they read, and new names that collide with none of them.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_NAMES_H_
#define ONNX_LEGALIZE_SRC_GRAPH_NAMES_H_

#include <cstddef>
#include <string>
#include <unordered_set>

#include "absl/functional/function_ref.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// How many names `graph` itself defines, counting repeats: its inputs, initializers (dense and sparse) and
// node outputs. What a table of them reserves: a table of tens of thousands of names that grows as it is
// filled rehashes every name several times, and that costs more than the walk that fills it.
size_t CountDefinedNames(const onnx::GraphProto& graph);

// The names `graph` itself defines (not its subgraphs): its inputs, initializers (dense and sparse) and node outputs.
// What a subgraph reads and does not define it captures from an enclosing graph.
std::unordered_set<std::string> DefinedNames(const onnx::GraphProto& graph);

// Calls `visit` for every value name `graph` and its subgraphs mention: inputs, outputs, value_info,
// initializers (dense and sparse), node inputs and outputs. A name may come more than once; "" (an omitted
// optional input) too.
void ForEachValueName(const onnx::GraphProto& graph, absl::FunctionRef<void(const std::string&)> visit);

// Calls `visit` for every name `graph` and its subgraphs read: node inputs and graph outputs. For a
// subgraph, a superset of the outer values it captures.
void ForEachReadName(const onnx::GraphProto& graph, absl::FunctionRef<void(const std::string&)> visit);

// Hands out value names that occur nowhere in what was reserved and were not handed out before: `base`,
// else "<base>_1", "<base>_2", ...
class FreshNames {
 public:
  void Reserve(const std::string& name);
  // Reserves every name ForEachValueName finds in `graph`.
  void ReserveAll(const onnx::GraphProto& graph);
  std::string Make(const std::string& base);

 private:
  std::unordered_set<std::string> taken_;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_NAMES_H_
