#ifndef ONNX_LEGALIZE_CORE_RETURN_FREED_MEMORY_H_
#define ONNX_LEGALIZE_CORE_RETURN_FREED_MEMORY_H_

namespace onnx_legalize {

// Gives the pages of memory this process has freed back to the system now. glibc keeps what a thread frees
// in that thread's arena, where another thread would not reuse it; after a large structure goes, this keeps
// the process's peak down. Does nothing where the allocator is not glibc's: in a build with AddressSanitizer
// every allocation is the sanitizer's, and glibc's malloc_trim would walk arenas it never set up (it crashed
// when two threads called it at once).
void ReturnFreedMemoryToSystem();

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_CORE_RETURN_FREED_MEMORY_H_
