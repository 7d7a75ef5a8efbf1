#!/bin/sh
# threads.sh: one process whose threads share an mm, about 15 seconds: four
# python3 threads each make 1,500 private anonymous mappings, hold them
# 0.5 s and unmap them, four rounds, while the main thread runs 80 short
# fork+exec (ls, sh -c 'cat | wc'); then 6,000 mappings held 3.5 s and
# unmapped (vm_area_struct, maple_node of a tree several threads write,
# anon_vma). What the mm model cannot see directly here: which thread's
# nodes are which mm's (mmfree.h). Deterministic counts and sizes.
#   traces/capture/record -o DIR -b 65536 --snapshot-every 3 -- sh traces/capture/workloads/threads.sh
set -u
python3 -c '
import mmap, subprocess, threading, time

def make(n, k, sizes):
    # n private anonymous mappings of 1 to sizes pages, writable every
    # other one (so that neighbours do not merge)
    return [mmap.mmap(-1, mmap.PAGESIZE * (1 + i % sizes),
                      flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                      prot=mmap.PROT_READ | (mmap.PROT_WRITE if (i + k) % 2 == 0 else 0))
            for i in range(n)]

def worker(k, rounds, n):
    for r in range(rounds):
        maps = make(n, k, 5)
        time.sleep(0.5)
        for m in maps:
            m.close()
        time.sleep(0.3)

ts = [threading.Thread(target=worker, args=(k, 4, 1500)) for k in range(4)]
for t in ts:
    t.start()
for i in range(40):
    subprocess.run(["ls", "/usr/bin"], stdout=subprocess.DEVNULL)
    subprocess.run(["sh", "-c", "cat /proc/meminfo | wc -l"], stdout=subprocess.DEVNULL)
for t in ts:
    t.join()
time.sleep(3)
held = make(6000, 1, 3)
time.sleep(3.5)
for m in held:
    m.close()
time.sleep(3.5)
'
echo "workload: threads done" >&2
