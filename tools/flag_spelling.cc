#include "flag_spelling.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/flags/marshalling.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"

namespace onnx_legalize::cli {
namespace {

// `name` with underscores read as hyphens, so absl's own spellings work too.
const FlagSpelling* FindSpelling(absl::Span<const FlagSpelling> spellings, absl::string_view name) {
  const std::string hyphenated = absl::StrReplaceAll(name, {{"_", "-"}});
  for (const FlagSpelling& spelling : spellings) {
    if (hyphenated == spelling.name) return &spelling;
  }
  return nullptr;
}

}  // namespace

MappedCommandLine MapToAbslSpelling(absl::Span<const FlagSpelling> spellings, absl::Span<const char* const> argv) {
  const size_t argc = argv.size();
  MappedCommandLine mapped;
  mapped.args.emplace_back(argv[0]);
  auto fail = [&mapped](std::string message) {
    if (mapped.error.empty()) mapped.error = std::move(message);
  };
  for (size_t i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") {  // Everything after it is positional, for absl too.
      for (; i < argc; ++i) mapped.args.emplace_back(argv[i]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {  // A positional ("-" included).
      mapped.args.emplace_back(arg);
      continue;
    }
    absl::string_view body = arg.substr(absl::StartsWith(arg, "--") ? 2 : 1);
    std::optional<absl::string_view> value;
    if (const size_t equals = body.find('='); equals != absl::string_view::npos) {
      value = body.substr(equals + 1);
      body = body.substr(0, equals);
    }
    bool negated = false;
    const FlagSpelling* spelling = FindSpelling(spellings, body);
    if (spelling == nullptr) {
      // --no-verify, --no_verify and absl's --noverify all negate a boolean.
      for (absl::string_view prefix : {"no-", "no_", "no"}) {
        if (!absl::StartsWith(body, prefix)) continue;
        const FlagSpelling* base = FindSpelling(spellings, body.substr(prefix.size()));
        if (base != nullptr && base->kind == FlagKind::kBool) {
          spelling = base;
          negated = true;
          break;
        }
      }
    }
    if (spelling == nullptr) {
      fail(absl::StrCat("unknown flag '", arg, "'"));
      continue;
    }
    const std::string display = absl::StrCat(spelling->name[1] == '\0' ? "-" : "--", spelling->name);
    mapped.given.insert(spelling->name);
    switch (spelling->kind) {
      case FlagKind::kHelp: mapped.help = true; break;
      case FlagKind::kVersion: mapped.version = true; break;
      case FlagKind::kBool: {
        if (negated) {
          if (value.has_value()) {
            fail(absl::StrCat("'", arg, "' takes no value"));
            break;
          }
          mapped.args.push_back(absl::StrCat("--no", spelling->absl_name));
          break;
        }
        std::string error;
        bool parsed = false;
        if (value.has_value() && !absl::ParseFlag(std::string(*value), &parsed, &error)) {
          fail(absl::StrCat("bad value '", *value, "' for ", display, ": ", error));
          break;
        }
        mapped.args.push_back(value.has_value() ? absl::StrCat("--", spelling->absl_name, "=", *value)
                                                : absl::StrCat("--", spelling->absl_name));
        break;
      }
      case FlagKind::kInt:
      case FlagKind::kString: {
        if (!value.has_value()) {
          if (i + 1 >= argc) {
            fail(absl::StrCat(display, " needs a value"));
            break;
          }
          value = argv[++i];
        }
        if (value->empty()) {
          fail(absl::StrCat(display, " needs a value"));
          break;
        }
        std::string error;
        int64_t parsed = 0;
        if (spelling->kind == FlagKind::kInt && !absl::ParseFlag(std::string(*value), &parsed, &error)) {
          fail(absl::StrCat("bad value '", *value, "' for ", display, ": ", error));
          break;
        }
        mapped.args.push_back(absl::StrCat("--", spelling->absl_name, "=", *value));
        break;
      }
    }
  }
  return mapped;
}

}  // namespace onnx_legalize::cli
