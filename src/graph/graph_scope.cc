#include "graph/graph_scope.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/error_kind.h"
#include "core/external_tensor.h"
#include "core/status_macros.h"
#include "graph/names.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

ValueType ValueTypeOf(const onnx::ValueInfoProto& info) {
  ValueType type;
  if (!info.type().has_tensor_type()) return type;
  const onnx::TypeProto_Tensor& tensor = info.type().tensor_type();
  type.elem_type = tensor.elem_type();
  if (tensor.has_shape()) {
    std::vector<int64_t> dims;
    for (const auto& dim : tensor.shape().dim()) {
      dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    }
    type.dims = std::move(dims);
  }
  return type;
}

void IndexValueInfos(const onnx::GraphProto& graph,
                     absl::flat_hash_map<absl::string_view, const onnx::ValueInfoProto*>& index) {
  for (const auto& info : graph.input()) index.emplace(info.name(), &info);
  for (const auto& info : graph.output()) index.emplace(info.name(), &info);
  for (const auto& info : graph.value_info()) index.emplace(info.name(), &info);
}

// The values a Constant node's value_* attributes hold, as ONNX defines them.
absl::StatusOr<Tensor> ConstantAttributeValue(const onnx::AttributeProto& attribute) {
  const std::string& name = attribute.name();
  if (name == "value_float") {
    std::string bytes(sizeof(float), '\0');
    float value = attribute.f();
    std::memcpy(bytes.data(), &value, sizeof(float));
    return Tensor::FromBytes(onnx::TensorProto::FLOAT, {}, std::move(bytes));
  }
  if (name == "value_floats") {
    std::string bytes(sizeof(float) * attribute.floats_size(), '\0');
    if (!bytes.empty()) std::memcpy(bytes.data(), attribute.floats().data(), bytes.size());
    return Tensor::FromBytes(onnx::TensorProto::FLOAT, {attribute.floats_size()}, std::move(bytes));
  }
  if (name == "value_int") {
    std::vector<int64_t> values = {attribute.i()};
    Tensor scalar = Tensor::FromInt64s(values);
    return Tensor::FromBytes(onnx::TensorProto::INT64, {}, scalar.release_bytes());
  }
  if (name == "value_ints") {
    return Tensor::FromInt64s({attribute.ints().begin(), attribute.ints().end()});
  }
  if (name == "value_string") return Tensor::FromStrings({}, {attribute.s()});
  if (name == "value_strings") {
    return Tensor::FromStrings({attribute.strings_size()}, {attribute.strings().begin(), attribute.strings().end()});
  }
  return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' is not a value the folder reads"));
}

}  // namespace

namespace {

// Decodes a tensor of the scope's graph for FindConstant. A large one views the graph's bytes instead of
// copying them (a weight of gigabytes is not held twice), unless the graph lives on an arena: Legalize
// moves large initializers between messages with Swap, which keeps their bytes where they are only
// between heap-allocated messages.
absl::StatusOr<Tensor> DecodeGraphTensor(const onnx::TensorProto& proto, absl::string_view what) {
  return proto.GetArena() == nullptr ? TensorViewFromProto(proto, what) : TensorFromProto(proto, what);
}

absl::StatusOr<Tensor> DecodeConstantNode(const onnx::NodeProto& node, bool view) {
  if (node.attribute_size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("Constant node '", node.name(), "' has ", node.attribute_size(),
                                                   " attributes; it must hold exactly one value"));
  }
  const onnx::AttributeProto& attribute = node.attribute(0);
  if (attribute.name() == "value") {
    const std::string what = absl::StrCat("Constant node '", node.name(), "' value");
    return view ? DecodeGraphTensor(attribute.t(), what) : TensorFromProto(attribute.t(), what);
  }
  absl::StatusOr<Tensor> value = ConstantAttributeValue(attribute);
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("Constant node '", node.name(), "': ", value.status().message()));
  }
  return value;
}

}  // namespace

absl::StatusOr<Tensor> ConstantNodeValue(const onnx::NodeProto& node) {
  return DecodeConstantNode(node, /*view=*/false);
}

