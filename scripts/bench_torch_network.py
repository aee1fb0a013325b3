#!/usr/bin/env python3
"""Times a network of examples/ through PyTorch on CUDA (cuDNN, fp32, TF32 off, batch 1): the
outside reference of scripts/bench_network.sh. The layers are those of the .sr program, in
PyTorch's NCHW layout: the same convolutions (depthwise ones with groups=C), biases, batch
norms, ReLUs and ReLU6s, pooling, skip additions, pixel shuffle, nearest upsampling and concatenation.

Prints one line, two times in ms: the median of eager forward passes (each layer launched by
Python, so the gaps between launches count), then the median of replays of the same forward
pass captured in a CUDA graph (torch.cuda.CUDAGraph: one launch, no gaps from Python). Each
is timed by CUDA events around one pass (or one replay).

Usage: bench_torch_network.py NETWORK SIZE=VALUE... [--runs N]
  NETWORK: fsrcnn, resnet_block, vgg_block, mobilenet_v1_pair, mobilenet_v2_block, unet_step,
           se_block, grouped_residual, resnext_block or conv_bn_relu_chw
  the sizes are the program's `size` names, e.g. fsrcnn H=256 W=256 D=56 S=12 R=2
"""
import statistics
import sys

import torch
import torch.nn.functional as F


def conv(c_in, c_out, k):
    """A bias and weights of a k x k convolution from c_in to c_out channels."""
    return (torch.randn(c_out, c_in, k, k, device="cuda") * 0.1, torch.randn(c_out, device="cuda") * 0.1)


def fsrcnn(s):
    """examples/superres/fsrcnn.sr: 5x5 1->D, 1x1 D->S, 3x3 S->S, 3x3 S->R*R, pixel shuffle."""
    w1, w2, w3, w4 = conv(1, s["D"], 5), conv(s["D"], s["S"], 1), conv(s["S"], s["S"], 3), conv(s["S"], s["R"] ** 2, 3)
    x = torch.randn(1, 1, s["H"], s["W"], device="cuda")

    def run():
        y = F.relu(F.conv2d(x, *w1, padding=2))
        y = F.relu(F.conv2d(y, *w2))
        y = F.relu(F.conv2d(y, *w3, padding=1))
        return F.pixel_shuffle(F.conv2d(y, *w4, padding=1), s["R"])

    return run


def resnet_block(s):
    """examples/networks/resnet_block.sr: relu(conv3x3), conv3x3, relu(sum + input)."""
    w1, w2 = conv(s["C"], s["C"], 3), conv(s["C"], s["C"], 3)
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def run():
        y = F.relu(F.conv2d(x, *w1, padding=1))
        return F.relu(F.conv2d(y, *w2, padding=1) + x)

    return run


def vgg_block(s):
    """examples/networks/vgg_block.sr: two relu(conv3x3) C->C, then 2x2 max pooling."""
    w1, w2 = conv(s["C"], s["C"], 3), conv(s["C"], s["C"], 3)
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def run():
        y = F.relu(F.conv2d(x, *w1, padding=1))
        return F.max_pool2d(F.relu(F.conv2d(y, *w2, padding=1)), 2)

    return run


def depthwise(c, k):
    """A bias and weights of a k x k depthwise convolution of c channels (groups=c)."""
    return (torch.randn(c, 1, k, k, device="cuda") * 0.1, torch.randn(c, device="cuda") * 0.1)


def mobilenet_v1_pair(s):
    """examples/networks/mobilenet_v1_pair.sr: relu(depthwise 3x3 of C), relu(1x1 C->M)."""
    dw, pw = depthwise(s["C"], 3), conv(s["C"], s["M"], 1)
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def run():
        y = F.relu(F.conv2d(x, *dw, padding=1, groups=s["C"]))
        return F.relu(F.conv2d(y, *pw))

    return run


def mobilenet_v2_block(s):
    """examples/networks/mobilenet_v2_block.sr: relu6(1x1 C->E), relu6(depthwise 3x3 of E),
    1x1 E->C, plus the block's input."""
    ex, dw, pr = conv(s["C"], s["E"], 1), depthwise(s["E"], 3), conv(s["E"], s["C"], 1)
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def run():
        y = F.relu6(F.conv2d(x, *ex))
        y = F.relu6(F.conv2d(y, *dw, padding=1, groups=s["E"]))
        return F.conv2d(y, *pr) + x

    return run


def se_block(s):
    """examples/networks/se_block.sr: each channel's mean over the pixels, relu(linear C->R),
    sigmoid(linear R->C), every pixel's channels scaled by those C weights."""
    fc1 = (torch.randn(s["R"], s["C"], device="cuda") * 0.1, torch.randn(s["R"], device="cuda") * 0.1)
    fc2 = (torch.randn(s["C"], s["R"], device="cuda") * 0.1, torch.randn(s["C"], device="cuda") * 0.1)
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def run():
        squeezed = F.relu(F.linear(x.mean(dim=(2, 3)), *fc1))
        return x * torch.sigmoid(F.linear(squeezed, *fc2))[:, :, None, None]

    return run


