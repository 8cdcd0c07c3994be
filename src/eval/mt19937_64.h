// The 64-bit Mersenne Twister, std::mt19937_64 output for output, without its branch.
//
// Verification draws every byte of its trial data from a seeded std::mt19937_64, so that the same seed
// gives the same trials run after run; the engine was a quarter of verifying 20,000 rewrites. libstdc++'s
// state refresh picks the twist matrix with a branch that goes either way at random (y & 1), which costs
// about 7 ns a number; the same recurrence written with a mask costs about 2. Same seeding, same numbers
// (tests/verify/verify_test.cc compares them with std::mt19937_64), and the UniformRandomBitGenerator interface,
// so std::shuffle and friends draw exactly what they drew from std::mt19937_64.
#ifndef ONNX_LEGALIZE_SRC_EVAL_MT19937_64_H_
#define ONNX_LEGALIZE_SRC_EVAL_MT19937_64_H_

#include <cstddef>
#include <cstdint>

namespace onnx_legalize {

class Mt19937_64 {
 public:
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }

  // std::mt19937_64's seeding (the generator's own initialization multiplier, 6364136223846793005).
  explicit Mt19937_64(result_type seed) {
    state_[0] = seed;
    for (size_t i = 1; i < kStateSize; ++i) {
      state_[i] = 6364136223846793005ULL * (state_[i - 1] ^ (state_[i - 1] >> 62)) + i;
    }
  }

  result_type operator()() {
    if (next_ >= kStateSize) Refresh();
    result_type z = state_[next_++];
    z ^= (z >> 29) & 0x5555555555555555ULL;
    z ^= (z << 17) & 0x71d67fffeda60000ULL;
    z ^= (z << 37) & 0xfff7eee000000000ULL;
    z ^= z >> 43;
    return z;
  }

 private:
  static constexpr size_t kStateSize = 312;
  static constexpr size_t kShift = 156;
  static constexpr uint64_t kUpperMask = 0xffffffff80000000ULL;
  static constexpr uint64_t kLowerMask = 0x7fffffffULL;
  static constexpr uint64_t kMatrix = 0xb5026f5aa96619e9ULL;

  static uint64_t Twist(uint64_t upper, uint64_t lower, uint64_t far) {
    const uint64_t y = (upper & kUpperMask) | (lower & kLowerMask);
    return far ^ (y >> 1) ^ ((0 - (y & 1)) & kMatrix);  // the matrix when y is odd, without a branch
  }

  void Refresh() {
    size_t i = 0;
    for (; i < kStateSize - kShift; ++i) state_[i] = Twist(state_[i], state_[i + 1], state_[i + kShift]);
    for (; i < kStateSize - 1; ++i) state_[i] = Twist(state_[i], state_[i + 1], state_[i + kShift - kStateSize]);
    state_[kStateSize - 1] = Twist(state_[kStateSize - 1], state_[0], state_[kShift - 1]);
    next_ = 0;
  }

  uint64_t state_[kStateSize];
  size_t next_ = kStateSize;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_MT19937_64_H_