GraphScope::GraphScope(const onnx::GraphProto& graph, std::string path, const GraphScope* outer,
                       bool initializers_are_overridable, const onnx::GraphProto* inferred,
                       const ExternalDataReader* external_data)
    : graph_(graph), path_(std::move(path)), outer_(outer), inferred_(inferred), external_data_(external_data) {
  absl::flat_hash_set<absl::string_view> is_input;
  // defined_here_ only hides outer values: nothing encloses a scope without an outer one (the main
  // graph), whose tens of thousands of names would be tabled for nothing.
  const bool hides_outer = outer_ != nullptr;
  if (hides_outer) defined_here_.reserve(CountDefinedNames(graph));
  // Sizes of repeated fields are ints; summed as size_t, three of them cannot overflow.
  auto value_count = [](const onnx::GraphProto& g) {
    return static_cast<size_t>(g.input_size()) + static_cast<size_t>(g.output_size()) +
           static_cast<size_t>(g.value_info_size());
  };
  declared_types_.reserve(value_count(graph));
  if (inferred_ != nullptr) inferred_types_.reserve(value_count(*inferred_));
  for (const auto& input : graph.input()) {
    is_input.insert(input.name());
    if (hides_outer) defined_here_.insert(input.name());
  }
  for (const auto& initializer : graph.initializer()) {
    all_initializers_.emplace(initializer.name(), &initializer);
    if (hides_outer) defined_here_.insert(initializer.name());
    if (initializers_are_overridable && is_input.count(initializer.name())) continue;
    // Without a reader the library reads no file: an external initializer is then no constant.
    if (IsExternal(initializer) && external_data_ == nullptr) {
      unreadable_external_.insert(initializer.name());
      continue;
    }
    constant_initializers_.emplace(initializer.name(), &initializer);
  }
  for (const auto& node : graph.node()) {
    if (hides_outer) {
      for (const auto& output : node.output()) {
        if (!output.empty()) defined_here_.insert(output);
      }
    }
    if (node.op_type() == kConstantOp && IsDefaultDomain(node.domain()) && node.output_size() == 1) {
      const bool external_value =
          node.attribute_size() == 1 && node.attribute(0).has_t() && IsExternal(node.attribute(0).t());
      if (external_value && external_data_ == nullptr) {
        unreadable_external_.insert(node.output(0));
      } else {
        constant_nodes_.emplace(node.output(0), &node);
      }
    }
  }
  IndexValueInfos(graph, declared_types_);
  if (inferred_ != nullptr) IndexValueInfos(*inferred_, inferred_types_);
}

bool GraphScope::HidesOuter(const std::string& name) const {
  return outer_ != nullptr && defined_here_.count(name) > 0;
}

const onnx::TensorProto* GraphScope::FindConstantProtoHere(const std::string& name) const {
  auto it = constant_initializers_.find(name);
  return it == constant_initializers_.end() ? nullptr : it->second;
}

absl::StatusOr<Tensor> GraphScope::DecodeExternal(const onnx::TensorProto& proto, const std::string& what) const {
  return TensorFromExternalData(
      proto, [&]() -> absl::StatusOr<std::string> { return external_data_->Read(proto); }, what);
}

absl::StatusOr<const Tensor*> GraphScope::FindConstant(const std::string& name) const {
  for (const GraphScope* scope = this; scope != nullptr; scope = scope->outer_) {
    auto cached = scope->decoded_.find(name);
    if (cached != scope->decoded_.end()) return cached->second.get();
    if (const onnx::TensorProto* proto = scope->FindConstantProtoHere(name)) {
      const std::string what = absl::StrCat("initializer '", name, "' (graph ", scope->path_, ")");
      ASSIGN_OR_RETURN(Tensor value,
                       IsExternal(*proto) ? scope->DecodeExternal(*proto, what) : DecodeGraphTensor(*proto, what));
      auto& slot = scope->decoded_[name];
      slot = std::make_shared<const Tensor>(std::move(value));
      return slot.get();
    }
    auto node = scope->constant_nodes_.find(name);
    if (node != scope->constant_nodes_.end()) {
      const onnx::NodeProto& constant = *node->second;
      absl::StatusOr<Tensor> value =
          constant.attribute_size() == 1 && constant.attribute(0).has_t() && IsExternal(constant.attribute(0).t())
              ? scope->DecodeExternal(constant.attribute(0).t(),
                                      absl::StrCat("Constant node '", constant.name(), "' value"))
              : DecodeConstantNode(constant, /*view=*/true);
      if (!value.ok()) {
        // The code stays: a missing external file is NotFound, a malformed value InvalidArgument.
        return WithMessage(value.status(), absl::StrCat(value.status().message(), " (graph ", scope->path_, ")"));
      }
      auto& slot = scope->decoded_[name];
      slot = std::make_shared<const Tensor>(*std::move(value));
      return slot.get();
    }
    // A name defined here but not as a constant hides any outer value of the same name.
    if (scope->HidesOuter(name)) return nullptr;
  }
  return nullptr;
}

