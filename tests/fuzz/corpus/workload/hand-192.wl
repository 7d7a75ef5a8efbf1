# A hand-sized workload (tests/cli/synth.sh works out its pages by hand).
# One CPU, one cache of 192-byte objects with a constructor (never merged).
# build (0..500 ms): `keep` allocates at 0, 10, ..., 490 ms (50 objects,
# never freed); `temp` at 0, 2, ..., 498 ms (250 objects, freed at 500 ms).
[workload]
duration = 1s
cpus = 1

[cache obj]
object_size = 192
flags = ctor

[phase build]
duration = 500ms

[phase teardown]

[stream keep]
target = cache obj
site = keep+0x1/0x10
lifetime = forever
arrival = periodic 10ms
phases = build
cpu = 0

[stream temp]
target = cache obj
site = temp+0x1/0x10
lifetime = phase
arrival = periodic 2ms
phases = build
cpu = 0
