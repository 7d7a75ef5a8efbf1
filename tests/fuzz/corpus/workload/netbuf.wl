# netbuf: network receive/transmit buffers. sk_buff heads come from their
# own hardware-cache-aligned cache; packet data is kmalloc'ed in power-of-two
# sizes (here 64..4096 bytes, geometric: each size half as likely as the one
# below), arriving in bursts (NAPI polls of 16 packets, 2 us apart), mostly
# on CPU 0 (the interrupt's CPU). Buffers live a few hundred microseconds.
# Power-of-two requests are what --align natural|none|cap512 is about.

[workload]
name = netbuf
seed = 1
duration = 30s
cpus = 2

[cache skbuff_head_cache]
object_size = 232
flags = hwcache
usersize = 48

[stream skb]
target = cache skbuff_head_cache
site = __alloc_skb+0x4e/0x1f0
lifetime = exponential 200us
arrival = burst 2000 16 2us
cpu = 0:3,1:1

[stream data]
target = kmalloc
site = __alloc_skb+0x7c/0x1f0
size = pow2 0.5 64 4096
lifetime = exponential 200us
arrival = burst 2000 16 2us
cpu = 0:3,1:1

[stream ctl]            # socket options, netlink messages: accounted
target = kmalloc
gfp = account
site = sock_kmalloc+0x30/0x60
size = uniform 64 192
lifetime = exponential 50ms
arrival = poisson 500
