#!/usr/bin/env python3
"""replay-seeds.py SAMPLE_TRACE OUT_DIR - seed inputs for fuzz_replay.

Encodes runs of consecutive events of a real trace in fuzz_replay's input
format (4 configuration bytes, then 8 bytes per event; see fuzz_replay.c),
one file per (allocator, kernel, start line). Pointers are folded onto the
harness's pool of 18 addresses in order of first appearance, so an
allocation still pairs with its free. Run once by hand; the outputs are
committed under tests/fuzz/corpus/replay/ (python3 is not a build
dependency).
"""
import re
import sys

TYPES = {"kmalloc": 0, "kmalloc_node": 1, "kmem_cache_alloc": 2,
         "kmem_cache_alloc_node": 3, "kfree": 4, "kmem_cache_free": 5}
NAMES = {None: 0, "kmalloc-64": 2, "dentry": 3}  # index into names[] (x8)


def events(path):
    for line in open(path, encoding="ascii", errors="replace"):
        m = re.search(r"\[(\d+)\].*?(\d+)\.(\d+): (\w+): (.*)", line)
        if not m or m.group(4) not in TYPES:
            continue
        f = dict(kv.split("=", 1) for kv in m.group(5).split() if "=" in kv)
        yield (TYPES[m.group(4)], int(m.group(1)), int(f["ptr"], 16),
               int(f.get("bytes_req", 0)), int(f.get("bytes_alloc", 0)), f.get("name"))


def encode(evs, cfg):
    out = bytearray(cfg)
    slots = {}
    for typ, cpu, ptr, req, alloc, name in evs:
        if ptr == 0:
            slot = 0
        else:
            slot = slots.setdefault(ptr, 2 + len(slots) % 18)
        size_a, size_b = (0x20 | (req >> 8), req & 0xff) if req < 8192 else (0x40, 13)
        b4 = 4 if alloc != req else 0  # "next power of two" or "as requested"
        out += bytes([typ | 8 * NAMES.get(name, 0), slot, size_a, size_b, b4,
                      cpu % 6, 1, 0])
    return bytes(out)


def main():
    evs = list(events(sys.argv[1]))
    n = 0
    for alloc in range(4):          # slub slab slob exact
        for kernel in (0, 1):       # 5.4, 6.1
            for start in (0, 1500):
                cfg = [alloc | kernel << 2 | 1 << 3, 0x20, 0x0c, 0x04]
                data = encode(evs[start:start + 60], cfg)
                name = "%s/sample-a%d-k%d-%d" % (sys.argv[2], alloc, kernel, start)
                open(name, "wb").write(data)
                n += 1
    print(n, "seeds")


main()
