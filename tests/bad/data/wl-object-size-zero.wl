[workload]
duration = 1s
[cache c]
object_size = 0
[stream s]
target = cache c
lifetime = forever
arrival = poisson 10
