[workload]
duration = 1s
duration = 2s
[stream s]
target = kmalloc
size = fixed 64
lifetime = exponential 1ms
arrival = poisson 100
