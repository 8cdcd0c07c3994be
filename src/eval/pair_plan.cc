// PlanModelPair (paired_run.h): which nodes of two forms of one model pair up, which pairs compute the same by
// construction, and which of those any node that may differ needs: read from the two graphs alone, once for every
// input set the forms then run on.
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "eval/graph_runner.h"
#include "eval/paired_run.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/attributes.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/subgraphs.h"
#include "onnx/defs/schema.h"

namespace onnx_legalize {
namespace {

using ::google::protobuf::util::MessageDifferencer;

// What SameComputation asks of one form: its kernels, opset and imports.
struct FormVersions {
  FormVersions(const RunForm& form, int64_t opset)
      : extra(form.extra), opset(opset), imports(ModelOpsetImports(form.model).value_or(OpsetImports())) {}

  // The version of `domain` the model imports (0 when none).
  int64_t DomainVersion(const std::string& domain) const {
    auto import = imports.find(NormalizedDomain(domain));
    return import == imports.end() ? 0 : import->second;
  }

  const ExtraKernels* extra;
  int64_t opset;
  OpsetImports imports;
};

// The same attributes, whatever their order (onnx's IR writes a converted node's attributes anew).
bool SameAttributes(const onnx::NodeProto& a, const onnx::NodeProto& b) {
  if (a.attribute_size() != b.attribute_size()) return false;
  for (const onnx::AttributeProto& attribute : a.attribute()) {
    const onnx::AttributeProto* other = FindAttribute(b, attribute.name());
    if (other == nullptr || !MessageDifferencer::Equals(attribute, *other)) return false;
  }
  return true;
}

// Whether the node means the same in both forms: the same op version at each form's opset (by onnx's schemas for
// the default domain, by the imported version for another), or the same opset-blind kernel in both.
bool SameVersion(const onnx::NodeProto& node, const FormVersions& before, const FormVersions& after) {
  const bool before_extra = before.extra != nullptr && before.extra->Handles(node, before.opset);
  const bool after_extra = after.extra != nullptr && after.extra->Handles(node, after.opset);
  if (before_extra || after_extra) {
    return before_extra && after_extra && before.extra->IgnoresOpset(node) && after.extra->IgnoresOpset(node);
  }
  if (!IsDefaultDomain(node.domain())) {
    return before.DomainVersion(node.domain()) == after.DomainVersion(node.domain());
  }
  const onnx::OpSchema* at_before =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(before.opset), kDefaultDomain);
  const onnx::OpSchema* at_after =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(after.opset), kDefaultDomain);
  // DynamicSlice, removed from onnx, had one version; the runner's kernel for it reads no opset.
  if (at_before == nullptr && at_after == nullptr) return node.op_type() == kDynamicSliceOp;
  return at_before != nullptr && at_before == at_after;
}

// Whether a node of the default domain runs the registry's kernel in both forms (not a removed op's kernel of
// either form's extra ones): the one kernel, told each form's opset.
bool SameKernel(const onnx::NodeProto& node, const FormVersions& before, const FormVersions& after) {
  return IsDefaultDomain(node.domain()) && !(before.extra != nullptr && before.extra->Handles(node, before.opset)) &&
         !(after.extra != nullptr && after.extra->Handles(node, after.opset));
}

Sameness SameComputation(const onnx::NodeProto& b, const onnx::NodeProto& a, const FormVersions& before,
                         const FormVersions& after) {
  if (b.op_type() != a.op_type() || NormalizedDomain(b.domain()) != NormalizedDomain(a.domain())) {
    return Sameness::kDiffers;
  }
  if (b.input_size() != a.input_size() || b.output_size() != a.output_size()) return Sameness::kDiffers;
  for (int i = 0; i < b.input_size(); ++i) {
    if (b.input(i) != a.input(i)) return Sameness::kDiffers;
  }
  for (int i = 0; i < b.output_size(); ++i) {
    if (b.output(i) != a.output(i)) return Sameness::kDiffers;
  }
  if (IsSequenceOp(b) || HoldsSubgraph(b) || HoldsSubgraph(a) || !SameAttributes(b, a)) return Sameness::kDiffers;
  if (SameVersion(b, before, after)) return Sameness::kSame;
  return SameKernel(b, before, after) ? Sameness::kUnlessOpset : Sameness::kDiffers;
}

