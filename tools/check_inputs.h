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

// Expands each argument in order. A folder (named directly, or through a symbolic link) becomes every
// regular file named *.onnx below it, recursively, sorted by path (byte order), so that the list does not
// depend on the order the filesystem lists them in. Below a named folder, symbolic links are not followed
// out of the tree: a link to a folder is never descended into (which also keeps cycles out), and a link
// to a file is kept only when its target lies inside the named folder. Anything else (a file, a path that
// does not exist) is kept as given, for the model loader to accept or refuse.
std::vector<CheckInput> ExpandCheckPaths(const std::vector<std::string>& arguments);

}  // namespace onnx_legalize::cli

#endif  // ONNX_LEGALIZE_TOOLS_CHECK_INPUTS_H_