def grouped(c, k, g):
    """A bias and weights of a k x k convolution of c channels to c in g groups."""
    return (torch.randn(c, c // g, k, k, device="cuda") * 0.1, torch.randn(c, device="cuda") * 0.1)


def grouped_residual(s):
    """examples/networks/grouped_residual.sr: a grouped 3x3 convolution of C channels in G
    groups, then relu(its output + the input)."""
    w = grouped(s["C"], 3, s["G"])
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def run():
        return F.relu(F.conv2d(x, *w, padding=1, groups=s["G"]) + x)

    return run


def resnext_block(s):
    """examples/networks/resnext_block.sr: relu(1x1 C->C), relu(grouped 3x3 in G groups),
    1x1 C->C, then relu(its output + the input)."""
    w1, w2, w3 = conv(s["C"], s["C"], 1), grouped(s["C"], 3, s["G"]), conv(s["C"], s["C"], 1)
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def run():
        y = F.relu(F.conv2d(x, *w1))
        y = F.relu(F.conv2d(y, *w2, padding=1, groups=s["G"]))
        return F.relu(F.conv2d(y, *w3) + x)

    return run


def unet_step(s):
    """examples/networks/unet_step.sr: relu(conv3x3 C->F), relu(conv3x3 F->F) (the skip),
    2x2 max pooling, relu(conv3x3 F->G) at half resolution, nearest upsampling by 2,
    concatenation along the channels (upsampled first, then the skip), relu(conv3x3 G+F->F)."""
    w1, w2 = conv(s["C"], s["F"], 3), conv(s["F"], s["F"], 3)
    w3, w4 = conv(s["F"], s["G"], 3), conv(s["G"] + s["F"], s["F"], 3)
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")
    upsample = torch.nn.Upsample(scale_factor=2, mode="nearest")

    def run():
        skip = F.relu(F.conv2d(F.relu(F.conv2d(x, *w1, padding=1)), *w2, padding=1))
        low = F.relu(F.conv2d(F.max_pool2d(skip, 2), *w3, padding=1))
        return F.relu(F.conv2d(torch.cat((upsample(low), skip), dim=1), *w4, padding=1))

    return run


def conv_bn_relu_chw(s):
    """examples/networks/conv_bn_relu_chw.sr: conv3x3 C->M without bias, batch norm, ReLU, then
    conv3x3 M->M with bias, batch norm, ReLU; each batch norm at inference (F.batch_norm with
    running statistics, its own kernel in eager PyTorch and in the graph, as a network keeps it
    unless the user folds it)."""
    w1 = torch.randn(s["M"], s["C"], 3, 3, device="cuda") * 0.1
    w2 = conv(s["M"], s["M"], 3)
    norms = [(torch.randn(s["M"], device="cuda") * 0.1, torch.rand(s["M"], device="cuda") + 0.5,
              torch.randn(s["M"], device="cuda") * 0.1, torch.randn(s["M"], device="cuda") * 0.1) for _ in range(2)]
    x = torch.randn(1, s["C"], s["H"], s["W"], device="cuda")

    def bn(y, n):
        mean, var, gamma, beta = n
        return F.batch_norm(y, mean, var, gamma, beta, training=False)

    def run():
        y = F.relu(bn(F.conv2d(x, w1, padding=1), norms[0]))
        return F.relu(bn(F.conv2d(y, *w2, padding=1), norms[1]))

    return run


NETWORKS = {
    "conv_bn_relu_chw": conv_bn_relu_chw,
    "fsrcnn": fsrcnn,
    "resnet_block": resnet_block,
    "vgg_block": vgg_block,
    "mobilenet_v1_pair": mobilenet_v1_pair,
    "mobilenet_v2_block": mobilenet_v2_block,
    "unet_step": unet_step,
    "se_block": se_block,
    "grouped_residual": grouped_residual,
    "resnext_block": resnext_block,
}


def event_times(step, runs):
    """The CUDA-event times (ms) of `runs` calls of `step`, each timed alone."""
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return times


def captured(run):
    """`run` captured in a CUDA graph: warmed up on a side stream first (cuDNN picks its
    algorithms there, which it cannot do while capturing), then recorded once. Returns the
    graph's replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            run()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        run()
    return graph.replay


def main() -> None:
    args = sys.argv[1:]
    runs = 50
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    if not args or args[0] not in NETWORKS:
        sys.exit(f"usage: bench_torch_network.py {'|'.join(NETWORKS)} SIZE=VALUE... [--runs N]")
    sizes = {k: int(v) for k, v in (a.split("=") for a in args[1:])}
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # cuDNN picks its best algorithm, as a tuned library would
    with torch.no_grad():
        run = NETWORKS[args[0]](sizes)
        for _ in range(5):
            run()
        eager = event_times(run, runs)
        replay = captured(run)
        for _ in range(5):
            replay()
        graph = event_times(replay, runs)
    print(f"{statistics.median(eager):.4f} {statistics.median(graph):.4f}")


if __name__ == "__main__":
    main()
