[workload]
duration = 1s
[stream s]
target = kmalloc
size = fixed 8
lifetime = forever
arrival = poisson 1e12
