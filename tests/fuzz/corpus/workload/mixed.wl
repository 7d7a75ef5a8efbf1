[workload]
duration = 2s
seed = 9
rng = taus2
[cache c1]
object_size = 100
align = 64
flags = account,dma
usersize = 16
[stream a]
target = cache c1
site = f+0x1/0x10
lifetime = exponential 50ms
arrival = poisson 2000
[stream b]
target = kmalloc
gfp = reclaimable
size = lognormal 300 1 8 8192
lifetime = lognormal 20ms 1
arrival = burst 200 5 1us
cpu = 1
[stream c]
target = kmalloc
gfp = dma
size = uniform 1 64
lifetime = phase
arrival = poisson 500
phases = p1
[stream d]
target = kmalloc
size = normal 512 100 256 1024
lifetime = pareto 1.5 1ms
arrival = periodic 3ms
[stream e]
target = kmalloc
size = pow2 0.5 8 4096
lifetime = fixed 0
arrival = poisson 100
cpu = 0:1,1:3
[phase p1]
duration = 1s
[phase p2]
rate a = 3
rate d = 0