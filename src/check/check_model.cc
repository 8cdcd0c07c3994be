// CheckModel: which nodes have no operator schema at the opset their model imports, or do not match it (for
// --check).
//
// The rules, and why:
//  - "" and "ai.onnx" are the same domain (ONNX IR spec); opset imports and nodes are compared normalized.
//  - A node whose domain has no opset_import is a finding: no runtime can resolve its version. (Models of
//    IR version < 3 predate opset_import and implicitly use the default domain at opset 1.)
//  - For the domains onnx itself defines (default, ai.onnx.ml, training, preview.training), the op must
//    have a schema at the imported opset in onnx's OpSchemaRegistry. Four ways to fail, each a finding:
//    no schema at any opset (removed, like DynamicSlice, or never existed), a schema only from a later
//    opset (Resize at opset 9), a schema that is deprecated there (Upsample at opset 10+, which onnx's
//    checker rejects), or an experimental one (Upsample-1 at opsets 1-6, which onnx's checker passes and
//    no runtime runs).
//  - A node whose op is valid there must match its schema (onnx's OpSchema::Verify: required and unknown
//    attributes, attribute types, input and output counts): MVN-9 written with MVN-1's attributes loads in
//    no runtime, and neither does a node of the wrong arity.
//  - Domains onnx knows nothing about (com.microsoft, vendor domains) are not judged: their ops are not
//    removed ONNX ops and only the runtime that defines them can say whether they exist. Only a missing
//    opset_import is reported for them.
//  - A node calling a model-local function (FunctionProto, IR 8) is defined by the model itself. The
//    function bodies are checked as graphs of their own, against the function's own opset imports.
#include <any>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "check/check_model.h"
#include "core/status_macros.h"
#include "era/legacy_repairs.h"
#include "google/protobuf/arena.h"
#include "graph/graph_scope.h"
#include "graph/graph_validation.h"
#include "graph/labels.h"
#include "graph/model_skeleton.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/findings.h"
#include "rules/registry.h"
#include "rules/removed_op_rule.h"

namespace onnx_legalize {
namespace {

// Why legalizing refuses a removed node as its rule reads it (its signature and attributes against the old spec:
// an FC with one input, say), in the rule's words, or "" when the rule takes it. Only what the node itself says is
// read here; its inputs' types and values are the pass's to judge.
std::string WhyTheRuleRefuses(const onnx::NodeProto& node, const std::string& path, int64_t opset) {
  const RemovedOpRule* rule = FindRemovedOpRule(node, opset);
  if (rule == nullptr) return "";
  RuleNode rule_node;
  rule_node.node = &node;
  rule_node.label = InGraph(NodeLabel(node), path);
  rule_node.opset = opset;
  for (const std::string& input : node.input()) rule_node.inputs.push_back(RuleInput{input, {}, nullptr});
  const absl::StatusOr<std::any> parsed = rule->Parse(rule_node);
  return parsed.ok() ? "" : std::string(parsed.status().message());
}

bool IsDomainKnownToOnnx(const std::string& normalized_domain) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  return ranges.count(normalized_domain) > 0;
}

// The highest opset onnx knows for `normalized_domain` (a domain it knows).
int HighestKnownOpset(const std::string& normalized_domain) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  return ranges.at(normalized_domain).second;
}

// What a (op, domain, opset) lookup found: the schema nodes must match, or why there is none to match.
struct SchemaLookup {
  const onnx::OpSchema* schema = nullptr;  // set when the op is valid at the opset
  std::string problem;                     // set otherwise
};

