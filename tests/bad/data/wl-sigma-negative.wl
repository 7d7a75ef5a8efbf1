[workload]
duration = 1s
[stream s]
target = kmalloc
size = fixed 64
lifetime = lognormal 1ms -1
arrival = poisson 10
