[workload]
duration = 1s
[stream s]
target = kmalloc
size = fixed 64
lifetime = pareto 0 1ms
arrival = poisson 10
