// Where a graph sits in a model, as a chain of steps from the main graph that survives the opset move (the
// plan is made on the original model and applied to the converted one), and the walk back along it.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_GRAPH_LOCATOR_H_
#define ONNX_LEGALIZE_SRC_GRAPH_GRAPH_LOCATOR_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The chain of (node, attribute, graph index) steps from the main graph to a subgraph; no steps for the
// main graph. A node is named by its first output, which is unique in its graph (its name may be empty, its
// position may change). The opset move keeps first outputs, except where a repair renames them; it says
// which (RenamedOutputs), and the walk follows.
struct GraphLocator {
  struct Step {
    std::string node_output;
    std::string attribute;
    int graph_index = 0;  // for GRAPHS attributes; 0 for GRAPH
  };
  std::vector<Step> steps;

  // This locator with one more step: into attribute `attribute`'s graph `graph_index` of `node`.
  GraphLocator Into(const onnx::NodeProto& node, const std::string& attribute, int graph_index) const;
};

// The outputs of the caller's nodes that the opset move renamed, old name -> new name: a repair that gives a
// node new outputs and recomputes the old ones from them after it (Scan-8's batch of one, which the Scan
// produces unbatched and an Unsqueeze batches again under the old name). Empty when the move renamed none.
using RenamedOutputs = std::unordered_map<std::string, std::string>;

// The subgraph `step` names inside `owner` (whose first output is step.node_output), or null when `owner`
// has no such attribute or graph.
onnx::GraphProto* SubgraphOf(onnx::NodeProto& owner, const GraphLocator::Step& step);

// The first output a step's node has in the model after a move that renamed `renamed`.
const std::string& OwnerOutputAfterMove(const GraphLocator::Step& step, const RenamedOutputs& renamed);

// The graph `locator` names in `model`, after an opset move that renamed `renamed` (none by default). The
// locator must come from a walk over this model (or the model it was converted from): a step that names no
// node or subgraph is a broken invariant, reported as Internal naming the step, never resolved to another
// graph.
absl::StatusOr<onnx::GraphProto*> ResolveGraph(onnx::ModelProto& model, const GraphLocator& locator,
                                               const RenamedOutputs& renamed = {});

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_GRAPH_LOCATOR_H_
