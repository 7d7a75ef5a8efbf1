[workload]
duration = 1s
[stream s]
target = kmalloc
size = fixed 8
lifetime = forever
arrival = burst 1000 10 50us
[phase p]
rate s = 3
