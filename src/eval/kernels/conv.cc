// Conv (Conv-1 and Conv-11 mean the same: N-D, groups, dilations, auto_pad; conv_geometry.h has the window
// rule), by im2col and a matrix product through Eigen (matrix_product.h):
//
//   for each image n and group g:
//     col[c * K + k, p] = X[n, g*Cg + c, p * stride - pad_begin + k * dilation]   (0 in the padding)
//     Y[n, g*Mg .. (g+1)*Mg, p] = W_g [Mg, Cg*K] x col [Cg*K, p]
//   then Y[n, m, p] += B[m]
//
// So each output element is its Eigen dot product over (channel, kernel offset), then plus its bias. The
// output positions are taken in chunks so that col stays near kColumnElements (in the cache); the chunk sizes depend
// only on the shapes, so the sums do too. float16 is computed in float.
#include <algorithm>
#include <optional>
#include <vector>

#include "core/status_macros.h"
#include "eval/kernels/conv_geometry.h"
#include "eval/kernels/conv_kernels.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/matrix_product.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

// The elements one im2col chunk holds: 256 Ki (1 MiB of float), about a core's L2 cache. The product packs the
// chunk into its own panel layout right after im2col writes it, so a chunk that stays in the cache is read
// from there; chunks of 64 MiB (until 2026-12-07) went to memory and back twice, and each fresh buffer was
// faulted in page by page: the style-transfer network's proof took 1.5 times as long.
constexpr int64_t kColumnElements = int64_t{1} << 18;
// The fewest positions a chunk takes, however many rows the window has: a product a few columns wide would
// repack the weights for little work.
constexpr int64_t kMinimumChunk = 64;

// Fills col[rows = Cg * K, positions first..first+count) for one image and group. `x` points at the group's
// first channel.
template <typename T>
void Im2Col(const T* x, int64_t channels, const WindowGeometry& g, int64_t first, int64_t count, T* col) {
  const size_t rank = g.rank();
  const int64_t in_size = DimsProduct(g.in, 0, rank);
  const int64_t kernel_size = DimsProduct(g.kernel, 0, rank);
  std::vector<int64_t> k(rank), o(rank);
  for (int64_t c = 0; c < channels; ++c) {
    std::fill(k.begin(), k.end(), 0);
    for (int64_t kk = 0; kk < kernel_size; ++kk) {
      T* row = col + (c * kernel_size + kk) * count;
      // The output coordinate of position `first`.
      int64_t rest = first;
      for (size_t d = rank; d-- > 0;) {
        o[d] = rest % g.out[d];
        rest /= g.out[d];
      }
      for (int64_t p = 0; p < count; ++p) {
        int64_t offset = 0;
        bool inside = true;
        for (size_t d = 0; d < rank && inside; ++d) {
          const int64_t i = o[d] * g.strides[d] - g.pad_begin[d] + k[d] * g.dilations[d];
          inside = i >= 0 && i < g.in[d];
          offset = offset * g.in[d] + i;
        }
        row[p] = inside ? x[c * in_size + offset] : T{0};
        for (size_t d = rank; d-- > 0;) {  // next output coordinate
          if (++o[d] < g.out[d]) break;
          o[d] = 0;
        }
      }
      for (size_t d = rank; d-- > 0;) {  // next kernel offset
        if (++k[d] < g.kernel[d]) break;
        k[d] = 0;
      }
    }
  }
}

// Im2Col for the 2-D case, which nearly every model's Conv is: the same values in the same places, taken a
// run of an output row at a time (the run inside the input copied, the padding on either side zeroed)
// instead of an element at a time with its coordinates recomputed, which cost the proof of a CNN more than
// its matrix products.
template <typename T>
void Im2Col2d(const T* x, int64_t channels, const WindowGeometry& g, int64_t first, int64_t count, T* col) {
  const int64_t in_h = g.in[0], in_w = g.in[1], out_w = g.out[1];
  const int64_t stride_w = g.strides[1];
  T* row = col;
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = x + c * in_h * in_w;
    for (int64_t kh = 0; kh < g.kernel[0]; ++kh) {
      for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
        // Output column ow reads input column ow * stride_w + shift, inside the input for ow in [lo, hi).
        const int64_t shift = kw * g.dilations[1] - g.pad_begin[1];
        const int64_t lo = shift >= 0 ? 0 : (-shift + stride_w - 1) / stride_w;
        const int64_t hi = in_w - 1 - shift < 0 ? 0 : (in_w - 1 - shift) / stride_w + 1;
        for (int64_t p = first; p < first + count;) {
          const int64_t oh = p / out_w, ow_begin = p % out_w;
          const int64_t ow_end = std::min(out_w, ow_begin + (first + count - p));
          const int64_t ih = oh * g.strides[0] - g.pad_begin[0] + kh * g.dilations[0];
          T* run = row + (p - first);  // run[ow - ow_begin] is the element of output column ow
          if (ih < 0 || ih >= in_h) {
            std::fill(run, run + (ow_end - ow_begin), T{0});
          } else {
            const T* in_row = plane + ih * in_w;
            const int64_t inside_begin = std::clamp(lo, ow_begin, ow_end);
            const int64_t inside_end = std::clamp(hi, inside_begin, ow_end);
            std::fill(run, run + (inside_begin - ow_begin), T{0});
            for (int64_t ow = inside_begin; ow < inside_end; ++ow) run[ow - ow_begin] = in_row[ow * stride_w + shift];
            std::fill(run + (inside_end - ow_begin), run + (ow_end - ow_begin), T{0});
          }
          p += ow_end - ow_begin;
        }
        row += count;
      }
    }
  }
}

