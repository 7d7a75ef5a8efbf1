# align-overhead: one panel per trace, one bar per allocator (kernel) and debug setting
# colour = allocator, hatched = debug on; every bar labelled with its value
set terminal pngcairo noenhanced font 'Sans,10' size 960,600
set output 'align-overhead.png'
set multiplot layout 1,1 title 'Peak slab memory overhead of natural alignment (natural vs none)'
set ylabel 'extra peak slab memory (%)'
set xlabel 'allocator, debug setting (hatched: debug on)'
set grid ytics
unset key
set xzeroaxis lt -1
set boxwidth 0.7
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
set yrange [0.000000:17.574468]
set xrange [0.4:5.6]
set xtics ('slab off' 1, 'slab on' 2, 'slob off' 3, 'slub off' 4, 'slub FZPU' 5)
plot 'align-overhead.dat' index 0 using 8:($10 > 0 ? 1/0 : $5):9 with boxes fs solid 0.85 border -1 lc rgb variable, \
  'align-overhead.dat' index 0 using 8:($10 > 0 ? $5 : 1/0):9 with boxes fs pattern 4 border -1 lc rgb variable, \
  'align-overhead.dat' index 0 using 8:11:12 with labels offset 0,0.7 font ',9'
unset multiplot
set terminal svg noenhanced font 'Sans,10' dynamic size 960,600
set output 'align-overhead.svg'
set multiplot layout 1,1 title 'Peak slab memory overhead of natural alignment (natural vs none)'
set ylabel 'extra peak slab memory (%)'
set xlabel 'allocator, debug setting (hatched: debug on)'
set grid ytics
unset key
set xzeroaxis lt -1
set boxwidth 0.7
set title 'traces/samples/linux-6.1-boot-excerpt.trace'
set yrange [0.000000:17.574468]
set xrange [0.4:5.6]
set xtics ('slab off' 1, 'slab on' 2, 'slob off' 3, 'slub off' 4, 'slub FZPU' 5)
plot 'align-overhead.dat' index 0 using 8:($10 > 0 ? 1/0 : $5):9 with boxes fs solid 0.85 border -1 lc rgb variable, \
  'align-overhead.dat' index 0 using 8:($10 > 0 ? $5 : 1/0):9 with boxes fs pattern 4 border -1 lc rgb variable, \
  'align-overhead.dat' index 0 using 8:11:12 with labels offset 0,0.7 font ',9'
unset multiplot
