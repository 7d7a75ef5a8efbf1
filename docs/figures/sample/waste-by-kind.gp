# waste-by-kind: stacked bars of waste by kind, one panel per trace, one bar per run
# (the kinds have colours of their own, none an allocator's)
set terminal pngcairo noenhanced font 'Sans,10' size 960,600
set output 'waste-by-kind.png'
set multiplot layout 1,1 title 'Slab waste by kind at the end'
set ylabel 'waste (KiB)'
set style data histogram
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -25 left font ',8'
set grid ytics
set key outside right top Left reverse font ',8'
set yrange [0:*]
set bmargin 9
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
plot 'waste-by-kind.dat' index 0 using 2:xtic(1) lc rgb '#8c564b' title 'size-class rounding', \
  '' index 0 using 3 lc rgb '#9467bd' title 'layout/debug metadata', \
  '' index 0 using 4 lc rgb '#17becf' title 'free slots (SLOB: free space in its pages)', \
  '' index 0 using 5 lc rgb '#bcbd22' title 'slab tail (page level)'
unset multiplot
set terminal svg noenhanced font 'Sans,10' dynamic size 960,600
set output 'waste-by-kind.svg'
set multiplot layout 1,1 title 'Slab waste by kind at the end'
set ylabel 'waste (KiB)'
set style data histogram
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -25 left font ',8'
set grid ytics
set key outside right top Left reverse font ',8'
set yrange [0:*]
set bmargin 9
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
plot 'waste-by-kind.dat' index 0 using 2:xtic(1) lc rgb '#8c564b' title 'size-class rounding', \
  '' index 0 using 3 lc rgb '#9467bd' title 'layout/debug metadata', \
  '' index 0 using 4 lc rgb '#17becf' title 'free slots (SLOB: free space in its pages)', \
  '' index 0 using 5 lc rgb '#bcbd22' title 'slab tail (page level)'
unset multiplot
