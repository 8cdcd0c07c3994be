// The CLI's tree mode: `onnx-legalize SRC... -o DEST_DIR` and `onnx-legalize --in-place PATH...` over files and
// folders, -j N files at a time, with a progress line on a terminal, a summary table, a JSON Lines report, and
// Ctrl-C that lets the files in hand finish (so no partial file is left) and says what was done.
#ifndef ONNX_LEGALIZE_TOOLS_TREE_MODE_H_
#define ONNX_LEGALIZE_TOOLS_TREE_MODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_legalize/legalize.h"
#include "onnx_legalize/legalize_tree.h"

namespace onnx_legalize::cli {

struct TreeRequest {
  std::vector<TreeFile> plan;  // PlanTree's
  std::string dest_dir;        // "" in place
  Options options;
  SaveOptions save_options;
  int64_t jobs = 1;
  std::string report_path;  // "" none, "-" stdout (the summary then goes to stderr)
};

// Exit code of a tree run that interrupted it (128 + SIGINT, as a shell reports a process Ctrl-C stopped).
inline constexpr int kExitInterrupted = 130;

// Legalizes every file of the plan and prints the summary; the exit code: the worst of the files' (0, 3 when a
// file was refused or could not be written, 4 when verification failed), or kExitInterrupted.
int RunTree(const TreeRequest& request);

}  // namespace onnx_legalize::cli

#endif  // ONNX_LEGALIZE_TOOLS_TREE_MODE_H_
