#include "core/return_freed_memory.h"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__SANITIZE_ADDRESS__)
#define ONNX_LEGALIZE_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONNX_LEGALIZE_SANITIZED_ALLOCATOR 1
#endif
#endif

#if defined(__GLIBC__) && !defined(ONNX_LEGALIZE_SANITIZED_ALLOCATOR)
#include <malloc.h>
#endif

namespace onnx_legalize {

void ReturnFreedMemoryToSystem() {
#if defined(__GLIBC__) && !defined(ONNX_LEGALIZE_SANITIZED_ALLOCATOR)
  malloc_trim(0);
#endif
}

}  // namespace onnx_legalize
