[workload]
duration = 1s
[cache c]
object_size = 64
[cache c]
object_size = 32
[stream s]
target = cache c
lifetime = forever
arrival = poisson 10
