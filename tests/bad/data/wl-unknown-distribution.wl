[workload]
duration = 1s
[stream s]
target = kmalloc
size = gamma 2 3
lifetime = exponential 1ms
arrival = poisson 10
