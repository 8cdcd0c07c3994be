// Opset imports as the exporters of ONNX's first releases wrote them, made explicit:
//  - IR versions 1 and 2 had no opset_import; their models meant the default domain at opset 1 (onnx's IR
//    spec: opset_import came with IR 3). The import is written; the IR version is raised where the result is
//    checked (driver/legalize.cc), as an import needs IR 3.
//  - WinMLTools 0.1 (2018) wrote IR 3 models with no opset_import at all (its Windows ML preview assumed one).
//    The default opset meant is the lowest whose schemas every default-domain node fits: its op is defined
//    there (or is a removed op that the rules read there), each attribute it sets is one the schema declares,
//    and its input and output counts are in the schema's range. FNS-Candy of the Windows ML samples writes Pad
//    with `pads`, which Pad-1 called `paddings`: opset 2.
//  - The same tool wrote the default domain twice, at opsets 1 and 2 (FNS-Mosaic): an import of opset 2 holds
//    every op of opset 1 that it did not redefine, and a node written for Pad-2 needs 2. The highest is meant.
//  - CoreML conversions of 2018 used ai.onnx.ml and imported nothing: ImportTheMlDomainWhereUsed imports it.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "era/era_walk.h"
#include "era/legacy_repairs.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx/defs/schema.h"
#include "onnx_legalize/target_opsets.h"
#include "rules/registry.h"

namespace onnx_legalize {
namespace {

using ImportList = google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>;

// The IR version of ONNX 1.0-1.2 (2017-2018), the last whose exporters wrote imports that need reading; a later
// model that imports no default opset, or one domain twice, is malformed and refused as such.
constexpr int64_t kLastIrOfTheFirstEra = 3;

// Legacy flags the era's exporters set that no schema declares; legacy_attributes.cc reads them.
bool IsLegacyFlag(const std::string& attribute) {
  return attribute == "is_test" || attribute == "spatial" || attribute == "consumed_inputs";
}

// Whether `node` fits opset `opset` of `domain`'s schemas: its op is defined there, each attribute it sets is
// one the schema declares, and its input and output counts are in the schema's range.
bool FitsSchema(const onnx::NodeProto& node, int64_t opset, const std::string& domain) {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), domain);
  if (schema == nullptr || schema->Deprecated()) return false;
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (schema->attributes().count(attribute.name()) == 0 && !IsLegacyFlag(attribute.name())) return false;
  }
  int inputs = node.input_size();
  while (inputs > 0 && node.input(inputs - 1).empty()) --inputs;  // trailing omitted inputs are not there
  return inputs >= schema->min_input() && inputs <= schema->max_input() && node.output_size() >= schema->min_output() &&
         node.output_size() <= schema->max_output();
}

// Whether `node` fits default opset `opset`, as the header says.
bool FitsOpset(const onnx::NodeProto& node, int64_t opset) {
  return FindRemovedOpRule(node, opset) != nullptr || FitsSchema(node, opset, kDefaultDomain);
}

// The lowest default opset every default-domain node of `model` fits, or 0.
int64_t LowestFittingOpset(onnx::ModelProto& model) {
  for (int64_t opset = kMinTargetOpset; opset <= kMaxTargetOpset; ++opset) {
    bool fits = true;
    ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string&) {
      for (const onnx::NodeProto& node : graph.node()) {
        fits = fits && (!IsDefaultDomain(node.domain()) || FitsOpset(node, opset));
      }
    });
    if (fits) return opset;
  }
  return 0;
}

// Why no opset fits: the first node that fits none, or else that the nodes fit different ones.
std::string WhyNoOpsetFits(onnx::ModelProto& model) {
  std::string misfit;
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (const onnx::NodeProto& node : graph.node()) {
      if (!misfit.empty() || !IsDefaultDomain(node.domain())) continue;
      bool fits_one = false;
      for (int64_t opset = kMinTargetOpset; opset <= kMaxTargetOpset && !fits_one; ++opset) {
        fits_one = FitsOpset(node, opset);
      }
      if (!fits_one) misfit = absl::StrCat(InGraph(NodeLabel(node), path), " fits none");
    }
  });
  return misfit.empty() ? "its nodes fit different ones" : misfit;
}

bool HoldsDefaultDomainNode(onnx::ModelProto& model) {
  bool found = false;
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string&) {
    for (const onnx::NodeProto& node : graph.node()) found = found || IsDefaultDomain(node.domain());
  });
  return found;
}

// The nodes of `domain` in every graph of `model`.
std::vector<const onnx::NodeProto*> NodesOfDomain(onnx::ModelProto& model, const std::string& domain) {
  std::vector<const onnx::NodeProto*> nodes;
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string&) {
    for (const onnx::NodeProto& node : graph.node()) {
      if (node.domain() == domain) nodes.push_back(&node);
    }
  });
  return nodes;
}

void AddImportRepair(onnx::ModelProto& model, std::string what, const ImportList& before, LegacyRepairs& repairs) {
  repairs.Add(LegacyRepair{"", "", "", std::move(what)}, [&model, before] { *model.mutable_opset_import() = before; });
}

