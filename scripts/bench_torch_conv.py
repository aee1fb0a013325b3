#!/usr/bin/env python3
"""Times cuDNN's fp32 convolution (batch 1, TF32 off) through PyTorch: the outside reference
of scripts/bench_shape.sh, bench_vgg.sh and bench_explored.sh. Prints the median time in ms;
with --memory also the peak GPU memory of one call in bytes (input, weights, bias, output
and cuDNN's workspace, all allocated by PyTorch), after the warm-up calls in which cuDNN
picks its algorithm.

Usage: bench_torch_conv.py C H W M RUNS [K STRIDE PAD] [--memory]
K STRIDE PAD default to 3 1 1 (VGG-16's layers).
"""
import argparse
import statistics

import torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", type=int, nargs="+", metavar="N", help="C H W M RUNS [K STRIDE PAD]")
    parser.add_argument("--memory", action="store_true", help="also print the peak memory of one call in bytes")
    args = parser.parse_args()
    if len(args.sizes) not in (5, 8):
        parser.error("give C H W M RUNS, or C H W M RUNS K STRIDE PAD")
    c, h, w, m, runs = args.sizes[:5]
    k, stride, pad = args.sizes[5:] if len(args.sizes) == 8 else (3, 1, 1)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # let cuDNN pick its best algorithm, as a tuned library would
    x = torch.randn(1, c, h, w, device="cuda")
    weight = torch.randn(m, c, k, k, device="cuda")
    bias = torch.randn(m, device="cuda")

    def conv():
        return torch.nn.functional.conv2d(x, weight, bias, stride=stride, padding=pad)

    for _ in range(3):
        conv()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        conv()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    line = f"{statistics.median(times):.4f}"
    if args.memory:
        line += f" {torch.cuda.max_memory_allocated()}"
    print(line)


if __name__ == "__main__":
    main()