// The index of the node writing each name of a main graph, and the names written more than once (a model out of
// SSA form, which the run reports: nothing written twice is the same by construction). The plan's tables view the
// names where the graphs hold them: a model of 100,000 nodes would otherwise copy every name a few times over while
// its output is being written.
struct Writers {
  explicit Writers(const onnx::GraphProto& graph) {
    for (int n = 0; n < graph.node_size(); ++n) {
      for (const std::string& name : graph.node(n).output()) {
        if (!name.empty() && !of.emplace(name, n).second) twice.insert(name);
      }
    }
  }
  int Of(absl::string_view name) const {
    auto writer = of.find(name);
    return writer == of.end() ? -1 : writer->second;
  }

  absl::flat_hash_map<absl::string_view, int> of;
  absl::flat_hash_set<absl::string_view> twice;
};

// The index of the before node writing `node`'s first output, or -1.
int PairedWriter(const onnx::NodeProto& node, const Writers& before) {
  for (const std::string& name : node.output()) {
    if (!name.empty()) return before.Of(name);
  }
  return -1;
}

// Every step of the paired run, in order (PairPlan says how they are found).
std::vector<PairStep> Schedule(const onnx::GraphProto& before_graph, const onnx::GraphProto& after_graph,
                               const Writers& before_writers, const FormVersions& before, const FormVersions& after) {
  std::vector<PairStep> steps;
  steps.reserve(static_cast<size_t>(before_graph.node_size()) + static_cast<size_t>(after_graph.node_size()));
  int next_before = 0;
  for (int n = 0; n < after_graph.node_size(); ++n) {
    const int m = PairedWriter(after_graph.node(n), before_writers);
    if (m < next_before) {
      steps.push_back(PairStep{-1, n, Sameness::kDiffers});
      continue;
    }
    while (next_before < m) steps.push_back(PairStep{next_before++, -1, Sameness::kDiffers});
    steps.push_back(PairStep{m, n, SameComputation(before_graph.node(m), after_graph.node(n), before, after)});
    ++next_before;
  }
  while (next_before < before_graph.node_size()) steps.push_back(PairStep{next_before++, -1, Sameness::kDiffers});
  return steps;
}

// A graph's inputs and initializers by name.
struct GraphValues {
  explicit GraphValues(const onnx::GraphProto& graph) {
    for (const onnx::ValueInfoProto& input : graph.input()) inputs.emplace(input.name(), &input);
    for (const onnx::TensorProto& initializer : graph.initializer())
      initializers.emplace(initializer.name(), &initializer);
  }
  absl::flat_hash_map<absl::string_view, const onnx::ValueInfoProto*> inputs;
  absl::flat_hash_map<absl::string_view, const onnx::TensorProto*> initializers;
};

// Whether `name`, a graph input or initializer of `b`, is the same tensor in `a` whatever is fed: an input of
// both declared alike (fed once for both), with an initializer in neither or one `shared` names (equal in both).
bool SameGraphValue(absl::string_view name, const GraphValues& b, const GraphValues& a,
                    const std::unordered_set<std::string>& shared) {
  auto b_input = b.inputs.find(name);
  auto a_input = a.inputs.find(name);
  if ((b_input == b.inputs.end()) != (a_input == a.inputs.end())) return false;
  if (b_input != b.inputs.end() && !MessageDifferencer::Equals(b_input->second->type(), a_input->second->type())) {
    return false;
  }
  if (b.initializers.contains(name) || a.initializers.contains(name)) return shared.count(std::string(name)) > 0;
  return true;
}

