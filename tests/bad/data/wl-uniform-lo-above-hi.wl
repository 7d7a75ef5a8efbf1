[workload]
duration = 1s
[stream s]
target = kmalloc
size = uniform 512 64
lifetime = exponential 1ms
arrival = poisson 10
