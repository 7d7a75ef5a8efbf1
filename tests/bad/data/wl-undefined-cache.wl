[workload]
duration = 1s
[stream s]
target = cache nosuch
lifetime = forever
arrival = poisson 10