// Why `op_type` of a known domain is not valid at `opset`, or "" when it is.
std::string SchemaProblem(const std::string& op_type, const std::string& normalized_domain, int64_t opset) {
  const onnx::OpSchemaRegistry* registry = onnx::OpSchemaRegistry::Instance();
  // GetSchema takes an int; an opset beyond int's range is beyond every schema anyway.
  const int max_inclusive = opset > INT_MAX ? INT_MAX : static_cast<int>(opset);
  const onnx::OpSchema* schema = registry->GetSchema(op_type, max_inclusive, normalized_domain);
  if (schema != nullptr) {
    if (schema->support_level() == onnx::OpSchema::SupportType::EXPERIMENTAL) {
      // Upsample-1, the one experimental schema onnx still holds: onnx's checker passes it, no runtime runs it.
      const onnx::OpSchema* standard = registry->GetSchema(op_type, INT_MAX, normalized_domain);
      while (standard != nullptr && standard->SinceVersion() > schema->SinceVersion()) {
        const onnx::OpSchema* earlier = registry->GetSchema(op_type, standard->SinceVersion() - 1, normalized_domain);
        if (earlier == nullptr || earlier->SinceVersion() == schema->SinceVersion()) break;
        standard = earlier;
      }
      return absl::StrCat("experimental op (", op_type, "-", schema->SinceVersion(),
                          "), which ONNX Runtime and onnx-tensorflow do not run",
                          standard != nullptr && standard != schema
                              ? absl::StrCat("; the standard ", op_type, " begins at opset ", standard->SinceVersion())
                              : std::string());
    }
    if (!schema->Deprecated()) return "";
    return absl::StrCat("deprecated since opset ", schema->SinceVersion());
  }
  if (const onnx::OpSchema* later = registry->GetSchema(op_type, INT_MAX, normalized_domain)) {
    // GetSchema gives the newest version at or below a bound; step down to the op's first version.
    int first = later->SinceVersion();
    while (const onnx::OpSchema* earlier = registry->GetSchema(op_type, first - 1, normalized_domain)) {
      first = earlier->SinceVersion();
    }
    return absl::StrCat("exists only from opset ", first);
  }
  if (normalized_domain.empty() && op_type == kDynamicSliceOp) {
    return "removed experimental op (onnx 1.4 only; use onnx-legalize to rewrite it)";
  }
  if (normalized_domain.empty()) {
    onnx::NodeProto probe;
    probe.set_op_type(op_type);
    if (IsRemovedOpType(probe))
      return "removed experimental op (onnx 1.4 and earlier; use onnx-legalize to rewrite it)";
  }
  if (opset > HighestKnownOpset(normalized_domain)) {
    return absl::StrCat("no schema in onnx, which knows this domain up to opset ",
                        HighestKnownOpset(normalized_domain));
  }
  return "no schema in onnx (removed or never defined)";
}

SchemaLookup LookUpSchema(const std::string& op_type, const std::string& normalized_domain, int64_t opset) {
  SchemaLookup lookup;
  lookup.problem = SchemaProblem(op_type, normalized_domain, opset);
  if (lookup.problem.empty()) {
    const int max_inclusive = opset > INT_MAX ? INT_MAX : static_cast<int>(opset);
    lookup.schema = onnx::OpSchemaRegistry::Schema(op_type, max_inclusive, normalized_domain);
  }
  return lookup;
}

// Why `node` does not match `schema` (its attributes, their types, its input and output counts), or "".
// onnx's message ends in a dump of the node ("==> Context: ..."), which the finding already names.
std::string SchemaMismatch(const onnx::OpSchema& schema, const onnx::NodeProto& node) {
  try {
    if (schema.Name() == "Loop" && schema.domain().empty() && node.input_size() == 2) {
      // onnx 1.12's Loop wants at least one loop-carried value; later releases and ONNX Runtime accept a Loop
      // of M and cond only (its results all scan outputs). Verify the rest of it.
      onnx::NodeProto with_carried_value = node;
      with_carried_value.add_input("loop_carried_value");
      schema.Verify(with_carried_value);
      return "";
    }
    schema.Verify(node);
    return "";
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    std::string message = e.what();
    const size_t context = message.find("\n\n==> Context:");
    if (context != std::string::npos) message.resize(context);
    return absl::StrCat("does not match the schema of ", schema.Name(), "-", schema.SinceVersion(), ": ", message);
  }
}

int64_t DefaultOpsetOf(const OpsetImports& opsets) {
  auto found = opsets.find(kDefaultDomain);
  return found == opsets.end() ? 0 : found->second;
}

