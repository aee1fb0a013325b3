#!/usr/bin/env python3
"""Times cuDNN's fp32 3x3 convolution (pad 1, stride 1, batch 1, TF32 off) through PyTorch:
the outside reference of scripts/bench_vgg.sh. Prints the median time in ms.

Usage: bench_torch_conv.py C H W M RUNS
"""
import statistics
import sys

import torch


def main() -> None:
    c, h, w, m, runs = (int(a) for a in sys.argv[1:6])
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # let cuDNN pick its best algorithm, as a tuned library would
    x = torch.randn(1, c, h, w, device="cuda")
    weight = torch.randn(m, c, 3, 3, device="cuda")
    bias = torch.randn(m, device="cuda")
    for _ in range(3):
        torch.nn.functional.conv2d(x, weight, bias, padding=1)
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.nn.functional.conv2d(x, weight, bias, padding=1)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    print(f"{statistics.median(times):.4f}")


if __name__ == "__main__":
    main()