// Which pairs of the schedule are the same by construction, and the values they and the graphs' inputs make the
// same tensors in both forms.
class SameByConstruction {
 public:
  SameByConstruction(const onnx::GraphProto& before_graph, const onnx::GraphProto& after_graph,
                     const std::vector<PairStep>& steps, const Writers& before_writers, const Writers& after_writers) {
    const GraphValues before_values(before_graph);
    const GraphValues after_values(after_graph);
    // Each initializer compared once (a weight of gigabytes is read in the comparison). An external initializer's
    // proto is its reference: equal references name the same data.
    for (const auto& [name, initializer] : before_values.initializers) {
      auto after_initializer = after_values.initializers.find(name);
      if (after_initializer != after_values.initializers.end() &&
          MessageDifferencer::Equals(*initializer, *after_initializer->second)) {
        shared_initializers_.emplace(name);
      }
    }
    for (const auto& [name, input] : before_values.inputs) {
      if (SameGraphValue(name, before_values, after_values, shared_initializers_)) same_values_.insert(name);
    }
    for (const auto& [name, initializer] : before_values.initializers) {
      if (SameGraphValue(name, before_values, after_values, shared_initializers_)) same_values_.insert(name);
    }
    same_pair_of_before_.assign(static_cast<size_t>(before_graph.node_size()), -1);
    for (const PairStep& step : steps) {
      if (step.before < 0 || step.after < 0 || step.sameness != Sameness::kSame) continue;
      const onnx::NodeProto& node = before_graph.node(step.before);
      if (!AllSame(node.input()) ||
          !WrittenOnlyHere(node, before_values, after_values, before_writers, after_writers)) {
        continue;
      }
      same_pair_of_before_[static_cast<size_t>(step.before)] = step.after;
      for (const std::string& name : node.output()) {
        if (!name.empty()) same_values_.insert(name);
      }
    }
  }

  bool Same(absl::string_view name) const { return same_values_.contains(name); }
  // The after node a before node makes a same pair with, or -1.
  int SamePairOf(int before_node) const { return same_pair_of_before_[static_cast<size_t>(before_node)]; }
  std::unordered_set<std::string> TakeSharedInitializers() { return std::move(shared_initializers_); }

 private:
  template <typename Names>
  bool AllSame(const Names& names) const {
    for (const std::string& name : names) {
      if (!name.empty() && !Same(name)) return false;
    }
    return true;
  }

  // Whether the node's outputs are written by it alone in each form, and are neither inputs nor initializers.
  static bool WrittenOnlyHere(const onnx::NodeProto& node, const GraphValues& before_values,
                              const GraphValues& after_values, const Writers& before_writers,
                              const Writers& after_writers) {
    for (const std::string& name : node.output()) {
      if (name.empty()) continue;
      if (before_writers.twice.contains(name) || after_writers.twice.contains(name)) return false;
      for (const GraphValues* values : {&before_values, &after_values}) {
        if (values->inputs.contains(name) || values->initializers.contains(name)) return false;
      }
    }
    return true;
  }

  absl::flat_hash_set<absl::string_view> same_values_;
  std::unordered_set<std::string> shared_initializers_;
  std::vector<int> same_pair_of_before_;
};

