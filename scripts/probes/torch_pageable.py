# Probe: PyTorch's pageable and pinned host-to-device copy of 1 GiB (ANCHORS.md's 7.5 / 55.2 GB/s row).
import time, statistics, torch
n = 1 << 28
x = torch.rand(n)            # pageable, filled
xp = x.pin_memory()
d = torch.empty(n, device="cuda")
def rate(src):
    d.copy_(src); torch.cuda.synchronize()
    v = []
    for _ in range(10):
        b = time.perf_counter(); d.copy_(src); torch.cuda.synchronize(); v.append((n * 4 / 1e9) / (time.perf_counter() - b))
    return statistics.median(v)
def rate_d2h(dst):
    dst.copy_(d); torch.cuda.synchronize()
    v = []
    for _ in range(10):
        b = time.perf_counter(); dst.copy_(d); torch.cuda.synchronize(); v.append((n * 4 / 1e9) / (time.perf_counter() - b))
    return statistics.median(v)
print(f"torch pageable H2D {rate(x):.2f} D2H {rate_d2h(x):.2f}; pinned H2D {rate(xp):.2f} D2H {rate_d2h(xp):.2f} GB/s")
