// What legalizing did to a model (Report, a NodeReport per removed node) and the report as JSON, apart from
// the entry points (legalize.h): the stages that fill in a part of it include this alone.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_REPORT_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace onnx_legalize {

// What was done to one removed node.
enum class Action {
  kFolded,     // replaced by an initializer holding its value
  kRewritten,  // replaced by standard nodes (a Slice for DynamicSlice)
};

struct NodeReport {
  std::string op_type = "DynamicSlice";  // the removed op: DynamicSlice, ImageScaler, Crop, ...
  std::string graph_path;                // "main", "main/loop_body", ... (graph names joined by '/')
  std::string node_name;                 // the node's name; "" when the model gave it none
  std::string output;                    // the node's output name, which identifies it when it has no name
  Action action = Action::kFolded;
  int64_t slice_version = 0;  // for kRewritten: the Slice version it became (1 with keep_opset, else 10+)
  std::string became;         // what it became: "initializer", "Slice-10", "Mul + Add", ...
  std::string detail;         // why this action, in a few words
  std::string verification;   // what verification ran and its result, or "skipped (verification off)"
};

// What the opset move's proof ran (Report::opset_move_proof). Everything but `seconds` is the same from run to
// run for the same model and options.
struct OpsetMoveProof {
  // Both forms ran on at least one input set and every output was identical (a difference is an error, not a
  // report).
  bool executed = false;
  int64_t input_sets = 0;      // seeded input sets both forms ran to the end on
  int64_t nodes_executed = 0;  // node runs over both forms and every input set (subgraph nodes each time they run)
  // Of those, nodes the move left as they were (op version, attributes, inputs) computed once for both forms, over
  // every input set (docs/legalization.md says why that proves as much as running them twice).
  int64_t nodes_shared = 0;
  // Nodes the move left as they were whose values no node it changed reads, in each form and every input set:
  // the same tensors in both forms by construction, so run in neither (counted once for the two forms).
  int64_t nodes_skipped = 0;
  int64_t work = 0;  // element operations those nodes did, in Options::proof_budget's unit
  // Wall time of the proof, for people reading the report; the one field that varies from run to run.
  double seconds = 0;
  // Why it did not execute (the text after "not executed: " in Report::opset_move; "verification off" when
  // Options::verify is false); "" when it executed or the opset did not move.
  std::string why_not;
};

// The nodes of one op that the opset move changed in one way (Report::opset_move_changes): counted, the first of them
// named.
struct OpsetMoveChange {
  std::string op_type;         // the node's op before the move (after it, for a node the move added)
  int64_t version_before = 0;  // the op's version at the model's opset; 0 for a node the move added
  int64_t version_after = 0;   // op_type_after's version at the target opset; 0 for a node the move removed
  std::string op_type_after;   // the node's op after the move: op_type, but for a node replaced by another op
  // "version": only the op's version is another (its inputs and attributes are as they were); "rewritten": its
  // inputs or attributes changed; "replaced by <op>"; "added"; "removed".
  std::string how;
  int64_t nodes = 0;
  std::string first;  // the first such node, with its graph: "Unsqueeze 'u' (graph main)"
};

// A target opset the library chose, tried and left for a later one (Options::target_opset unset).
struct PassedOverTarget {
  int64_t opset = 0;
  std::string reason;  // the failure at that opset
};

// A graph output whose declared type legalizing wrote anew, because onnx's checker and ONNX Runtime refuse the
// model with the type its exporter declared (Report::interface_changes): a caller reading that output by its
// old type must read the new one.
struct InterfaceChange {
  std::string value;   // the graph output's name
  std::string before;  // its type as declared: "map(string,tensor(float))"; "tensor(float)" (no shape)
  std::string after;   // its type as written: "seq(map(string,tensor(float)))"; "tensor(float)[?,1000]"
  std::string why;     // in a few words
};

struct Report {
  int64_t opset_before = 0;  // default-domain opset
  int64_t opset_after = 0;
  int64_t ir_version_before = 0;
  int64_t ir_version_after = 0;
  // What the model's era left implicit or wrote as onnx no longer reads it, and legalizing wrote anew, one line
  // each ("the model: IR version 1 has no opset imports and means the default domain at opset 1: imported",
  // "graph main: nodes listed out of topological order, sorted (...)", "BatchNormalization 'bn' (graph main):
  // consumed_inputs, which BatchNormalization-1 requires ..."). Empty for a model of a later era.
  std::vector<std::string> legacy_repairs;
  // The graph outputs whose declared types were written anew, main graph first: a ZipMap's output declared as
  // the map its exporter thought of, written as the sequence of maps ZipMap makes; a recurrent op's Y declared
  // without its num_directions axis (PyTorch 0.3), written with it; an output declared without a shape (onnx's checker
  // requires one on the main graph's outputs), written with the shape inference finds. Empty when the model's interface
  // is as it was.
  std::vector<InterfaceChange> interface_changes;
  // One per removed node found: the other removed ops (main graph first, subgraphs depth first), then
  // every DynamicSlice in graph order.
  std::vector<NodeReport> nodes;
  bool changed = false;  // false when the model held nothing to legalize and kept its opset
  // What onnx's checker and strict shape inference said of the result; "not run: ..." with the checker's
  // reason when it rejects the input itself (a result is held to them only when the input passes).
  std::string onnx_check;
  // How the opset move was proved: the model before and after it executed on seeded inputs with every output
  // identical, or "not executed: " and why (an op the library's model runner has no kernel for, ...); ""
  // when the opset did not move, "skipped (verification off)" with Options::verify false.
  std::string opset_move;
  // The same, counted: input sets, nodes executed, work and seconds, or why not. All zero and "" when the opset
  // did not move.
  OpsetMoveProof opset_move_proof;
  // What the opset move did to the default-domain nodes of every graph, by op and the way it changed them, in the
  // order the first of each is found (main graph first, subgraphs after the node holding them); nodes whose op has
  // the same version at both opsets and that the move left as they were are not listed. Empty when the opset did not
  // move.
  std::vector<OpsetMoveChange> opset_move_changes;
  // With no target_opset given, the lowest target that expresses every rewrite is tried first; where onnx's
  // converter or checker fails there for a reason a later opset may avoid, the next ones are tried in turn
  // (up to 17). The targets passed over, lowest first, each with its failure.
  std::vector<PassedOverTarget> targets_passed_over;
};

// The report as a JSON document (stable key order, for tools and CI logs).
std::string ReportToJson(const Report& report);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_REPORT_H_