// The nodes of each form that must run: every node not of a same pair, what they read (through the pairs they
// read), and what writes an output that is not the same by construction.
class NeededNodes {
 public:
  NeededNodes(const onnx::GraphProto& before_graph, const onnx::GraphProto& after_graph, const SameByConstruction& same,
              const absl::flat_hash_set<absl::string_view>& outputs_same, const Writers& before_writers,
              const Writers& after_writers)
      : before_graph_(before_graph),
        after_graph_(after_graph),
        same_(same),
        before_writers_(before_writers),
        after_writers_(after_writers),
        before_needed_(static_cast<size_t>(before_graph.node_size()), false),
        after_needed_(static_cast<size_t>(after_graph.node_size()), false),
        same_pair_of_after_(static_cast<size_t>(after_graph.node_size()), -1) {
    for (int m = 0; m < before_graph.node_size(); ++m) {
      const int n = same.SamePairOf(m);
      if (n >= 0) same_pair_of_after_[static_cast<size_t>(n)] = m;
    }
    for (int m = 0; m < before_graph.node_size(); ++m) {
      if (same.SamePairOf(m) < 0) NeedBefore(m);
    }
    for (int n = 0; n < after_graph.node_size(); ++n) {
      if (same_pair_of_after_[static_cast<size_t>(n)] < 0) NeedAfter(n);
    }
    for (const onnx::ValueInfoProto& output : before_graph.output()) {
      if (!outputs_same.contains(output.name())) NeedWriterOf(output.name(), /*in_before=*/true);
    }
    for (const onnx::ValueInfoProto& output : after_graph.output()) {
      if (!outputs_same.contains(output.name())) NeedWriterOf(output.name(), /*in_before=*/false);
    }
    while (!pending_.empty()) {
      const int index = pending_.back().first;
      const bool in_before = pending_.back().second;
      pending_.pop_back();
      const onnx::NodeProto& node = in_before ? before_graph_.node(index) : after_graph_.node(index);
      for (const std::string& name : node.input()) {
        if (!name.empty()) NeedWriterOf(name, in_before);
      }
      ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
        ForEachReadName(subgraph, [&](const std::string& name) { NeedWriterOf(name, in_before); });
      });
    }
  }

  const std::vector<bool>& before() const { return before_needed_; }
  const std::vector<bool>& after() const { return after_needed_; }

 private:
  void NeedWriterOf(absl::string_view name, bool in_before) {
    const int writer = (in_before ? before_writers_ : after_writers_).Of(name);
    if (writer < 0) return;
    if (in_before) {
      NeedBefore(writer);
    } else {
      NeedAfter(writer);
    }
  }
  // A node of a same pair needs its partner: the pair runs as one step, computed once.
  void NeedBefore(int m) {
    if (before_needed_[static_cast<size_t>(m)]) return;
    before_needed_[static_cast<size_t>(m)] = true;
    pending_.emplace_back(m, true);
    if (const int n = same_.SamePairOf(m); n >= 0) NeedAfter(n);
  }
  void NeedAfter(int n) {
    if (after_needed_[static_cast<size_t>(n)]) return;
    after_needed_[static_cast<size_t>(n)] = true;
    pending_.emplace_back(n, false);
    if (const int m = same_pair_of_after_[static_cast<size_t>(n)]; m >= 0) NeedBefore(m);
  }

  const onnx::GraphProto& before_graph_;
  const onnx::GraphProto& after_graph_;
  const SameByConstruction& same_;
  const Writers& before_writers_;
  const Writers& after_writers_;
  std::vector<bool> before_needed_;
  std::vector<bool> after_needed_;
  std::vector<int> same_pair_of_after_;
  std::vector<std::pair<int, bool>> pending_;  // needed nodes whose reads are still to be needed
};

}  // namespace

PairPlan::PairPlan(const RunForm& before, const RunForm& after)
    : before(before),
      after(after),
      before_opset(graph_runner::RunnableOpset(before.model)),
      after_opset(graph_runner::RunnableOpset(after.model)) {}

PairPlan PlanModelPair(const RunForm& before, const RunForm& after) {
  PairPlan plan(before, after);
  if (!plan.before_opset.ok() || !plan.after_opset.ok()) return plan;
  const onnx::GraphProto& before_graph = before.model.graph();
  const onnx::GraphProto& after_graph = after.model.graph();
  const Writers before_writers(before_graph);
  const Writers after_writers(after_graph);
  const std::vector<PairStep> schedule =
      Schedule(before_graph, after_graph, before_writers, FormVersions(before, *plan.before_opset),
               FormVersions(after, *plan.after_opset));
  SameByConstruction same(before_graph, after_graph, schedule, before_writers, after_writers);
  absl::flat_hash_set<absl::string_view> after_outputs;
  for (const onnx::ValueInfoProto& output : after_graph.output()) after_outputs.insert(output.name());
  absl::flat_hash_set<absl::string_view> outputs_same;
  for (const onnx::ValueInfoProto& output : before_graph.output()) {
    if (same.Same(output.name()) && after_outputs.contains(output.name()) &&
        outputs_same.insert(output.name()).second) {
      plan.outputs_same_by_construction.push_back(output.name());
    }
  }
  const NeededNodes needed(before_graph, after_graph, same, outputs_same, before_writers, after_writers);
  for (const PairStep& step : schedule) {
    const bool runs = step.before >= 0 ? needed.before()[static_cast<size_t>(step.before)]
                                       : needed.after()[static_cast<size_t>(step.after)];
    if (runs) {
      plan.steps.push_back(step);
    } else if (step.before >= 0 && step.after >= 0) {
      ++plan.nodes_skipped;
    }
  }
  plan.before_last_reads = graph_runner::LastReads(before_graph, needed.before());
  plan.after_last_reads = graph_runner::LastReads(after_graph, needed.after());
  plan.shared_initializers = same.TakeSharedInitializers();
  return plan;
}

}  // namespace onnx_legalize
