[workload]
duration = 2562048h
[stream s]
target = kmalloc
size = fixed 8
lifetime = forever
arrival = poisson 10
