# fragment: a phase change that fragments. During `build` a long-lived
# object (1 in 10) is interleaved with nine short-lived ones in the same
# cache; at the end of `build` the short-lived ones are all freed (lifetime
# `phase`). Nearly every slab keeps a long-lived object or two, so the
# cache's pages stay almost all allocated during `teardown` although it
# holds a tenth of the objects: the classic slab fragmentation pattern
# (a file-system tree walked once, then its temporary objects dropped).

[workload]
name = fragment
seed = 1
duration = 40s
cpus = 2

[cache node]
object_size = 200
flags = ctor            # never merged: its pages are its own

[phase build]
duration = 20s

[phase teardown]        # runs to the end

[stream keep]
target = cache node
site = node_alloc_keep+0x10/0x40
lifetime = forever
arrival = poisson 2000
phases = build

[stream temp]
target = cache node
site = node_alloc_temp+0x10/0x40
lifetime = phase
arrival = poisson 18000
phases = build

[stream churn]          # light background activity during teardown
target = kmalloc
site = churn+0x8/0x20
size = uniform 16 128
lifetime = exponential 10ms
arrival = poisson 500
phases = teardown