// A 1x1 window at stride 1 without padding reads each input element once, where it is: its im2col matrix is
// the input itself, rows `in_size` apart.
bool ReadsInputAsItIs(const WindowGeometry& g) {
  for (size_t d = 0; d < g.rank(); ++d) {
    if (g.kernel[d] != 1 || g.strides[d] != 1 || g.pad_begin[d] != 0 || g.out[d] != g.in[d]) return false;
  }
  return true;
}

template <typename T>
absl::StatusOr<Tensor> ApplyConv(const Tensor& x, const Tensor& w, const Tensor* b, const WindowGeometry& g,
                                 int64_t group) {
  const int64_t n_images = x.dims()[0], channels = x.dims()[1], maps = w.dims()[0];
  const int64_t cg = channels / group, mg = maps / group;
  const int64_t kernel_size = DimsProduct(g.kernel, 0, g.rank());
  const int64_t in_size = DimsProduct(g.in, 0, g.rank());
  std::vector<int64_t> out_dims = {n_images, maps};
  out_dims.insert(out_dims.end(), g.out.begin(), g.out.end());
  RETURN_IF_ERROR(CheckedOutputCount(out_dims, "Conv's output").status());
  const int64_t positions = DimsProduct(g.out, 0, g.rank());
  const int64_t rows = cg * kernel_size;
  const int64_t chunk = std::min(positions, std::max(kMinimumChunk, kColumnElements / std::max<int64_t>(rows, 1)));
  const ElementsAs<T> xv(x), wv(w);
  ASSIGN_OR_RETURN(OutputAs<T> y, OutputAs<T>::Make(x.type(), out_dims));  // every element is a product's
  const bool direct = ReadsInputAsItIs(g);
  std::vector<T> col(direct ? 0 : static_cast<size_t>(rows * chunk));
  for (int64_t n = 0; n < n_images; ++n) {
    for (int64_t gi = 0; gi < group; ++gi) {
      const T* x_group = xv.data() + (n * channels + gi * cg) * in_size;
      const MatrixOperand<T> w_group{wv.data() + gi * mg * rows, mg, rows, rows};
      for (int64_t first = 0; first < positions; first += chunk) {
        const int64_t take = std::min(chunk, positions - first);
        MatrixOperand<T> columns{col.data(), rows, take, take};
        if (direct) {
          columns = {x_group + first, rows, take, in_size};
        } else if (g.rank() == 2) {
          Im2Col2d(x_group, cg, g, first, take, col.data());
        } else {
          Im2Col(x_group, cg, g, first, take, col.data());
        }
        MultiplyMatrices<T>(w_group, columns, y.data() + (n * maps + gi * mg) * positions + first, positions);
      }
    }
  }
  if (b != nullptr) {
    const ElementsAs<T> bias(*b);
    for (int64_t n = 0; n < n_images; ++n) {
      for (int64_t m = 0; m < maps; ++m) {
        T* run = y.data() + (n * maps + m) * positions;
        for (int64_t p = 0; p < positions; ++p) run[p] += bias[m];
      }
    }
  }
  return std::move(y).Finish();
}

absl::StatusOr<Outputs> RunConv(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 3));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const Tensor* w, RequiredInput(ctx, 1, "W"));
  const Tensor* b = ctx.Input(2);
  ASSIGN_OR_RETURN(const ConvOperands operands, CheckConvOperands(ctx, *x, *w, b, /*transposed=*/false));
  ASSIGN_OR_RETURN(const WindowGeometry g, SlidingWindow(ctx, operands.spatial, operands.kernel, WindowOptions()));
  // Each output element (N x M x the output's spatial dims) is a dot product over W's dims past the first.
  int64_t work = SaturatingMul(x->dims()[0], w->element_count());
  for (const int64_t size : g.out) work = SaturatingMul(work, size);
  RETURN_IF_ERROR(AffordWork(ctx, work, "the convolution"));
  return Single(VisitFloating(x->type(), "Conv",
                              [&](auto tag) { return ApplyConv<decltype(tag)>(*x, *w, b, g, operands.group); }));
}

}  // namespace

void AddConvKernels(KernelTable& table) {
  table["Conv"] = RunConv;
  table["ConvTranspose"] = RunConvTranspose;
}

}  // namespace onnx_legalize
