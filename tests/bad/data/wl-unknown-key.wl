[workload]
duration = 1s
colour = blue
[stream s]
target = kmalloc
size = fixed 64
lifetime = exponential 1ms
arrival = poisson 100
