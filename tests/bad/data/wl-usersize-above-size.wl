[workload]
duration = 1s
[cache c]
object_size = 64
usersize = 128
[stream s]
target = cache c
lifetime = forever
arrival = poisson 10