// Each repair ReadAsItsEra made, as a finding legalizing fixes: the model as written is not what onnx reads.
void AddRepairFindings(const LegacyRepairs& repairs, const OpsetImports& opsets, std::vector<CheckFinding>& findings) {
  for (const LegacyRepair& repair : repairs.repairs()) {
    CheckFinding finding;
    finding.graph_path = repair.graph_path;
    finding.node_name = repair.node_name;
    finding.op_type = repair.op_type;
    finding.domain = DomainForDisplay(kDefaultDomain);
    finding.opset = DefaultOpsetOf(opsets);
    finding.reason = absl::StrCat(kLegacyEraReasonPrefix, ": ", repair.what);
    finding.fixable = true;
    finding.fix = "written as onnx reads it";
    if (!finding.graph_path.empty() && finding.op_type.empty()) finding.op_type = "(graph)";
    findings.push_back(std::move(finding));
  }
}

class Checker {
 public:
  // `ask_rules`: a removed node its rule refuses is no fixable finding (RefuseAsTheRuleDoes). Legalizing's own passes
  // leave it to the rule, which refuses the node in its own words as it plans it.
  Checker(const OpsetImports& opsets, const std::set<std::pair<std::string, std::string>>& local_functions,
          std::vector<CheckFinding>& findings, bool ask_rules)
      : opsets_(opsets), local_functions_(local_functions), findings_(findings), ask_rules_(ask_rules) {}

  void CheckNodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, const std::string& path) {
    for (const onnx::NodeProto& node : nodes) {
      CheckNode(node, path);
      ForEachSubgraph(node, [&](const std::string& attribute, const onnx::GraphProto& subgraph) {
        CheckNodes(subgraph.node(), SubgraphPath(path, node, attribute, subgraph));
      });
    }
  }

 private:
  void CheckNode(const onnx::NodeProto& node, const std::string& path) {
    const std::string domain = NormalizedDomain(node.domain());
    if (local_functions_.count({domain, node.op_type()}) > 0) return;
    auto import = opsets_.find(domain);
    if (import == opsets_.end()) {
      Add(node, path, domain, 0,
          absl::StrCat("the model imports no opset for domain '", DomainForDisplay(domain), "'"));
      return;
    }
    if (!domain.empty() && FindRemovedOpRule(node, DefaultOpsetOf(opsets_)) != nullptr) {
      // A vendor's op of the first era that a rule rewrites (com.microsoft's LegacyPadding).
      CheckFinding& finding =
          Add(node, path, domain, import->second,
              absl::StrCat("removed experimental op of ", DomainForDisplay(domain),
                           " that only the Windows ML preview of 2018 ran (use onnx-legalize to rewrite it)"));
      finding.fixable = !absl::StartsWith(path, "function:");
      if (finding.fixable) finding.fix = "fold, or rewrite into standard ops";
      RefuseAsTheRuleDoes(node, path, DefaultOpsetOf(opsets_), finding);
      return;
    }
    if (!IsDomainKnownToOnnx(domain)) return;  // Not onnx's to judge; see the rules above.
    const SchemaLookup& lookup = CachedSchemaLookup(node.op_type(), domain, import->second);
    std::string problem = lookup.problem;
    const bool removed = domain.empty() && FindRemovedOpRule(node, import->second) != nullptr;
    if (problem.empty() && removed) {
      // A schema of that name exists at this opset, but the node is still the removed op (MVN-1's
      // attributes at opset 9 or later): the op it names would reject it.
      problem = absl::StrCat("written with the attributes of the removed ", node.op_type(),
                             "-1, which its schema at this opset does not have");
    }
    bool mismatch = false;
    if (problem.empty() && lookup.schema != nullptr) {
      problem = SchemaMismatch(*lookup.schema, node);
      mismatch = !problem.empty();
    }
    if (problem.empty()) return;
    CheckFinding& finding = Add(node, path, domain, import->second, std::move(problem));
    finding.mismatches_schema = mismatch;
    // Legalizing handles the removed ops of the model's graphs, not those of function bodies.
    const bool in_function = absl::StartsWith(path, "function:");
    if (in_function) return;
    if (domain.empty() && node.op_type() == kDynamicSliceOp) {
      finding.fixable = true;
      finding.fix = "fold, or rewrite to Slice";
    } else if (removed) {
      finding.fixable = true;
      finding.fix = "fold, or rewrite into standard ops";
      RefuseAsTheRuleDoes(node, path, import->second, finding);
    }
  }

  // A removed node's finding is not fixable where its rule refuses the node (WhyTheRuleRefuses): the reason says
  // why, as legalizing would.
  void RefuseAsTheRuleDoes(const onnx::NodeProto& node, const std::string& path, int64_t opset,
                           CheckFinding& finding) const {
    if (!ask_rules_) return;
    const std::string why = WhyTheRuleRefuses(node, path, opset);
    if (why.empty()) return;
    finding.fixable = false;
    finding.fix.clear();
    absl::StrAppend(&finding.reason, "; legalizing refuses it: ", why);
  }

  CheckFinding& Add(const onnx::NodeProto& node, const std::string& path, const std::string& domain, int64_t opset,
                    std::string reason) {
    CheckFinding finding;
    finding.graph_path = path;
    finding.node_name = node.name();
    finding.op_type = node.op_type();
    finding.domain = DomainForDisplay(domain);
    finding.opset = opset;
    finding.reason = std::move(reason);
    findings_.push_back(std::move(finding));
    return findings_.back();
  }

  // LookUpSchema once per (op, domain, opset): onnx's schema lookups cost more than the rest of the check,
  // and a graph names few ops many times. Found without building a key: a graph has few (domain, opset)
  // pairs, and the op type is looked up as the node holds it.
  const SchemaLookup& CachedSchemaLookup(const std::string& op_type, const std::string& domain, int64_t opset) {
    auto& by_op_type = schema_lookups_[std::make_pair(domain, opset)];
    auto it = by_op_type.find(op_type);
    if (it == by_op_type.end()) it = by_op_type.emplace(op_type, LookUpSchema(op_type, domain, opset)).first;
    return it->second;
  }

  const OpsetImports& opsets_;
  const std::set<std::pair<std::string, std::string>>& local_functions_;
  std::vector<CheckFinding>& findings_;
  bool ask_rules_;
  std::map<std::pair<std::string, int64_t>, std::unordered_map<std::string, SchemaLookup>> schema_lookups_;
};

}  // namespace

