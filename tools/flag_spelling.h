// The spelling layer in front of absl::ParseCommandLine: argv as users write it in, argv as absl spells it
// (or the first usage error) out. It reads no flag and exits nothing, so it can be tested on its own.
//
//  - Spelling: users write hyphens (--target-opset, --no-verify); absl names flags with underscores and
//    negates booleans as --noNAME. MapToAbslSpelling() rewrites each flag of ours to absl's canonical
//    `--absl_name=value` form (which also joins "--report -" into "--report=-", a value absl would
//    otherwise question). It leaves values and positionals alone.
//  - Exit codes: absl exits with status 1 on an unknown flag or a bad value, but 1 means "--check found
//    something" to onnx-legalize. So the mapping rejects unknown flags and malformed values itself, with
//    absl's own value parser (absl::ParseFlag), and the caller exits 2 with the error it returns.
#ifndef ONNX_LEGALIZE_TOOLS_FLAG_SPELLING_H_
#define ONNX_LEGALIZE_TOOLS_FLAG_SPELLING_H_

#include <set>
#include <string>
#include <vector>

#include "absl/types/span.h"

namespace onnx_legalize::cli {

// What a flag takes, which decides how its value is checked and passed on.
enum class FlagKind { kBool, kInt, kString, kHelp, kVersion };

struct FlagSpelling {
  const char* name;       // as users write it, with hyphens; a one-letter name is written "-x"
  const char* absl_name;  // the ABSL_FLAG it maps to; "" for kHelp and kVersion, which absl never sees
  FlagKind kind;
};

struct MappedCommandLine {
  std::vector<std::string> args;  // argv for absl::ParseCommandLine, argv[0] included
  std::set<std::string> given;    // hyphenated names of the flags that appeared
  bool help = false;
  bool version = false;
  std::string error;  // the first usage error, "" when none
};

// Maps `argv` (argv[0] included, so never empty) for the flags in `spellings`. Every argument is read,
// even after an error, so that --help and --version are seen wherever they stand.
MappedCommandLine MapToAbslSpelling(absl::Span<const FlagSpelling> spellings, absl::Span<const char* const> argv);

}  // namespace onnx_legalize::cli

#endif  // ONNX_LEGALIZE_TOOLS_FLAG_SPELLING_H_
