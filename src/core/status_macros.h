// Status propagation helpers. abseil 20220623 ships no status macros, so the project keeps its own two,
// here and nowhere else.
#ifndef ONNX_LEGALIZE_SRC_CORE_STATUS_MACROS_H_
#define ONNX_LEGALIZE_SRC_CORE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` is a declaration ("const auto x") and `statusor` a name
// the macro makes; neither may be parenthesized.
#define OL_CONCAT_INNER(a, b) a##b
#define OL_CONCAT(a, b) OL_CONCAT_INNER(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                \
  do {                                       \
    ::absl::Status ol_status_ = (expr);      \
    if (!ol_status_.ok()) return ol_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, F())` declares x from an absl::StatusOr, or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(OL_CONCAT(ol_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                          \
  if (!statusor.ok()) return statusor.status();    \
  lhs = std::move(statusor).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // ONNX_LEGALIZE_SRC_CORE_STATUS_MACROS_H_
