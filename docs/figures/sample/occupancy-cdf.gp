# occupancy-cdf: empirical CDF, one panel per trace, one line per run
# colour = allocator, dash = alignment, thick = debug on
set terminal pngcairo noenhanced font 'Sans,10' size 960,600
set output 'occupancy-cdf.png'
set multiplot layout 1,1 title 'CDF of slab occupancy over per-cache samples (SLOB not shown: no samples of caches with fixed object slots)'
set xlabel 'slab occupancy (live objects / object slots, fraction)'
set ylabel 'fraction of (sample, cache) points at or below'
set xrange [0:1]
set yrange [0:1]
set grid
set key outside right top
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
plot \
  'occupancy-cdf.dat' index 0 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 1.5 title 'slab align=natural|none debug=off', \
  'occupancy-cdf.dat' index 1 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 3 title 'slab align=natural|none debug=on', \
  'occupancy-cdf.dat' index 2 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 3 title 'slub align=natural debug=FZPU', \
  'occupancy-cdf.dat' index 3 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 1.5 title 'slub align=natural|none debug=off', \
  'occupancy-cdf.dat' index 4 using 1:2 with steps lc rgb '#1f77b4' dt 2 lw 3 title 'slub align=none debug=FZPU'
unset multiplot
set terminal svg noenhanced font 'Sans,10' dynamic size 960,600
set output 'occupancy-cdf.svg'
set multiplot layout 1,1 title 'CDF of slab occupancy over per-cache samples (SLOB not shown: no samples of caches with fixed object slots)'
set xlabel 'slab occupancy (live objects / object slots, fraction)'
set ylabel 'fraction of (sample, cache) points at or below'
set xrange [0:1]
set yrange [0:1]
set grid
set key outside right top
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
plot \
  'occupancy-cdf.dat' index 0 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 1.5 title 'slab align=natural|none debug=off', \
  'occupancy-cdf.dat' index 1 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 3 title 'slab align=natural|none debug=on', \
  'occupancy-cdf.dat' index 2 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 3 title 'slub align=natural debug=FZPU', \
  'occupancy-cdf.dat' index 3 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 1.5 title 'slub align=natural|none debug=off', \
  'occupancy-cdf.dat' index 4 using 1:2 with steps lc rgb '#1f77b4' dt 2 lw 3 title 'slub align=none debug=FZPU'
unset multiplot
