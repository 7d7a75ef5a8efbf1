# align-options: one panel per trace, one group of bars per allocator and debug setting,
# one bar per alignment policy (colour, in the key)
set terminal pngcairo noenhanced font 'Sans,10' size 960,700
set output 'align-options.png'
set multiplot layout 2,1 title 'Peak slab memory of each alignment option over none (the 2019 debate)'
set ylabel 'extra peak slab memory over none (%)'
set xlabel 'allocator, debug setting'
set grid ytics
set xzeroaxis lt -1
set boxwidth 0.9
set key outside right top vertical font ',9'
set title 'linux-6.1-qemu-2cpu'
set yrange [-2.362485:16.744715]
set xrange [0:35]
set xtics ('slab off' 3.5, 'slab on' 10.5, 'slob off' 17.5, 'slub off' 24.5, 'slub FZPU' 31.5)
plot 'align-options.dat' index 0 using 6:5:7 with boxes fs solid 0.85 border -1 lc rgb variable notitle, \
  keyentry with boxes fs solid 0.85 lc rgb '#1f77b4' title 'own-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#17becf' title 'merged', \
  keyentry with boxes fs solid 0.85 lc rgb '#ff7f0e' title 'kmalloc-aligned-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#d62728' title 'kmalloc-aligned-overalloc', \
  keyentry with boxes fs solid 0.85 lc rgb '#2ca02c' title 'natural', \
  keyentry with boxes fs solid 0.85 lc rgb '#9467bd' title 'cap512'
set title 'linux-6.1-qemu-2cpu-fzpu'
set yrange [-5.118328:15.990025]
set xrange [0:35]
set xtics ('slab off' 3.5, 'slab on' 10.5, 'slob off' 17.5, 'slub off' 24.5, 'slub FZPU' 31.5)
plot 'align-options.dat' index 1 using 6:5:7 with boxes fs solid 0.85 border -1 lc rgb variable notitle, \
  keyentry with boxes fs solid 0.85 lc rgb '#1f77b4' title 'own-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#17becf' title 'merged', \
  keyentry with boxes fs solid 0.85 lc rgb '#ff7f0e' title 'kmalloc-aligned-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#d62728' title 'kmalloc-aligned-overalloc', \
  keyentry with boxes fs solid 0.85 lc rgb '#2ca02c' title 'natural', \
  keyentry with boxes fs solid 0.85 lc rgb '#9467bd' title 'cap512'
unset multiplot
set terminal svg noenhanced font 'Sans,10' dynamic size 960,700
set output 'align-options.svg'
set multiplot layout 2,1 title 'Peak slab memory of each alignment option over none (the 2019 debate)'
set ylabel 'extra peak slab memory over none (%)'
set xlabel 'allocator, debug setting'
set grid ytics
set xzeroaxis lt -1
set boxwidth 0.9
set key outside right top vertical font ',9'
set title 'linux-6.1-qemu-2cpu'
set yrange [-2.362485:16.744715]
set xrange [0:35]
set xtics ('slab off' 3.5, 'slab on' 10.5, 'slob off' 17.5, 'slub off' 24.5, 'slub FZPU' 31.5)
plot 'align-options.dat' index 0 using 6:5:7 with boxes fs solid 0.85 border -1 lc rgb variable notitle, \
  keyentry with boxes fs solid 0.85 lc rgb '#1f77b4' title 'own-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#17becf' title 'merged', \
  keyentry with boxes fs solid 0.85 lc rgb '#ff7f0e' title 'kmalloc-aligned-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#d62728' title 'kmalloc-aligned-overalloc', \
  keyentry with boxes fs solid 0.85 lc rgb '#2ca02c' title 'natural', \
  keyentry with boxes fs solid 0.85 lc rgb '#9467bd' title 'cap512'
set title 'linux-6.1-qemu-2cpu-fzpu'
set yrange [-5.118328:15.990025]
set xrange [0:35]
set xtics ('slab off' 3.5, 'slab on' 10.5, 'slob off' 17.5, 'slub off' 24.5, 'slub FZPU' 31.5)
plot 'align-options.dat' index 1 using 6:5:7 with boxes fs solid 0.85 border -1 lc rgb variable notitle, \
  keyentry with boxes fs solid 0.85 lc rgb '#1f77b4' title 'own-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#17becf' title 'merged', \
  keyentry with boxes fs solid 0.85 lc rgb '#ff7f0e' title 'kmalloc-aligned-caches', \
  keyentry with boxes fs solid 0.85 lc rgb '#d62728' title 'kmalloc-aligned-overalloc', \
  keyentry with boxes fs solid 0.85 lc rgb '#2ca02c' title 'natural', \
  keyentry with boxes fs solid 0.85 lc rgb '#9467bd' title 'cap512'
unset multiplot
