[workload]
duration = 999999999999h
[stream s]
target = kmalloc
size = fixed 64
lifetime = exponential 1ms
arrival = poisson 100
