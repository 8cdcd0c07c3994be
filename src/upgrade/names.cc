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

std::string NameCodec::Encoded(const std::string& name) const {
  auto it = codes_.find(name);
  return it == codes_.end() ? std::string() : absl::StrCat("v", it->second);
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

}  // namespace onnx_legalize::opset_upgrade
