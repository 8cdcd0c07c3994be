// Structural checks of a model's graphs, run before anything else looks at them. onnx's own version
// converter, checker and shape inference are not safe on broken graphs (the converter of onnx 1.12 died
// with a segmentation fault on a graph output that no node produces; 1.23's throws), so a model reaches them
// only after passing these checks.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_GRAPH_VALIDATION_H_
#define ONNX_LEGALIZE_SRC_GRAPH_GRAPH_VALIDATION_H_

#include <string>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// How deeply If/Loop/Scan bodies may nest. Real models nest a few levels; the bound keeps recursion
// (ours and onnx's) from exhausting the stack on a hostile model.
inline constexpr int kMaxSubgraphDepth = 64;

// InvalidArgument, naming the graph path, node and value, when a graph of `model`:
// - has a node input that nothing visible defines (graph input, initializer, earlier node output here or
//   in an enclosing graph) — which also catches cycles, since ONNX requires nodes in topological order;
// - has two definitions of one name (two node outputs, a node output that is also an input or
//   initializer, or two initializers, dense or sparse; an initializer may also be a graph input);
// - has a graph output that is not defined;
// - nests subgraphs deeper than kMaxSubgraphDepth, or holds one where it cannot be found again: in a node
//   without a first output, in an attribute holding both g and graphs, or beside another attribute of the
//   same name;
// - has a default-domain node whose input or output count is outside what its schema at the model's
//   opset allows, no attribute its schema requires, or an attribute its schema knows of another type (onnx's
//   version converter trusts all three);
// - holds an initializer or a node's tensor attribute whose dims are negative or overflow int64 (count or
//   bytes), or whose raw_data or typed field is not as long as its dims say (sizes only: no data is read
//   or allocated; external data is checked where it is read), or stored as external data at a reference no
//   reader may follow (graph/external_reference.h: no location, absolute, leaving the model's folder);
// or when the model has no graph.
absl::Status ValidateGraphs(const onnx::ModelProto& model);

// The check MoveDefaultOpset (upgrade/opset_upgrade.h) makes of its input on its own, since it may be
// called without ValidateGraphs: the same walk, without the schema checks (which read the model's opset),
// and with what only onnx's version converter needs besides (1.12's crashed on, or silently corrupted, a graph
// without them; 1.23's throws on an attribute without a type, renames an initializer without a name and takes
// a graph input without one for every omitted optional input).
// What ValidateGraphs checks of each initializer of `graph` (at `path`) and its subgraphs: its sizes, its external
// data reference, its declaration as a graph input, an element type onnx knows. `--check` (CheckModel) checks these
// so that it does not call fixable a model whose weights legalizing refuses; it leaves the rest of ValidateGraphs's
// walk to legalizing (a node it finds is reported whatever the graph's other faults).
absl::Status ValidateInitializers(const onnx::GraphProto& graph, const std::string& path);

// InvalidArgument for everything ValidateGraphs refuses but the schema checks, and when the main graph `graph`
// or a subgraph at any depth:
// - has a graph input without a name, or listed twice;
// - has an initializer without a name;
// - has an attribute without a type.
absl::Status ValidateGraphsForConverter(const onnx::GraphProto& graph);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_GRAPH_VALIDATION_H_
