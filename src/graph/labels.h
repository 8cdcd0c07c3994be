// How messages and reports name the parts of a model, one way for the whole tool: a graph by its path from
// "main" (a subgraph adds its own name, or "<node>.<attribute>" when it has none: SubgraphPathSegment), a
// node by its op type and name, or by the output it produces, and placed in its graph:
// "Relu 'conv1_relu' (graph main/loop_body)".
#ifndef ONNX_LEGALIZE_SRC_GRAPH_LABELS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_LABELS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// "Relu 'name'", or "Relu producing 'output'" for an unnamed node, or "Relu (unnamed)".
std::string NodeLabel(absl::string_view op_type, absl::string_view name, absl::string_view first_output);
std::string NodeLabel(const onnx::NodeProto& node);

// "Relu 'name'", or "Relu node #3" (its index in its graph). For the checks of a model not yet known to be
// well formed, where an output may be defined twice and so name no node for sure.
std::string NodeLabelAt(const onnx::NodeProto& node, int index);

// "<what> (graph <path>)".
std::string InGraph(absl::string_view what, absl::string_view graph_path);

// The path of `subgraph`, which attribute `attribute` of `node` (in the graph at `path`) holds.
std::string SubgraphPath(absl::string_view path, const onnx::NodeProto& node, const std::string& attribute,
                         const onnx::GraphProto& subgraph);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_LABELS_H_
