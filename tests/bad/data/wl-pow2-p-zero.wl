[workload]
duration = 1s
[stream s]
target = kmalloc
size = pow2 0 64 4096
lifetime = forever
arrival = poisson 10
