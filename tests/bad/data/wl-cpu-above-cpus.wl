[workload]
duration = 1s
cpus = 2
[stream s]
target = kmalloc
size = fixed 8
lifetime = forever
arrival = poisson 10
cpu = 0:1,2:1
