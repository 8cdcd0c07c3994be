// --check's PATH arguments as the list of files to check: a folder stands for every *.onnx file below it.
#ifndef ONNX_LEGALIZE_TOOLS_CHECK_INPUTS_H_
#define ONNX_LEGALIZE_TOOLS_CHECK_INPUTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace onnx_legalize::cli {

struct CheckInput {
  std::string path;
  absl::Status status;  // not OK: a folder that could not be listed (the message says why)
};

// Expands each argument in order: FindModelFiles (onnx_legalize/legalize_tree.h), which says how folders and
// symbolic links are walked. Anything but a folder (a file, a path that does not exist) is kept as given,
// for the model loader to accept or refuse.
std::vector<CheckInput> ExpandCheckPaths(const std::vector<std::string>& arguments);

}  // namespace onnx_legalize::cli

#endif  // ONNX_LEGALIZE_TOOLS_CHECK_INPUTS_H_
