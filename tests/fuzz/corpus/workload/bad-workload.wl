[workload]
duration = 10s

[stream a]
target = kmalloc
size = lognormal 100 0.5
lifetime = exponential 10          # no unit: line 7
arrival = poisson 100
