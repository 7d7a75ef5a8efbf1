# fsmeta: file-system metadata churn (a `find`/`git status`/build-tree walk).
# Object sizes and flags are those of a Debian 6.1 x86_64 kernel's
# /sys/kernel/slab (tests/data/linux-6.1-slab-attrs-default.tsv); rates and
# lifetimes are illustrative: dentries and inodes stay cached for seconds,
# open files and path buffers live for milliseconds.

[workload]
name = fsmeta
seed = 1
duration = 60s
cpus = 2

[cache dentry]
object_size = 192
flags = reclaim
usersize = 32           # d_iname is whitelisted: the kernel never merges dentry

[cache inode_cache]
object_size = 632
flags = reclaim,ctor    # init_once constructor

[cache filp]
object_size = 256
flags = hwcache,account

[cache buffer_head]
object_size = 104
flags = reclaim         # mergeable: SLUB may alias it

[stream d_alloc]
target = cache dentry
site = __d_alloc+0x2d/0x1f0
lifetime = lognormal 2s 1.5
arrival = poisson 5000

[stream inode]
target = cache inode_cache
site = alloc_inode+0x5e/0xb0
lifetime = lognormal 5s 1.2
arrival = poisson 1500

[stream open]
target = cache filp
site = alloc_empty_file+0x44/0xd0
lifetime = exponential 5ms
arrival = poisson 8000

[stream bh]
target = cache buffer_head
site = alloc_buffer_head+0x1e/0x80
lifetime = exponential 500ms
arrival = poisson 3000
cpu = 0:1,1:2

[stream names]          # getname, path walking, xattr buffers: kmalloc-32..256
target = kmalloc
site = getname_flags+0x4f/0x1f0
size = empirical 24:4, 40:3, 64:3, 100:2, 192:1, 256:1
lifetime = exponential 1ms
arrival = poisson 20000
