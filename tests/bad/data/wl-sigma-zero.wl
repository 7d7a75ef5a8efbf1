[workload]
duration = 1s
[stream s]
target = kmalloc
size = lognormal 100 0
lifetime = exponential 1ms
arrival = poisson 10
