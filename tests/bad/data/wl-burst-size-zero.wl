[workload]
duration = 1s
[stream s]
target = kmalloc
size = fixed 8
lifetime = forever
arrival = burst 100 0 1us
