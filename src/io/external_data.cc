#include "io/external_data.h"

#include <limits>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/graph_scope.h"
#include "graph/labels.h"

namespace onnx_legalize {
namespace {

class TensorWalker {
 public:
  explicit TensorWalker(const std::function<void(const onnx::TensorProto&, const TensorSite&)>& visit)
      : visit_(visit) {}

  void Model(const onnx::ModelProto& model) {
    Graph(model.graph(), kMainGraphPath);
    for (const auto& function : model.functions()) {
      const std::string path = absl::StrCat("function:", function.domain(), ".", function.name());
      for (const auto& node : function.node()) Node(node, path);
    }
    for (int i = 0; i < model.training_info_size(); ++i) {
      const onnx::TrainingInfoProto& info = model.training_info(i);
      if (info.has_initialization()) {
        Graph(info.initialization(), absl::StrCat("training_info[", i, "].initialization"));
      }
      if (info.has_algorithm()) Graph(info.algorithm(), absl::StrCat("training_info[", i, "].algorithm"));
    }
  }

 private:
  void Graph(const onnx::GraphProto& graph, const std::string& path) {
    for (const auto& initializer : graph.initializer()) {
      visit_(initializer, {absl::StrCat("initializer '", initializer.name(), "' (graph ", path, ")"), true});
    }
    for (const auto& sparse : graph.sparse_initializer()) {
      Sparse(sparse, absl::StrCat("sparse initializer '", sparse.values().name(), "' (graph ", path, ")"));
    }
    for (const auto& node : graph.node()) Node(node, path);
  }

  void Node(const onnx::NodeProto& node, const std::string& path) {
    for (const auto& attribute : node.attribute()) {
      // Most attributes hold no tensor: describe only those that do.
      if (!attribute.has_t() && attribute.tensors_size() == 0 && !attribute.has_sparse_tensor() &&
          attribute.sparse_tensors_size() == 0) {
        continue;
      }
      const std::string where = absl::StrCat("attribute '", attribute.name(), "' of ", InGraph(NodeLabel(node), path));
      if (attribute.has_t()) visit_(attribute.t(), {where, false});
      for (int i = 0; i < attribute.tensors_size(); ++i) {
        visit_(attribute.tensors(i), {absl::StrCat(where, " tensor ", i), false});
      }
      if (attribute.has_sparse_tensor()) Sparse(attribute.sparse_tensor(), where);
      for (int i = 0; i < attribute.sparse_tensors_size(); ++i) {
        Sparse(attribute.sparse_tensors(i), absl::StrCat(where, " sparse tensor ", i));
      }
    }
    // Subgraphs after the node's own tensors, depth first.
    ForEachSubgraph(node, [&](const std::string& attribute, const onnx::GraphProto& subgraph) {
      Graph(subgraph, SubgraphPath(path, node, attribute, subgraph));
    });
  }

  void Sparse(const onnx::SparseTensorProto& sparse, const std::string& where) {
    if (sparse.has_values()) visit_(sparse.values(), {absl::StrCat(where, " values"), false});
    if (sparse.has_indices()) visit_(sparse.indices(), {absl::StrCat(where, " indices"), false});
  }

  const std::function<void(const onnx::TensorProto&, const TensorSite&)>& visit_;
};

}  // namespace

void SetExternalDataRef(onnx::TensorProto& tensor, const std::string& location, int64_t offset, int64_t length) {
  tensor.set_data_location(onnx::TensorProto::EXTERNAL);
  tensor.clear_external_data();
  auto add = [&tensor](const char* key, std::string value) {
    onnx::StringStringEntryProto* entry = tensor.add_external_data();
    entry->set_key(key);
    entry->set_value(std::move(value));
  };
  add(kLocationKey, location);
  add(kOffsetKey, absl::StrCat(offset));
  add(kLengthKey, absl::StrCat(length));
}

void ForEachTensor(const onnx::ModelProto& model,
                   const std::function<void(const onnx::TensorProto&, const TensorSite&)>& visit) {
  TensorWalker(visit).Model(model);
}

void ForEachMutableTensor(onnx::ModelProto& model,
                          const std::function<void(onnx::TensorProto&, const TensorSite&)>& visit) {
  // The walk only reads the containers; each tensor it hands out belongs to the non-const `model`, so
  // giving it back mutable is sound.
  ForEachTensor(model, [&visit](const onnx::TensorProto& tensor, const TensorSite& site) {
    visit(const_cast<onnx::TensorProto&>(tensor), site);
  });
}

}  // namespace onnx_legalize
