[workload]
duration = 1s
cpus = 1

[stream s]   
target = kmalloc
size = fixed 64
lifetime = fixed 5ms
arrival = periodic 10ms
