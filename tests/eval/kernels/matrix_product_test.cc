// The kernels' matrix products (src/eval/kernels/matrix_product.h): every instruction set's kernel this
// processor runs computes the product, transposed operands and row strides included, and gives the same bits
// when it computes it again; the one chosen is the widest the processor has.
#include "eval/kernels/matrix_product.h"

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace onnx_legalize {
namespace {

using internal::CanRun;
using internal::MatrixIsa;
using internal::MultiplyMatricesWith;

struct ProductCase {
  const char* name;
  int64_t m, k, n;
  bool transpose_a, transpose_b;
  int64_t padding;  // extra elements at the end of every stored row
};
void PrintTo(const ProductCase& c, std::ostream* os) { *os << c.name; }

// A stored operand: rows x cols values (each row `padding` longer than it needs), read transposed or not.
template <typename T>
struct StoredMatrix {
  std::vector<T> values;
  MatrixOperand<T> operand;
};

template <typename T>
StoredMatrix<T> Store(int64_t rows, int64_t cols, bool transposed, int64_t padding, uint64_t seed) {
  const int64_t stored_rows = transposed ? cols : rows, stored_cols = transposed ? rows : cols;
  StoredMatrix<T> matrix;
  matrix.values.resize(static_cast<size_t>(stored_rows * (stored_cols + padding)));
  for (size_t i = 0; i < matrix.values.size(); ++i) {
    matrix.values[i] = static_cast<T>(static_cast<double>((i * 7919 + seed) % 2001) / 1000.0 - 1.0);
  }
  matrix.operand = {matrix.values.data(), stored_rows, stored_cols, stored_cols + padding, transposed};
  return matrix;
}

// Element (row, col) of the operand as the product reads it.
template <typename T>
double At(const MatrixOperand<T>& a, int64_t row, int64_t col) {
  return a.transposed ? a.data[col * a.stride + row] : a.data[row * a.stride + col];
}

class MatrixProductTest : public ::testing::TestWithParam<ProductCase> {};

template <typename T>
void CheckEveryKernel(const ProductCase& c, double tolerance) {
  const StoredMatrix<T> a = Store<T>(c.m, c.k, c.transpose_a, c.padding, 1);
  const StoredMatrix<T> b = Store<T>(c.k, c.n, c.transpose_b, c.padding, 2);
  const int64_t out_stride = c.n + c.padding;
  for (const MatrixIsa isa : {MatrixIsa::kAvx512, MatrixIsa::kAvx2, MatrixIsa::kBaseline}) {
    if (!CanRun(isa)) continue;
    SCOPED_TRACE(static_cast<int>(isa));
    // The padding of the output's rows is never written.
    std::vector<T> out(static_cast<size_t>(c.m * out_stride), T{-7});
    MultiplyMatricesWith(isa, a.operand, b.operand, out.data(), out_stride);
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double want = 0;
        for (int64_t l = 0; l < c.k; ++l) want += At(a.operand, i, l) * At(b.operand, l, j);
        ASSERT_NEAR(out[i * out_stride + j], want, tolerance * (1 + std::fabs(want))) << i << ", " << j;
      }
      for (int64_t j = c.n; j < out_stride; ++j) ASSERT_EQ(out[i * out_stride + j], T{-7});
    }
    std::vector<T> again(out.size(), T{-7});
    MultiplyMatricesWith(isa, a.operand, b.operand, again.data(), out_stride);
    EXPECT_EQ(again, out);
  }
}

TEST_P(MatrixProductTest, EveryKernelTheProcessorRunsComputesTheProductTheSameWayTwice) {
  CheckEveryKernel<float>(GetParam(), 1e-5);
  CheckEveryKernel<double>(GetParam(), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatrixProductTest,
                         ::testing::Values(ProductCase{"Square", 17, 17, 17, false, false, 0},
                                           ProductCase{"LongInner", 5, 700, 9, false, false, 0},
                                           ProductCase{"WideOutput", 33, 27, 513, false, false, 3},
                                           ProductCase{"TransposedA", 20, 31, 18, true, false, 0},
                                           ProductCase{"TransposedB", 20, 31, 18, false, true, 5},
                                           ProductCase{"BothTransposed", 64, 48, 40, true, true, 1},
                                           ProductCase{"Vector", 1, 100, 1, false, false, 0},
                                           ProductCase{"EmptyInner", 4, 0, 6, false, false, 0},
                                           ProductCase{"NoRows", 0, 5, 6, false, false, 0}),
                         [](const ::testing::TestParamInfo<ProductCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(MatrixProductTest, BaselineAlwaysRunsAndTheWidestKernelIsChosen) {
  EXPECT_TRUE(CanRun(MatrixIsa::kBaseline));
  const std::string chosen = MatrixProductInstructionSet();
  if (CanRun(MatrixIsa::kAvx512)) {
    EXPECT_EQ(chosen, "avx512");
  } else if (CanRun(MatrixIsa::kAvx2)) {
    EXPECT_EQ(chosen, "avx2");
  } else {
    EXPECT_EQ(chosen, "baseline");
  }
  // A processor that runs AVX-512 runs AVX2 too: the checks are not independent guesses.
  if (CanRun(MatrixIsa::kAvx512)) EXPECT_TRUE(CanRun(MatrixIsa::kAvx2));
}

TEST(MatrixProductTest, IntegerProductsWrap) {
  const std::vector<uint32_t> a = {0x80000000u, 3}, b = {2, 5};
  uint32_t out = 1;
  MultiplyMatrices<uint32_t>({a.data(), 1, 2, 2}, {b.data(), 2, 1, 1}, &out, 1);
  EXPECT_EQ(out, 15u);  // 2^31 * 2 wraps to 0
  const std::vector<int64_t> c = {-4, 6, 1, 2}, d = {3, -1};
  std::vector<int64_t> product(2);
  MultiplyMatrices<int64_t>({c.data(), 2, 2, 2}, {d.data(), 2, 1, 1}, product.data(), 1);
  EXPECT_EQ(product, (std::vector<int64_t>{-18, 1}));
}

}  // namespace
}  // namespace onnx_legalize
