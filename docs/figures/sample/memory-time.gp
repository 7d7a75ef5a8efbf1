# memory-time: slab memory over virtual time, one panel per trace, one line per run
# colour = allocator, dash = alignment (solid natural, dashed none),
# thick = debug on; runs with identical series are one line
set terminal pngcairo noenhanced font 'Sans,10' size 960,600
set output 'memory-time.png'
set multiplot layout 1,1 title 'Slab memory over virtual time'
set xlabel 'virtual time since the first event (s)'
set ylabel 'slab memory (KiB)'
set key outside right top
set grid
set style textbox opaque noborder
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
top = 474.600000
set yrange [0:474.600000]
set xrange [0:0.014351400]
plot \
  'memory-time.dat' index 0 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 1.5 title 'slab align=natural|none debug=off', \
  'memory-time.dat' index 1 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 3 title 'slab align=natural|none debug=on', \
  'memory-time.dat' index 2 using 1:2 with steps lc rgb '#2ca02c' dt 1 lw 1.5 title 'slob align=natural debug=off', \
  'memory-time.dat' index 3 using 1:2 with steps lc rgb '#2ca02c' dt 2 lw 1.5 title 'slob align=none debug=off', \
  'memory-time.dat' index 4 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 3 title 'slub align=natural debug=FZPU', \
  'memory-time.dat' index 5 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 1.5 title 'slub align=natural|none debug=off', \
  'memory-time.dat' index 6 using 1:2 with steps lc rgb '#1f77b4' dt 2 lw 3 title 'slub align=none debug=FZPU'
unset multiplot
set terminal svg noenhanced font 'Sans,10' dynamic size 960,600
set output 'memory-time.svg'
set multiplot layout 1,1 title 'Slab memory over virtual time'
set xlabel 'virtual time since the first event (s)'
set ylabel 'slab memory (KiB)'
set key outside right top
set grid
set style textbox opaque noborder
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
top = 474.600000
set yrange [0:474.600000]
set xrange [0:0.014351400]
plot \
  'memory-time.dat' index 0 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 1.5 title 'slab align=natural|none debug=off', \
  'memory-time.dat' index 1 using 1:2 with steps lc rgb '#ff7f0e' dt 1 lw 3 title 'slab align=natural|none debug=on', \
  'memory-time.dat' index 2 using 1:2 with steps lc rgb '#2ca02c' dt 1 lw 1.5 title 'slob align=natural debug=off', \
  'memory-time.dat' index 3 using 1:2 with steps lc rgb '#2ca02c' dt 2 lw 1.5 title 'slob align=none debug=off', \
  'memory-time.dat' index 4 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 3 title 'slub align=natural debug=FZPU', \
  'memory-time.dat' index 5 using 1:2 with steps lc rgb '#1f77b4' dt 1 lw 1.5 title 'slub align=natural|none debug=off', \
  'memory-time.dat' index 6 using 1:2 with steps lc rgb '#1f77b4' dt 2 lw 3 title 'slub align=none debug=FZPU'
unset multiplot