// A model that uses ai.onnx.ml's nodes without importing the domain: CoreML conversions of 2018 that import
// nothing at all. The domain is imported at the lowest version whose schemas every one of its nodes fits, as for
// the default domain below, and left as it is when none fits (the check then names the node). Only ai.onnx.ml:
// a model of any later era that uses another domain without importing it (com.microsoft.experimental in Windows
// ML's preprocessing models) is malformed, not legacy; the check names it (`--check`: domain-not-imported).
void ImportTheMlDomainWhereUsed(onnx::ModelProto& model, LegacyRepairs& repairs) {
  const bool imported = std::any_of(model.opset_import().begin(), model.opset_import().end(),
                                    [](const auto& import) { return import.domain() == kMlDomain; });
  const std::vector<const onnx::NodeProto*> nodes = NodesOfDomain(model, kMlDomain);
  if (imported || nodes.empty()) return;
  const auto& versions = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  const auto range = versions.find(kMlDomain);
  if (range == versions.end()) return;
  for (int64_t version = range->second.first; version <= range->second.second; ++version) {
    const bool fits = std::all_of(nodes.begin(), nodes.end(),
                                  [&](const onnx::NodeProto* node) { return FitsSchema(*node, version, kMlDomain); });
    if (!fits) continue;
    const ImportList before = model.opset_import();
    onnx::OperatorSetIdProto* import = model.add_opset_import();
    import->set_domain(kMlDomain);
    import->set_version(version);
    AddImportRepair(model,
                    absl::StrCat("its ", kMlDomain, " nodes were not imported: read as ", kMlDomain, " opset ", version,
                                 ", the lowest whose schemas every one of them fits, and imported"),
                    before, repairs);
    return;
  }
}

}  // namespace

absl::Status RepairOpsetImports(onnx::ModelProto& model, LegacyRepairs& repairs) {
  const ImportList before = model.opset_import();

  // The highest version of each domain imported more than once.
  std::map<std::string, int64_t> highest;
  bool repeated = false;
  for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
    auto [it, inserted] = highest.emplace(NormalizedDomain(import.domain()), import.version());
    if (!inserted && it->second != import.version()) {
      repeated = true;
      it->second = std::max(it->second, import.version());
    }
  }
  // Only the first era wrote such models (WinMLTools 0.1, IR 3); from IR 4 on a repeated domain is an error.
  if (repeated && model.ir_version() <= kLastIrOfTheFirstEra) {
    ImportList merged;
    std::string versions;
    for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
      const std::string domain = NormalizedDomain(import.domain());
      auto it = highest.find(domain);
      if (it == highest.end()) continue;  // written already
      onnx::OperatorSetIdProto* kept = merged.Add();
      *kept = import;
      kept->set_version(it->second);
      highest.erase(it);
    }
    for (const onnx::OperatorSetIdProto& import : before) {
      absl::StrAppend(&versions, versions.empty() ? "" : ", ", DomainForDisplay(NormalizedDomain(import.domain())), " ",
                      import.version());
    }
    *model.mutable_opset_import() = merged;
    AddImportRepair(model,
                    absl::StrCat("a domain imported more than once (", versions,
                                 ") is imported once, at its highest version, which holds the ops of the others"),
                    before, repairs);
  }

  ImportTheMlDomainWhereUsed(model, repairs);
  const bool imports_default = std::any_of(model.opset_import().begin(), model.opset_import().end(),
                                           [](const auto& import) { return IsDefaultDomain(import.domain()); });
  if (imports_default) return absl::OkStatus();
  if (model.ir_version() < 3 && model.opset_import_size() == 0) {
    const ImportList unrepaired = model.opset_import();
    model.add_opset_import()->set_version(1);
    AddImportRepair(model,
                    absl::StrCat("IR version ", model.ir_version(),
                                 " has no opset imports and means the default domain at opset 1: imported"),
                    unrepaired, repairs);
    return absl::OkStatus();
  }
  if (model.ir_version() > kLastIrOfTheFirstEra || !HoldsDefaultDomainNode(model)) return absl::OkStatus();
  const int64_t implied = LowestFittingOpset(model);
  if (implied == 0) {
    return absl::InvalidArgumentError(absl::StrCat("the model imports no default-domain opset, and no opset of ",
                                                   kMinTargetOpset, " to ", kMaxTargetOpset, " fits its nodes (",
                                                   WhyNoOpsetFits(model), "): say which with an opset_import"));
  }
  const ImportList unrepaired = model.opset_import();
  onnx::OperatorSetIdProto* import = model.add_opset_import();
  import->set_domain(kDefaultDomain);
  import->set_version(implied);
  AddImportRepair(model,
                  absl::StrCat("no default-domain opset imported: read as opset ", implied,
                               ", the lowest whose schemas every default-domain node fits, and imported"),
                  unrepaired, repairs);
  return absl::OkStatus();
}

}  // namespace onnx_legalize
