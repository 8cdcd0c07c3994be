// The names the opset upgrade gives: the private names values and nodes carry in the skeleton the converter
// sees, and fresh names for the values the converter makes.
//
// Why private names: onnx's converter names every value it creates with a per-graph counter, unique in its
// own graph and that graph's subgraphs but not in the enclosing ones, so names collide across nested graphs
// (1.23's are "_v_7"; 1.12's were "7", like the numeric names old PyTorch exports are full of).
// In the skeleton every value is "v<k>", so a converter-made name can never be mistaken for one of ours, and
// every node is "n<k>", its index in the table of original nodes (Skeleton::records).
#ifndef ONNX_LEGALIZE_SRC_UPGRADE_NAMES_H_
#define ONNX_LEGALIZE_SRC_UPGRADE_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnx/onnx_pb.h"

namespace onnx_legalize::opset_upgrade {

// Original value names <-> skeleton names "v<k>". Node tags "n<k>" index the node table.
class NameCodec {
 public:
  std::string Encode(const std::string& name);
  // The original name, or nullptr for a name the converter made.
  const std::string* Decode(const std::string& code) const;
  // The skeleton name Encode gave `name`, or "" when it gave none.
  std::string Encoded(const std::string& name) const;
  static std::string NodeTag(size_t index);
  // The node-table index of a tag, or -1.
  static int64_t NodeIndex(const std::string& tag);

 private:
  static int64_t ParseIndex(const std::string& code, char prefix);

  std::unordered_map<std::string, size_t> codes_;
  std::vector<std::string> decoded_;
};

}  // namespace onnx_legalize::opset_upgrade

#endif  // ONNX_LEGALIZE_SRC_UPGRADE_NAMES_H_
