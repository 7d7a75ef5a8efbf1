[workload]
duration = 1s
[stream s]
target = kmalloc
size = fixed 64
lifetime = exponential 1ms
arrival = poisson 100
sizes = fixed 8
