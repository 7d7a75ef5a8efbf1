[workload]
duration = 1s
[stream s]
target = kmalloc
size = fixed 4194305
lifetime = exponential 1ms
arrival = poisson 10
