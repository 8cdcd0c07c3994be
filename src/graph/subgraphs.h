// The graphs a node holds (If's branches, Loop's and Scan's bodies, any GRAPH or GRAPHS attribute), and how
// messages and reports name them: by their path from the main graph.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_SUBGRAPHS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_SUBGRAPHS_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Calls `visit(attribute_name, subgraph)` for every subgraph attribute of `node` (GRAPH and GRAPHS).
// Called for every node of every walk: a FunctionRef, unlike a std::function, costs no allocation.
void ForEachSubgraph(const onnx::NodeProto& node,
                     absl::FunctionRef<void(const std::string&, const onnx::GraphProto&)> visit);
void ForEachMutableSubgraph(onnx::NodeProto& node,
                            absl::FunctionRef<void(const std::string&, onnx::GraphProto&)> visit);

// Whether `node` holds a subgraph (a GRAPH or GRAPHS attribute, even an empty list of graphs).
bool HoldsSubgraph(const onnx::NodeProto& node);

// The path of the main graph in reports and messages.
inline constexpr char kMainGraphPath[] = "main";

// The path segment a subgraph adds: the graph's own name when it has one, else "<node>.<attribute>".
std::string SubgraphPathSegment(const onnx::NodeProto& node, const std::string& attribute,
                                const onnx::GraphProto& subgraph);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_SUBGRAPHS_H_
