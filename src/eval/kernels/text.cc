// Ops on strings: StringNormalizer (opset 10, unchanged to 17).
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

constexpr int64_t kStringNormalizerOpset = 10;

bool IsAscii(const std::string& text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// StringNormalizer: drops the elements equal to a stop word (ignoring case unless is_case_sensitive), then maps
// the rest to lower or upper case. Input [C] or [1, C]; when every element is dropped the output is one empty
// string, [1] or [1, 1] (the spec's "empty output" rule, as onnx's test test_strnorm_model_monday_empty_output
// holds it). Case mapping follows `locale`, which the spec leaves to the platform: here only ASCII text, whose
// mapping every locale shares, is mapped; other text is Unimplemented rather than given one platform's reading.
absl::StatusOr<Outputs> RunStringNormalizer(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(kStringNormalizerOpset)) {
    return absl::InvalidArgumentError(StrCat("StringNormalizer is defined from opset ", kStringNormalizerOpset));
  }
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  if (!x->is_string()) return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), ", not strings"));
  const bool one_row = x->rank() == 2 && x->dims()[0] == 1;
  if (x->rank() != 1 && !one_row) {
    return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), "; StringNormalizer takes [C] or [1, C]"));
  }
  ASSIGN_OR_RETURN(const std::string action, StringAttributeOr(ctx.node, "case_change_action", "NONE"));
  if (action != "NONE" && action != "LOWER" && action != "UPPER") {
    return absl::InvalidArgumentError(StrCat("case_change_action is '", action, "'"));
  }
  ASSIGN_OR_RETURN(const int64_t case_sensitive, IntAttributeOr(ctx.node, "is_case_sensitive", 0));
  std::vector<std::string> stopwords;
  if (const onnx::AttributeProto* attribute = FindAttribute(ctx.node, "stopwords")) {
    stopwords.assign(attribute->strings().begin(), attribute->strings().end());
  }
  const bool maps_case = action != "NONE" || (case_sensitive == 0 && !stopwords.empty());
  auto fold = [case_sensitive](const std::string& text) {
    return case_sensitive != 0 ? text : absl::AsciiStrToLower(text);
  };
  std::unordered_set<std::string> stop;
  for (const std::string& word : stopwords) {
    if (maps_case && !IsAscii(word)) {
      return absl::UnimplementedError(
          StrCat("stop word '", word, "' is not ASCII: its case mapping depends on the locale"));
    }
    stop.insert(fold(word));
  }
  std::vector<std::string> kept;
  for (const std::string& text : x->strings()) {
    if (maps_case && !IsAscii(text)) {
      return absl::UnimplementedError(
          StrCat("X holds '", text, "', not ASCII: its case mapping depends on the locale"));
    }
    if (stop.count(fold(text)) > 0) continue;
    if (action == "LOWER") {
      kept.push_back(absl::AsciiStrToLower(text));
    } else if (action == "UPPER") {
      kept.push_back(absl::AsciiStrToUpper(text));
    } else {
      kept.push_back(text);
    }
  }
  if (kept.empty()) kept.emplace_back();
  std::vector<int64_t> dims = {static_cast<int64_t>(kept.size())};
  if (one_row) dims.insert(dims.begin(), 1);
  return Single(Tensor::FromStrings(std::move(dims), std::move(kept)));
}

}  // namespace

void AddTextKernels(KernelTable& table) { table["StringNormalizer"] = RunStringNormalizer; }

}  // namespace onnx_legalize
