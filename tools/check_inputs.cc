#include "check_inputs.h"

#include <string>
#include <vector>

#include "onnx_legalize/legalize_tree.h"

namespace onnx_legalize::cli {

std::vector<CheckInput> ExpandCheckPaths(const std::vector<std::string>& arguments) {
  std::vector<CheckInput> inputs;
  for (FoundModel& found : FindModelFiles(arguments))
    inputs.push_back({std::move(found.path), std::move(found.status)});
  return inputs;
}

}  // namespace onnx_legalize::cli
