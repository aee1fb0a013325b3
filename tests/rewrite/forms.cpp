// The forms of a convolution and the strategies each is not offered (see forms.hpp).

#include "forms.hpp"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "harness.hpp"

namespace liftc::rewrite::test {

namespace {

const char* const kDepthwise =
    "depthwise: each channel its own K x K kernel (a map over (kernel, bias, channel) triples), so no kernels across "
    "the channels to group (kappa), copy kernel-minor, tile, chunk by channels (omega) or multiply as an im2col matrix";

// The depthwise forms: normal-form makes each a map over (kernel, bias, channel) triples.
const char* const kDepthwiseForms[] = {"depthwise.sr",
                                       "depthwise_chw.sr",
                                       "depthwise_chw_nested.sr",
                                       "depthwise_hwc_columns.sr",
                                       "depthwise_hwc_prejoined.sr",
                                       "depthwise_dilated.sr",
                                       "depthwise_zip2d.sr",
                                       "depthwise_columns_bias_start.sr",
                                       "depthwise_chw_dilated.sr",
                                       "depthwise_stride2.sr",
                                       "depthwise_multiplier.sr",
                                       "depthwise_kernel_first.sr",
                                       "depthwise_multiplier_outer.sr",
                                       "depthwise_chw_kernel_first.sr",
                                       "depthwise_no_bias.sr",
                                       "depthwise_hwc_channel_outer.sr",
                                       "depthwise_rows_dilated.sr",
                                       "depthwise_dilated_per_channel.sr",
                                       "depthwise_chw_rows_joined.sr",
                                       "depthwise_chw_rows_joined_hwc_out.sr",
                                       "depthwise_chw_join_after.sr",
                                       "depthwise_chw_dilated_rows_joined.sr",
                                       "depthwise_chw_no_bias.sr",
                                       "depthwise_relu_pass.sr",
                                       "depthwise_chw_relu_pass.sr",
                                       "depthwise_bias_pass.sr",
                                       "depthwise_chw_rows_joined_leaky_pass.sr",
                                       "depthwise_chw_bias_inner_pass.sr",
                                       "depthwise_chw_bias_relu_pass.sr",
                                       "depthwise_dilated_windows_first.sr",
                                       "depthwise_flat_columns.sr",
                                       "depthwise_flat_window_columns.sr",
                                       "depthwise_channel_major_flat.sr",
                                       "depthwise_zipped_positions.sr",
                                       "depthwise_chw_dilated_1x1_windows.sr",
                                       "depthwise_multiplier_chw.sr",
                                       "depthwise_multiplier_chw_no_bias.sr",
                                       "depthwise_multiplier_no_bias.sr",
                                       "depthwise_kernel_window_bias.sr",
                                       "depthwise_chw_kernel_plane_bias.sr"};

// The dilated forms: normal-form moves each one's dilation onto the windows (dilated.sr's form).
const char* const kDilatedForms[] = {
    "dilated.sr",           "dilated_columns_first.sr",   "dilated_1x1_windows.sr",  "dilated_oihw_window_planes.sr",
    "dilated_pad_split.sr", "dilated_rows_only.sr",       "dilated_columns_only.sr", "dilated_transposed_pairs.sr",
    "dilated_phases.sr",    "dilated_chw_window_maps.sr", "dilated_window_map2d.sr", "conv1d_dilated.sr"};

// The grouped forms: normal-form makes each grouped.sr's map over the groups' (kernels, biases, windows).
const char* const kGroupedForms[] = {"grouped.sr",
                                     "grouped_per_group.sr",
                                     "grouped_pointwise.sr",
                                     "grouped_pointwise_slide.sr",
                                     "grouped_pointwise_channels_first.sr",
                                     "grouped_joined_per_group.sr",
                                     "grouped_chw_kernel_by_kernel.sr",
                                     "grouped_chw_rows_joined.sr",
                                     "grouped_split_image.sr",
                                     "grouped_split_image_unpadded.sr",
                                     "grouped_per_group_joined.sr",
                                     "grouped_window_split.sr",
                                     "grouped_no_bias.sr",
                                     "grouped_pointwise_no_bias.sr",
                                     "grouped_pointwise_chw_no_bias.sr"};

const char* const kWinogradShape =
    "Winograd F(m x m, 3 x 3) needs K = 3 and stride 1 (winograd.rules), and m = 2 or 4 dividing the output's sides";
const char* const kWinogradPairs =
    "Winograd needs the map over (kernel, bias) pairs over all channels directly in the map over windows";

const char* const kPerGroupWindows =
    "grouped, per group: the windows are each group's channels', not slide2D's windows of one HWC image (the windows-2D "
    "shape that split-join on a row's windows, pad-for-tiling and slide-tiling look for)";

const char* const kDilatedWindows =
    "dilated: the windows are a view of slide2D's wider windows (every d-th row and column), not slide2D's windows "
    "themselves (the windows-2D shape in which conv-parametric and conv-tiled tile the rows by their slides, the "
    "kernel-minor copy and conv-local find their places)";
const char* const kDilatedWinograd = "Winograd F(m x m, 3 x 3) needs slide2D's 3x3 windows with stride 1, not dilated ones";

const char* const kJoinedOneRow =
    "a 1-D convolution whose window sums are joined: read as a 2D convolution of one row, its map over groups of "
    "kernels sits under the join of that row and of each pixel's sums, not directly in the 2D map over windows "
    "(partial-sums-kappa-form)";

const char* const kSquareTiling =
    "slide2D-tiling tiles square windows with one stride, slide2D(k, k, s, s, x)";

const char* const kGroupedPointwisePixels =
    "grouped 1x1 channel-first, per group: each group's kernels are vectors over its pixels' channels, not kernels "
    "over "
    "slide2D's windows, which windows-2D and kernel-groups-into-reduction look for (explore splits it by group, and "
    "the groups take the dense strategies)";

const char* const kGrouped =
    "grouped: the map over (kernel, bias) pairs sits inside a map over the groups, not directly in the map over "
    "windows, which the register tile, the omega partial sums, im2col, hoist-kernels and the kernel-minor copy rewrite";

const char* const kPooled =
    "a convolution and its pooling in one definition: normal-form computes the convolution's outputs inside each "
    "pooling window (pool-windows-of-conv), where kernels and work-groups over the whole image (partial sums, im2col, "
    "the kernel-minor copy, local-memory tiles, Winograd's transforms) cannot go; conv-pool-tile takes it";

// The forms of a convolution and its pooling in one definition: the pooling over slide2D's
// non-overlapping windows, or over tile2D's tiles (pool-tiles-as-windows), the convolution
// named by a let or not.
const char* const kPooledForms[] = {"conv_pool_one_definition.sr", "conv_pool_joined.sr", "conv_pool_tile2d.sr",
                                    "conv_pool_tile2d_let.sr", "conv_pool_chw_planes.sr"};
// The forms of a convolution and its residual add in one definition: its windows zipped with
// the other image's pixels, or its output; the image zipped first (normal-form swaps the zips:
// residual-pixels-second, residual-outputs-second, residual-value-second and its -pairs form),
// or its values in each sum's start (residual-start-out-activation adds them after the sums),
// or zipped first with the kernels and biases, as (value, kernel, bias) triples or
// (value, (kernel, bias)) pairs (triple-value-first-rotated, nested-zip-flatten-whole), or over
// channel-first planes, also with a per-channel gain on the convolution
// (residual-gain-out-of-planes).
const char* const kResidualForms[] = {"conv_residual_one_definition.sr",
                                      "conv_residual_relu_first.sr",
                                      "conv_residual_output.sr",
                                      "conv_residual_image_first.sr",
                                      "conv_residual_output_image_first.sr",
                                      "conv_residual_in_start.sr",
                                      "conv_residual_value_first.sr",
                                      "conv_residual_value_start.sr",
                                      "conv_residual_nested_pairs.sr",
                                      "conv_residual_chw.sr",
                                      "conv_residual_gain_chw.sr"};
const char* const kZippedPixels =
    "a convolution and its residual add in one definition: its windows zipped with the other image's pixels, which "
    "the strategies that map the windows or the kernels' sums onto work-items, work-groups or kernels of their own "
    "cannot take (unzipped-pixels-form); liftc explore splits it into the convolution, which they take, and the add";
const char* const kZippedPairs =
    "a convolution and its residual add in one definition: its (kernel, bias) pairs inside the map over the pixels "
    "zipped with the other image, not directly in the map over windows (hoist-kernels)";
const char* const kResidualReadByActivation =
    "a ReLU before the residual add, relu(conv(x)) + x: a function of each sum that reads the other image's value, "
    "which the local-memory tiles' work-items cannot apply to their own register tiles (they hold the sums alone)";

// MobileNetV2's depthwise layer, projection and residual add in one definition, the depthwise
// windows zipped with the block's input (conv-dw-pw-private and conv-dw-pw-local take it through
// dw-pw-residual-zipped-form; conv-lower, stencil-parametric and conv-chw as normal-form leaves it):
// the add a function of two parameters, of one reading the pair through projections, or with the
// block's input zipped before the pointwise sums.
const char* const kDwPwResidualForms[] = {"depthwise_pointwise_residual_zip2d.sr", "depthwise_pointwise_residual_pair.sr",
                                          "depthwise_pointwise_residual_value_first.sr"};
const char* const kDwPwZippedPixels =
    "a depthwise convolution fused with its pointwise one and a residual add in one definition: its windows zipped "
    "with the other image's pixels, which the strategies that map the windows or the kernels' sums onto work-items, "
    "work-groups or kernels of their own cannot take (unzipped-pixels-form); conv-dw-pw-private and conv-dw-pw-local "
    "take it";
const char* const kDwPwPairs =
    "a depthwise convolution fused with its pointwise one: no map over (kernel, bias) pairs whose kernels read all of "
    "a window's channels (the depthwise kernels read one channel each, the pointwise sums the let-bound depthwise "
    "values), which hoist-kernels, the kappa kernel groups, the omega partial sums and the kernel-minor copy need";

}  // namespace

const std::vector<NotOffered>& forms_not_offered() {
  static const std::vector<NotOffered> table = [] {
    std::vector<NotOffered> t;
    for (const char* f : {"floor_mode.sr",
                          "stride2.sr",
                          "k1.sr",
                          "k1_stride2.sr",
                          "pointwise.sr",
                          "pointwise_no_bias.sr",
                          "pointwise_inner_product.sr",
                          "k5_odd.sr",
                          "k7.sr",
                          "k11.sr",
                          "k3x1.sr",
                          "grouped_pointwise.sr",
                          "grouped_pointwise_slide.sr",
                          "grouped_pointwise_channels_first.sr",
                          "grouped_pointwise_no_bias.sr",
                          "grouped_pointwise_chw_no_bias.sr",
                          "conv1d.sr",
                          "conv1d_per_kernel.sr",
                          "conv1d_joined_relu.sr",
                          "conv1d_chw_relu.sr",
                          "conv1d_kernels_transposed.sr",
                          "conv1d_per_kernel_projections.sr"})
      for (const char* s : {"conv-winograd", "conv-winograd-gemm", "conv-winograd-local"}) t.push_back({f, s, kWinogradShape});
    for (const char* f : kDepthwiseForms)
      for (const char* s : {"conv-winograd", "conv-winograd-gemm", "conv-winograd-local"}) t.push_back({f, s, kWinogradPairs});
    for (const char* f :
         {"grouped.sr", "grouped_per_group.sr", "grouped_joined_per_group.sr", "grouped_chw_kernel_by_kernel.sr",
          "grouped_chw_rows_joined.sr", "grouped_split_image.sr", "grouped_split_image_unpadded.sr",
          "grouped_per_group_joined.sr", "grouped_window_split.sr", "grouped_no_bias.sr"})
      for (const char* s : {"conv-winograd", "conv-winograd-gemm", "conv-winograd-local"}) t.push_back({f, s, kWinogradPairs});
    for (const char* s : {"conv-parametric", "conv-tiled", "conv-chw-kappa"})
      t.push_back({"grouped_pointwise_chw_no_bias.sr", s, kGroupedPointwisePixels});
    for (const char* f : {"k3x1.sr", "conv1d.sr", "conv1d_per_kernel.sr", "conv1d_joined_relu.sr", "conv1d_chw_relu.sr",
                          "conv1d_kernels_transposed.sr", "conv1d_per_kernel_projections.sr"})
      t.push_back({f, "conv-local", kSquareTiling});
    for (const char* f : {"conv1d_joined_relu.sr", "conv1d_chw_relu.sr", "conv1d_kernels_transposed.sr",
                          "conv1d_per_kernel_projections.sr"})
      t.push_back({f, "conv-chw-omega-kappa", kJoinedOneRow});
    for (const char* f : kDilatedForms) {
      for (const char* s : {"conv-parametric", "conv-tiled", "conv-local", "conv-chw-m0", "conv-chw-tile-m0", "conv-chw-omega-m0"})
        t.push_back({f, s, kDilatedWindows});
      for (const char* s : {"conv-winograd", "conv-winograd-gemm", "conv-winograd-local"}) t.push_back({f, s, kDilatedWinograd});
    }
    for (const char* s : {"conv-local", "conv-chw-kappa", "conv-chw-m0", "conv-chw-tile", "conv-chw-tile-m0",
                          "conv-chw-tile-local", "conv-chw-tile-split", "conv-chw-omega", "conv-chw-omega-m0", "conv-chw-omega-kappa",
                          "conv-gemm"})
      for (const char* f : kDepthwiseForms) t.push_back({f, s, kDepthwise});
    for (const char* s : {"conv-local", "conv-chw-m0", "conv-chw-tile", "conv-chw-tile-m0", "conv-chw-tile-local",
                          "conv-chw-tile-split", "conv-chw-omega", "conv-chw-omega-m0", "conv-chw-omega-kappa", "conv-gemm"})
      for (const char* f : kGroupedForms) t.push_back({f, s, kGrouped});
    for (const char* s : {"conv-parametric", "conv-tiled"})
      for (const char* f : {"grouped_per_group.sr", "grouped_chw_kernel_by_kernel.sr", "grouped_chw_rows_joined.sr",
                            "grouped_per_group_joined.sr"})
        t.push_back({f, s, kPerGroupWindows});
    for (const char* s : {"conv-naive", "conv-gpu", "conv-gpu-k0", "conv-local", "conv-chw-m0", "conv-chw-tile-m0",
                          "conv-chw-tile-local", "conv-chw-tile-split", "conv-chw-omega", "conv-chw-omega-m0",
                          "conv-chw-omega-kappa", "conv-gemm", "conv-winograd", "conv-winograd-gemm", "conv-winograd-local"})
      for (const char* f : kPooledForms) t.push_back({f, s, kPooled});
    for (const char* f : kResidualForms) {
      for (const char* s : {"conv-parametric", "conv-tiled", "conv-naive", "conv-gpu", "conv-gpu-k0", "conv-chw-kappa"})
        t.push_back({f, s, kZippedPixels});
      t.push_back({f, "conv-local", kZippedPairs});
    }
    t.push_back({"conv_residual_relu_first.sr", "conv-chw-tile-local", kResidualReadByActivation});
    for (const char* f : kDwPwResidualForms) {
      for (const char* s : {"conv-parametric", "conv-tiled", "conv-naive", "conv-gpu", "conv-gpu-k0", "conv-chw-kappa",
                            "conv-chw-m0", "conv-chw-tile", "conv-chw-tile-m0", "conv-chw-tile-local", "conv-chw-tile-split",
                            "conv-gemm", "conv-winograd", "conv-winograd-gemm", "conv-winograd-local"})
        t.push_back({f, s, kDwPwZippedPixels});
      for (const char* s : {"conv-local", "conv-chw-omega", "conv-chw-omega-m0", "conv-chw-omega-kappa"})
        t.push_back({f, s, kDwPwPairs});
    }
    return t;
  }();
  return table;
}

const std::vector<OnlyOffered>& forms_only_offered() {
  static const std::vector<OnlyOffered> table = [] {
    std::vector<OnlyOffered> t;
    for (const char* f : kDepthwiseForms)
      for (const char* s : {"conv-depthwise-kappa", "conv-depthwise-tile"}) t.push_back({f, s});
    // The local tiles split the channels among work-groups, so a channel multiplier's m kernels
    // a channel (each group's kernels not its tile's channels) is not taken.
    for (const char* f : kDepthwiseForms)
      if (std::string_view(f) != "depthwise_multiplier.sr" && std::string_view(f) != "depthwise_multiplier_outer.sr" &&
          std::string_view(f) != "depthwise_multiplier_no_bias.sr")
        t.push_back({f, "conv-depthwise-local"});
    for (const char* f : kPooledForms)
      for (const char* s : {"conv-pool-tile", "conv-pool-kappa", "conv-pool-tile-rt"}) t.push_back({f, s});
    for (const char* f : kDwPwResidualForms)
      for (const char* s : {"conv-dw-pw-private", "conv-dw-pw-local"}) t.push_back({f, s});
    // A 1-D convolution written per window is a 1-D stencil too (written per output channel,
    // its map over windows sits inside the map over kernels, where stencil1d-tiled does not look).
    for (const char* f : {"conv1d.sr", "conv1d_joined_relu.sr", "conv1d_dilated.sr", "conv1d_kernels_transposed.sr"})
      t.push_back({f, "stencil1d-tiled"});
    return t;
  }();
  return table;
}

std::vector<std::string> conv_forms() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(LIFTC_EXAMPLES_DIR) / "conv" / "forms"))
    if (e.path().extension() == ".sr") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> offered_strategies(const std::string& text) {
  ir::Program p = program(text);
  RewriteOptions o;
  o.budget.max_alternatives = 1;
  std::vector<std::string> out;
  for (const auto& s : default_strategies(library())) {
    try {
      rewrite_program(library(), s, p, o);
      out.push_back(s);
    } catch (const Error&) {
      // not offered: the strategy applies to no definition
    }
  }
  return out;
}

}  // namespace liftc::rewrite::test
