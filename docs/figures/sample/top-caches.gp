# top-caches: one panel per trace, allocator and debug setting; colour = allocator,
# hatched = debug on; caches without waste left out
set terminal pngcairo noenhanced font 'Sans,10' size 960,1360
set output 'top-caches.png'
set multiplot layout 5,1 title 'Top 10 caches by waste at the end'
set style fill solid 0.8 border -1
set boxwidth 0.7
set ylabel 'waste (KiB)'
set xtics rotate by -30 left
set grid ytics
unset key
set bmargin 6
set xrange [-0.6:9.4]
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slab align=natural debug=off'
set yrange [0:8.429063]
plot 'top-caches.dat' index 0 using 0:2:xtic(1) with boxes lc rgb '#ff7f0e'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slab align=natural debug=on'
set yrange [0:10.125000]
plot 'top-caches.dat' index 1 using 0:2:xtic(1) with boxes fs pattern 4 border -1 lc rgb '#ff7f0e'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slob align=natural debug=off (caches'' own waste; shared pages as one bar)'
set yrange [0:8.429063]
plot 'top-caches.dat' index 2 using 0:2:xtic(1) with boxes lc rgb '#2ca02c'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slub align=natural debug=off'
set yrange [0:66.386250]
plot 'top-caches.dat' index 3 using 0:2:xtic(1) with boxes lc rgb '#1f77b4'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slub align=natural debug=FZPU'
set yrange [0:32.366250]
plot 'top-caches.dat' index 4 using 0:2:xtic(1) with boxes fs pattern 4 border -1 lc rgb '#1f77b4'
unset multiplot
set terminal svg noenhanced font 'Sans,10' dynamic size 960,1360
set output 'top-caches.svg'
set multiplot layout 5,1 title 'Top 10 caches by waste at the end'
set style fill solid 0.8 border -1
set boxwidth 0.7
set ylabel 'waste (KiB)'
set xtics rotate by -30 left
set grid ytics
unset key
set bmargin 6
set xrange [-0.6:9.4]
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slab align=natural debug=off'
set yrange [0:8.429063]
plot 'top-caches.dat' index 0 using 0:2:xtic(1) with boxes lc rgb '#ff7f0e'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slab align=natural debug=on'
set yrange [0:10.125000]
plot 'top-caches.dat' index 1 using 0:2:xtic(1) with boxes fs pattern 4 border -1 lc rgb '#ff7f0e'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slob align=natural debug=off (caches'' own waste; shared pages as one bar)'
set yrange [0:8.429063]
plot 'top-caches.dat' index 2 using 0:2:xtic(1) with boxes lc rgb '#2ca02c'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slub align=natural debug=off'
set yrange [0:66.386250]
plot 'top-caches.dat' index 3 using 0:2:xtic(1) with boxes lc rgb '#1f77b4'
set title 'traces/samples/linux-6.1-boot-excerpt.trace: slub align=natural debug=FZPU'
set yrange [0:32.366250]
plot 'top-caches.dat' index 4 using 0:2:xtic(1) with boxes fs pattern 4 border -1 lc rgb '#1f77b4'
unset multiplot
