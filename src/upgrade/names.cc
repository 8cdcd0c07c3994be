#include "upgrade/names.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace onnx_legalize::opset_upgrade {

std::string NameCodec::Encode(const std::string& name) {
  if (name.empty()) return name;
  auto [it, inserted] = codes_.emplace(name, decoded_.size());
  if (inserted) decoded_.push_back(name);
  return absl::StrCat("v", it->second);
}

const std::string* NameCodec::Decode(const std::string& code) const {
  int64_t index = ParseIndex(code, 'v');
  if (index < 0 || index >= static_cast<int64_t>(decoded_.size())) return nullptr;
  return &decoded_[static_cast<size_t>(index)];
}

std::string NameCodec::NodeTag(size_t index) { return absl::StrCat("n", index); }

int64_t NameCodec::NodeIndex(const std::string& tag) { return ParseIndex(tag, 'n'); }

int64_t NameCodec::ParseIndex(const std::string& code, char prefix) {
  if (code.size() < 2 || code[0] != prefix) return -1;
  if (code[1] == '0' && code.size() > 2) return -1;
  for (size_t i = 1; i < code.size(); ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(code[i]))) return -1;
  }
  int64_t value = 0;
  if (!absl::SimpleAtoi(code.substr(1), &value)) return -1;
  return value;
}

void FreshNames::Reserve(const std::string& name) {
  if (!name.empty()) taken_.insert(name);
}

std::string FreshNames::Make(const std::string& base) {
  std::string candidate = base;
  for (int64_t k = 1; taken_.count(candidate) > 0; ++k) candidate = absl::StrCat(base, "_", k);
  taken_.insert(candidate);
  return candidate;
}

void ReserveGraphNames(const onnx::GraphProto& graph, FreshNames& names) {
  for (const auto& v : graph.input()) names.Reserve(v.name());
  for (const auto& v : graph.output()) names.Reserve(v.name());
  for (const auto& v : graph.value_info()) names.Reserve(v.name());
  for (const auto& t : graph.initializer()) names.Reserve(t.name());
  for (const auto& t : graph.sparse_initializer()) names.Reserve(t.values().name());
  for (const auto& node : graph.node()) {
    for (const auto& n : node.input()) names.Reserve(n);
    for (const auto& n : node.output()) names.Reserve(n);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) ReserveGraphNames(attr.g(), names);
      for (const auto& g : attr.graphs()) ReserveGraphNames(g, names);
    }
  }
}

}  // namespace onnx_legalize::opset_upgrade
