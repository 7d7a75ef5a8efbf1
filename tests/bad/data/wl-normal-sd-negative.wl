[workload]
duration = 1s
[stream s]
target = kmalloc
size = normal 100 -3
lifetime = forever
arrival = poisson 10
