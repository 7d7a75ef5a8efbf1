# hand-192.wl scaled to the harness's 5 ms: phases, lifetimes and
# arrivals that all happen within it
[workload]
duration = 5ms
cpus = 2
[cache obj]
object_size = 192
flags = ctor,hwcache
[phase build]
duration = 2ms
rate temp = 2
[phase teardown]
rate keep = 0
[stream keep]
target = cache obj
site = keep+0x1/0x10
lifetime = forever
arrival = periodic 100us
phases = build, teardown
cpu = 0
[stream temp]
target = cache obj
lifetime = phase
arrival = periodic 20us
phases = build
cpu = 1
[stream b]
target = kmalloc
size = empirical 8:1, 96:2, 4096:1
lifetime = pareto 2 50us
arrival = burst 1000 8 10us
