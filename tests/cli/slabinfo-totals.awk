# slabinfo-totals.awk - tools/mm/slabinfo -T's first block computed from a
# simulated /proc/slabinfo (FILE 2) and the sysfs attributes slabinfo reads
# (FILE 1, slabsim --final-sysfs), with slabinfo's integer arithmetic:
# Space = num_slabs * pagesperslab * 4096 (from /proc/slabinfo), Used =
# active_objs * object_size, Loss = Space - Used; caches without slabs or
# objects are skipped; MRatio = 100 * Loss / Used, ORatio = 100 * PartObj /
# Objects. Also checks that both files agree (active_objs = sysfs objects,
# num_slabs = slabs, pagesperslab = 2^order, objsize = slab_size) and prints
# "MISMATCH name" for each cache where they do not.
#   awk -f slabinfo-totals.awk SYSFS SLABINFO
BEGIN { FS = "\t" }
FNR == 1 && NR == 1 { next }
NR == FNR {
	# name object_size slab_size order objs_per_slab slabs partial objects objects_partial ...
	osz[$1] = $2
	ssz[$1] = $3
	ord[$1] = $4
	sysfs_slabs[$1] = $6
	sysfs_objects[$1] = $8
	sysfs_partobj[$1] = $9
	next
}
FNR <= 2 { FS = " "; next }
{
	# name active_objs num_objs objsize objperslab pagesperslab : tunables 3 : slabdata active num shared
	name = $1
	pg = 1; o = ord[name]; while (o-- > 0) pg *= 2
	if (!(name in osz) || $2 != sysfs_objects[name] || $15 != sysfs_slabs[name] || $6 != pg || $4 != ssz[name])
		print "MISMATCH " name
	if ($15 == 0 || $2 == 0)
		next
	active++
	space = $15 * $6 * 4096
	used = $2 * osz[name]
	tspace += space; tused += used; tloss += space - used
	tobj += $2; tpart += sysfs_partobj[name]
}
END {
	printf "Memory used: %15d   # Loss   : %15d   MRatio:%6d%%\n", tspace, tloss, tused ? int(tloss * 100 / tused) : 0
	printf "# Objects  : %15d   # PartObj: %15d   ORatio:%6d%%\n", tobj, tpart, tobj ? int(tpart * 100 / tobj) : 0
	printf "active %d\n", active
}
