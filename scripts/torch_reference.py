"""texflow's native wgpu backend against PyTorch on the same machine, the browser
benchmark's cases (py/texflow/bench/cases.py), measured in one run.

Run by hand where a GPU and PyTorch are (PyTorch is no dependency of texflow):

    PYTHONPATH=py python3 scripts/torch_reference.py [--quick]

texflow runs its WGSL kernels through wgpu-native (Vulkan on Linux); PyTorch its own
CUDA kernels (cuBLAS, cuDNN) or, without CUDA, its CPU kernels. Both sides include
reading the result back to the host, warm up twice, and keep the median of up to 15
runs, as `texflow bench` does. The "issue" row is the time to issue one tiny op
(Python and the launch; the GPU runs asynchronously on both sides).
"""

import argparse
import asyncio
import statistics
import sys
import time

import numpy as np

from texflow.bench import cases


def _bench(run, quick):
    for _ in range(2):
        run()
    times = []
    start = time.perf_counter()
    while len(times) < (2 if quick else 15) and (len(times) < 3 or
                                                 time.perf_counter() - start < 1.5):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure_torch(torch, device, quick):
    """{case: ms} for PyTorch on `device`, the cases of cases.measure_texflow."""
    rng = np.random.default_rng(0)
    results = {}

    def tensor(a):
        return torch.from_numpy(np.ascontiguousarray(a)).to(device)
    for n in cases.MATMUL_SIZES:
        a, b = (tensor(rng.normal(size=(n, n)).astype(np.float32)) for _ in range(2))
        results[f"matmul {n}"] = _bench(lambda a=a, b=b: (a @ b).cpu(), quick)
    x = tensor(rng.normal(size=cases.ELEMENTS).astype(np.float32))
    y = tensor(rng.normal(size=cases.ELEMENTS).astype(np.float32))
    results["add 1M"] = _bench(lambda: (x + y).cpu(), quick)

    def chain():
        z = torch.relu(-torch.sqrt(torch.abs(torch.tanh((x + 1) * 0.5) - 0.25)))
        return z.cpu()
    results["chain of 8 ops, 1M"] = _bench(chain, quick)
    results["sum 1M"] = _bench(lambda: x.sum().cpu(), quick)
    one = tensor(np.ones(1, np.float32))
    issue = []

    def tiny():
        t0 = time.perf_counter()
        z = one
        for _ in range(cases.TINY_OPS):
            z = z + one
        issue.append((time.perf_counter() - t0) * 1e6 / cases.TINY_OPS)
        z.cpu()
    results[cases.TINY_END_TO_END] = _bench(tiny, quick) * 1000 / cases.TINY_OPS
    results[cases.TINY_ISSUE] = statistics.median(issue[2:])
    # NCHW / OIHW: the same numbers as texflow's NHWC input and HWIO filter
    image = tensor(rng.normal(size=cases.CONV_INPUT).astype(np.float32).transpose(0, 3, 1, 2))
    kernel = tensor((rng.normal(size=cases.CONV_FILTER) * 0.1).astype(np.float32)
                    .transpose(3, 2, 0, 1))
    conv = torch.nn.functional.conv2d
    results["conv2d forward"] = _bench(lambda: conv(image, kernel, padding="same").cpu(), quick)

    def conv_backward():
        xi, wi = image.clone().requires_grad_(), kernel.clone().requires_grad_()
        dx, dw = torch.autograd.grad(conv(xi, wi, padding="same").sum(), [xi, wi])
        dx.cpu(), dw.cpu()
    results["conv2d forward+backward"] = _bench(conv_backward, quick)
    inputs = tensor(rng.random((cases.MLP_BATCH, 784)).astype(np.float32))
    labels = tensor(rng.integers(0, 10, cases.MLP_BATCH).astype(np.int64))
    w1 = tensor((rng.normal(size=(784, 128)) * 0.05).astype(np.float32)).requires_grad_()
    w2 = tensor((rng.normal(size=(128, 10)) * 0.05).astype(np.float32)).requires_grad_()

    def train_step():
        cost = torch.nn.functional.cross_entropy(torch.relu(inputs @ w1) @ w2, labels)
        g1, g2 = torch.autograd.grad(cost, [w1, w2])
        with torch.no_grad():
            w1.sub_(0.1 * g1)
            w2.sub_(0.1 * g2)
        return cost.cpu()
    results["Session.train step, MLP"] = _bench(train_step, quick)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import torch

    import texflow as tf
    from texflow.backends.wgpu import _adapter

    if "wgpu" not in tf.available_backends():
        sys.exit("torch_reference: texflow's wgpu backend has no adapter here")
    info = _adapter().info
    device = "cuda" if torch.cuda.is_available() else "cpu"
    mine = asyncio.run(cases.measure_texflow("wgpu", args.quick))
    ref = measure_torch(torch, device, args.quick)
    name = torch.cuda.get_device_name() if device == "cuda" else "CPU"
    print(f"texflow wgpu ({info['device']}, {info['backend_type']}) vs PyTorch "
          f"{torch.__version__} on {device} ({name}) (ms, readback included; "
          f"ratio = texflow / torch)\n")
    print("| case | texflow wgpu | torch | ratio |")
    print("|---|---:|---:|---:|")
    for case, ms in mine.items():
        print(f"| {case} | {ms:9.3f} | {ref[case]:9.3f} | {ms / ref[case]:7.2f}x |")


if __name__ == "__main__":
    main()
