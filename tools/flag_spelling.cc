#include "flag_spelling.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/flags/marshalling.h"
#include "absl/status/statusor.h"
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

// The spelling `body` names; for "no-X", "no_X" or absl's "noX" of a boolean X, X's, with `negated` set.
const FlagSpelling* ResolveSpelling(absl::Span<const FlagSpelling> spellings, absl::string_view body, bool& negated) {
  negated = false;
  if (const FlagSpelling* spelling = FindSpelling(spellings, body)) return spelling;
  for (absl::string_view prefix : {"no-", "no_", "no"}) {
    if (!absl::StartsWith(body, prefix)) continue;
    const FlagSpelling* base = FindSpelling(spellings, body.substr(prefix.size()));
    if (base != nullptr && base->kind == FlagKind::kBool) {
      negated = true;
      return base;
    }
  }
  return nullptr;
}

// absl's spelling of boolean flag `arg` (with its `value`, if given); the error message when it is invalid.
absl::StatusOr<std::string> MapBoolFlag(const FlagSpelling& spelling, absl::string_view arg, absl::string_view display,
                                        bool negated, std::optional<absl::string_view> value) {
  if (negated) {
    if (value.has_value()) return absl::InvalidArgumentError(absl::StrCat("'", arg, "' takes no value"));
    return absl::StrCat("--no", spelling.absl_name);
  }
  std::string error;
  bool parsed = false;
  if (value.has_value() && !absl::ParseFlag(std::string(*value), &parsed, &error)) {
    return absl::InvalidArgumentError(absl::StrCat("bad value '", *value, "' for ", display, ": ", error));
  }
  return value.has_value() ? absl::StrCat("--", spelling.absl_name, "=", *value)
                           : absl::StrCat("--", spelling.absl_name);
}

// absl's spelling of an int or string flag, its value given after '=' or as the next argument (argv[i + 1],
// and then `i` moves past it); the error message when it is missing or invalid.
absl::StatusOr<std::string> MapValueFlag(const FlagSpelling& spelling, absl::string_view display,
                                         std::optional<absl::string_view> value, absl::Span<const char* const> argv,
                                         size_t& i) {
  if (!value.has_value()) {
    if (i + 1 >= argv.size()) return absl::InvalidArgumentError(absl::StrCat(display, " needs a value"));
    value = argv[++i];
  }
  if (value->empty()) return absl::InvalidArgumentError(absl::StrCat(display, " needs a value"));
  std::string error;
  int64_t parsed = 0;
  if (spelling.kind == FlagKind::kInt && !absl::ParseFlag(std::string(*value), &parsed, &error)) {
    return absl::InvalidArgumentError(absl::StrCat("bad value '", *value, "' for ", display, ": ", error));
  }
  return absl::StrCat("--", spelling.absl_name, "=", *value);
}

}  // namespace

MappedCommandLine MapToAbslSpelling(absl::Span<const FlagSpelling> spellings, absl::Span<const char* const> argv) {
  const size_t argc = argv.size();
  MappedCommandLine mapped;
  mapped.args.emplace_back(argv[0]);
  auto fail = [&mapped](absl::string_view message) {
    if (mapped.error.empty()) mapped.error = std::string(message);
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
    const FlagSpelling* spelling = ResolveSpelling(spellings, body, negated);
    if (spelling == nullptr) {
      fail(absl::StrCat("unknown flag '", arg, "'"));
      continue;
    }
    const std::string display = absl::StrCat(spelling->name[1] == '\0' ? "-" : "--", spelling->name);
    mapped.given.insert(spelling->name);
    absl::StatusOr<std::string> mapped_arg;
    switch (spelling->kind) {
      case FlagKind::kHelp: mapped.help = true; continue;
      case FlagKind::kVersion: mapped.version = true; continue;
      case FlagKind::kBool: mapped_arg = MapBoolFlag(*spelling, arg, display, negated, value); break;
      case FlagKind::kInt:
      case FlagKind::kString: mapped_arg = MapValueFlag(*spelling, display, value, argv, i); break;
    }
    if (mapped_arg.ok()) {
      mapped.args.push_back(*std::move(mapped_arg));
    } else {
      fail(mapped_arg.status().message());
    }
  }
  return mapped;
}
}  // namespace onnx_legalize::cli
