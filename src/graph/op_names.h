// Op types and domains the legalizer looks for, written once.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_OP_NAMES_H_
#define ONNX_LEGALIZE_SRC_GRAPH_OP_NAMES_H_

#include <string>

namespace onnx_legalize {

inline constexpr char kDynamicSliceOp[] = "DynamicSlice";
inline constexpr char kSliceOp[] = "Slice";
inline constexpr char kConstantOp[] = "Constant";

// ONNX's default domain may be written either way; both mean the same opset.
inline constexpr char kDefaultDomain[] = "";
inline constexpr char kDefaultDomainAlias[] = "ai.onnx";

// The domain of onnx's traditional machine-learning ops (ZipMap, LinearClassifier, ...).
inline constexpr char kMlDomain[] = "ai.onnx.ml";
inline constexpr char kZipMapOp[] = "ZipMap";

inline bool IsDefaultDomain(const std::string& domain) {
  return domain == kDefaultDomain || domain == kDefaultDomainAlias;
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_OP_NAMES_H_