bool GraphScope::IsExternalData(const std::string& name) const {
  for (const GraphScope* scope = this; scope != nullptr; scope = scope->outer_) {
    if (scope->decoded_.count(name)) return false;
    if (const onnx::TensorProto* proto = scope->FindConstantProtoHere(name)) return IsExternal(*proto);
    auto node = scope->constant_nodes_.find(name);
    if (node != scope->constant_nodes_.end()) {
      const onnx::NodeProto& constant = *node->second;
      return constant.attribute_size() == 1 && constant.attribute(0).has_t() && IsExternal(constant.attribute(0).t());
    }
    if (scope->unreadable_external_.count(name)) return true;
    if (scope->HidesOuter(name)) return false;
  }
  return false;
}

std::optional<std::vector<int64_t>> GraphScope::ConstantDims(const std::string& name) const {
  for (const GraphScope* scope = this; scope != nullptr; scope = scope->outer_) {
    auto cached = scope->decoded_.find(name);
    if (cached != scope->decoded_.end()) return cached->second->dims();
    if (const onnx::TensorProto* proto = scope->FindConstantProtoHere(name)) {
      return std::vector<int64_t>(proto->dims().begin(), proto->dims().end());
    }
    auto node = scope->constant_nodes_.find(name);
    if (node != scope->constant_nodes_.end()) {
      const onnx::NodeProto& constant = *node->second;
      if (constant.attribute_size() == 1 && constant.attribute(0).name() == "value") {
        const auto& dims = constant.attribute(0).t().dims();
        return std::vector<int64_t>(dims.begin(), dims.end());
      }
      return std::nullopt;
    }
    if (scope->HidesOuter(name)) return std::nullopt;
  }
  return std::nullopt;
}

void GraphScope::AddConstant(const std::string& name, std::shared_ptr<const Tensor> value) {
  decoded_[name] = std::move(value);
}

std::optional<ValueType> GraphScope::FindTypeHere(const std::string& name) const {
  auto decoded = decoded_.find(name);
  if (decoded != decoded_.end()) {
    return ValueType{decoded->second->type(), decoded->second->dims()};
  }
  auto initializer = all_initializers_.find(name);
  if (initializer != all_initializers_.end()) {
    const onnx::TensorProto& proto = *initializer->second;
    return ValueType{proto.data_type(), std::vector<int64_t>(proto.dims().begin(), proto.dims().end())};
  }
  auto node = constant_nodes_.find(name);
  if (node != constant_nodes_.end() && node->second->attribute_size() == 1 &&
      node->second->attribute(0).name() == "value") {
    const onnx::TensorProto& proto = node->second->attribute(0).t();
    return ValueType{proto.data_type(), std::vector<int64_t>(proto.dims().begin(), proto.dims().end())};
  }
  // A declared type wins over an inferred one, but an inferred one can add the rank a declaration lacks.
  ValueType type;
  auto declared = declared_types_.find(name);
  if (declared != declared_types_.end()) type = ValueTypeOf(*declared->second);
  auto inferred = inferred_types_.find(name);
  if (inferred != inferred_types_.end()) {
    ValueType more = ValueTypeOf(*inferred->second);
    if (type.elem_type == 0) type.elem_type = more.elem_type;
    if (!type.dims.has_value()) type.dims = more.dims;
  }
  if (type.elem_type == 0 && !type.dims.has_value()) {
    if (HidesOuter(name)) return ValueType{};
    return std::nullopt;
  }
  return type;
}

ValueType GraphScope::FindType(const std::string& name) const {
  for (const GraphScope* scope = this; scope != nullptr; scope = scope->outer_) {
    std::optional<ValueType> type = scope->FindTypeHere(name);
    if (type.has_value()) return *type;
  }
  return ValueType{};
}

}  // namespace onnx_legalize
