#!/usr/bin/env python3
"""Times cuDNN's fp32 convolution (batch 1, TF32 off) through PyTorch: the outside reference
of scripts/bench_conv_shape.sh, bench_vgg.sh and bench_explored.sh. Prints the median time in
ms; with --memory also the peak GPU memory of one call in bytes (input, weights, bias, output
and cuDNN's workspace, all allocated by PyTorch), after the warm-up calls in which cuDNN
picks its algorithm.

cuDNN picks its algorithm by timing each candidate once (torch.backends.cudnn.benchmark), and
the pick varies from one process to the next: on an H100 the 64x64x32 -> 64 5x5 convolution
took 0.045 ms in one process and 0.063-0.069 ms in eight others. So the convolution is timed
in --processes fresh processes (default 3), each picking afresh, and the fastest median is
printed (with that process's memory): cuDNN at its best pick, not at a typical one. Every
process's median goes to stderr.

With --batch the convolutions are read from standard input, one per line (C H W M RUNS
[K STRIDE PAD [GROUPS]]), and each process times all of them, one after another: one line is
printed per convolution, in their order, each the fastest of the processes. Starting PyTorch
and CUDA takes seconds per process, so a benchmark of many shapes asks for them all at once.

GROUPS splits the channels into groups convolved apart (PyTorch's groups=): C and M are
multiples of it, each of the M kernels reads C / GROUPS channels. GROUPS = C = M is a
depthwise convolution.

With --cuda-graph each call is a replay of a CUDA graph that captured the convolution once
(torch.cuda.CUDAGraph), timed with CUDA events as the eager calls are: the time without
PyTorch's dispatch and launch gaps, which an eager call of a small convolution is mostly
made of. That is the fair comparison with liftc's OpenCL event times.

Usage: bench_torch_conv.py C H W M RUNS [K STRIDE PAD [GROUPS]] [--memory] [--cuda-graph] [--processes N]
       bench_torch_conv.py --batch [--memory] [--cuda-graph] [--processes N] < SHAPES
K STRIDE PAD default to 3 1 1 (VGG-16's layers), GROUPS to 1.
"""
import argparse
import statistics
import subprocess
import sys


def shape_of(sizes: list[int], where: str) -> tuple[int, ...]:
    """C H W M RUNS K STRIDE PAD GROUPS from 5, 8 or 9 numbers (K STRIDE PAD default to 3 1 1, GROUPS to 1)."""
    if len(sizes) not in (5, 8, 9):
        sys.exit(f"bench_torch_conv.py: {where}: give C H W M RUNS, or C H W M RUNS K STRIDE PAD [GROUPS]; got {len(sizes)} number(s)")
    if min(sizes) < 0 or min(sizes[:5]) < 1 or (len(sizes) >= 8 and min(sizes[5:7]) < 1) or (len(sizes) == 9 and sizes[8] < 1):
        sys.exit(f"bench_torch_conv.py: {where}: C H W M RUNS K STRIDE and GROUPS must be at least 1, PAD at least 0")
    shape = tuple(sizes) if len(sizes) >= 8 else (*sizes, 3, 1, 1)
    shape = shape if len(shape) == 9 else (*shape, 1)
    if shape[0] % shape[8] or shape[3] % shape[8]:
        sys.exit(f"bench_torch_conv.py: {where}: GROUPS ({shape[8]}) must divide C ({shape[0]}) and M ({shape[3]})")
    return shape


def read_batch() -> list[tuple[int, ...]]:
    shapes = []
    for number, line in enumerate(sys.stdin, start=1):
        if line.strip():
            try:
                sizes = [int(word) for word in line.split()]
            except ValueError:
                sys.exit(f"bench_torch_conv.py: standard input, line {number}: not a list of integers: {line.strip()!r}")
            shapes.append(shape_of(sizes, f"standard input, line {number}"))
    if not shapes:
        sys.exit("bench_torch_conv.py: --batch: no convolution on standard input")
    return shapes


def time_conv(torch, shape: tuple[int, ...], memory: bool, cuda_graph: bool) -> str:
    """One convolution's median time in ms (and its peak memory in bytes), in this process."""
    c, h, w, m, runs, k, stride, pad, groups = shape
    x = torch.randn(1, c, h, w, device="cuda")
    weight = torch.randn(m, c // groups, k, k, device="cuda")
    bias = torch.randn(m, device="cuda")

    def eager():
        return torch.nn.functional.conv2d(x, weight, bias, stride=stride, padding=pad, groups=groups)

    for _ in range(3):
        eager()
    torch.cuda.synchronize()
    # The peak of one eager call after the warm-up (cuDNN's algorithm picked): inputs, output
    # and workspace. A graph's replays write into its own memory pool, which this does not see.
    torch.cuda.reset_peak_memory_stats()
    eager()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    conv = eager
    if cuda_graph:
        # Captured on a side stream after the warm-up calls (cuDNN has picked its algorithm),
        # as PyTorch's documentation asks; every replay reruns the captured kernels.
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            eager()
        graph.replay()
        torch.cuda.synchronize()
        conv = graph.replay
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        conv()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    line = f"{statistics.median(times):.4f}"
    if memory:
        line += f" {peak}"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", type=int, nargs="*", metavar="N", help="C H W M RUNS [K STRIDE PAD [GROUPS]]")
    parser.add_argument("--batch", action="store_true", help="read the convolutions from standard input, one per line")
    parser.add_argument("--memory", action="store_true", help="also print the peak memory of one call in bytes")
    parser.add_argument("--cuda-graph", action="store_true", help="time replays of a captured CUDA graph, not eager calls")
    parser.add_argument("--processes", type=int, default=3, help="fresh processes to time it in (the fastest is printed)")
    args = parser.parse_args()
    if args.batch and args.sizes:
        parser.error("--batch reads the convolutions from standard input: give no sizes with it")
    if not args.batch and not args.sizes:
        parser.error("give C H W M RUNS [K STRIDE PAD], or --batch and the convolutions on standard input")
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    shapes = read_batch() if args.batch else [shape_of(args.sizes, "the command line")]
    shape_lines = "".join(" ".join(map(str, shape)) + "\n" for shape in shapes)
    if args.processes > 1:
        best = [None] * len(shapes)
        command = [sys.executable, __file__, "--batch", "--processes", "1"] + (["--memory"] if args.memory else []) + (["--cuda-graph"] if args.cuda_graph else [])
        for _ in range(args.processes):
            process = subprocess.run(command, input=shape_lines, capture_output=True, text=True)
            if process.returncode != 0:
                sys.stderr.write(process.stderr)
                sys.exit(f"bench_torch_conv.py: a timing process failed (exit {process.returncode}; its errors above)")
            lines = process.stdout.splitlines()
            if len(lines) != len(shapes):
                sys.exit(f"bench_torch_conv.py: a process printed {len(lines)} line(s) for {len(shapes)} convolution(s)")
            for i, line in enumerate(lines):
                words = line.split()
                print(f"bench_torch_conv.py: {' '.join(map(str, shapes[i]))}: one process: {words[0]} ms", file=sys.stderr)
                if best[i] is None or float(words[0]) < float(best[i][0]):
                    best[i] = words
        for words in best:
            print(" ".join(words))
        return
    try:
        import torch  # only in the process that times (the parent only starts them)
    except ImportError:
        sys.exit("bench_torch_conv.py: PyTorch is not installed for this python3 (import torch fails)")

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # let cuDNN pick its best algorithm, as a tuned library would
    for shape in shapes:
        print(time_conv(torch, shape, args.memory, args.cuda_graph), flush=True)


if __name__ == "__main__":
    main()