absl::StatusOr<std::vector<CheckFinding>> CheckModel(const onnx::ModelProto& input) {
  return CheckModelNodes(input, /*validate=*/true);
}

absl::StatusOr<std::vector<CheckFinding>> CheckModelNodes(const onnx::ModelProto& input, bool validate) {
  // The model as its era meant it (era/legacy_repairs.h), on a light copy: what legalizing reads.
  google::protobuf::Arena arena;
  onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  BuildModelSkeleton(input, model);
  LegacyRepairs repairs;
  RETURN_IF_ERROR(ReadAsItsEra(model, repairs));
  // A gate must not call fixable a model whose weights legalizing then refuses (an initializer of an element type
  // onnx does not know, or contradicting its declaration): the light copy above leaves the large ones out.
  if (validate) RETURN_IF_ERROR(ValidateInitializers(input.graph(), kMainGraphPath));
  ASSIGN_OR_RETURN(const OpsetImports opsets, ModelOpsetImports(model));

  std::set<std::pair<std::string, std::string>> local_functions;
  for (const onnx::FunctionProto& function : model.functions()) {
    local_functions.emplace(NormalizedDomain(function.domain()), function.name());
  }

  std::vector<CheckFinding> findings;
  AddRepairFindings(repairs, opsets, findings);
  Checker(opsets, local_functions, findings, validate).CheckNodes(model.graph().node(), kMainGraphPath);

  for (const onnx::FunctionProto& function : model.functions()) {
    const std::string where = absl::StrCat("function '", function.name(), "'");
    ASSIGN_OR_RETURN(OpsetImports function_opsets, ReadOpsetImports(function.opset_import(), where));
    const std::string path =
        absl::StrCat("function:", DomainForDisplay(NormalizedDomain(function.domain())), ".", function.name());
    Checker(function_opsets, local_functions, findings, validate).CheckNodes(function.node(), path);
  }
  return findings;
}

}  // namespace onnx_legalize
