# wl-lib.sh: the steps the capture workloads of this folder are made of,
# for `traces/capture/record -- sh WORKLOAD.sh` (README.md here). POSIX sh;
# SysV messages through perl's msgget/msgsnd built-ins, mmap through
# python3's mmap module (Debian 12: perl-base, python3). Every step is
# deterministic (no randomness: the same sizes and counts each run) so that a
# capture can be remade; what the rest of the machine does is not.

# wl_log TEXT: a line on stderr with the seconds since the start.
wl_t0=$(date +%s)
wl_log() {
	echo "workload: +$(($(date +%s) - wl_t0)) s: $*" >&2
}

# wl_files DIR NDIRS NFILES: NDIRS directories under DIR with NFILES small
# files each (dentry, inode, the file system's inode cache; a line of text so
# that tmpfs holds a page for it). Files are made by the shell itself, one
# fork per directory (mkdir).
wl_files() {
	wl_i=0
	while [ "$wl_i" -lt "$2" ]; do
		mkdir -p "$1/d$wl_i" || return 1
		wl_j=0
		while [ "$wl_j" -lt "$3" ]; do
			echo "$wl_i $wl_j" >"$1/d$wl_i/f$wl_j"
			wl_j=$((wl_j + 1))
		done
		wl_i=$((wl_i + 1))
	done
}

# wl_forks N: N fork+exec of /bin/true, one after the other (task_struct,
# mm_struct, vm_area_struct, files, signal, cred ... made and freed).
wl_forks() {
	wl_i=0
	while [ "$wl_i" -lt "$1" ]; do
		/bin/true
		wl_i=$((wl_i + 1))
	done
}

# wl_msgs N HOLD: N SysV messages in private queues, held HOLD seconds, then
# the queues removed. Message i has 1 + (i * 397) % 3000 bytes of text (8 to
# 3000 bytes, spread over every msg_msg-* bucket up to 4k: struct msg_msg is
# 48 bytes before the text); a queue takes messages up to the kernel's
# msgmnb (16384 bytes by default), then the next queue is made.
wl_msgs() {
	perl -MIPC::SysV=IPC_PRIVATE,IPC_RMID,IPC_NOWAIT -e '
		my ($n, $hold) = @ARGV;
		my @q = (msgget(IPC_PRIVATE, 0600) // die "msgget: $!\n");
		my $sent = 0;
		for my $i (0 .. $n - 1) {
			my $len = 1 + ($i * 397) % 3000;
			my $m = pack("l! a*", 1, "m" x $len);
			next if msgsnd($q[-1], $m, IPC_NOWAIT);
			push @q, (msgget(IPC_PRIVATE, 0600) // die "msgget: $!\n");
			msgsnd($q[-1], $m, IPC_NOWAIT) or die "msgsnd: $!\n";
		} continue { $sent++ }
		print STDERR "workload: $sent messages in ", scalar(@q), " queues, held ${hold} s\n";
		sleep $hold;
		msgctl($_, IPC_RMID, 0) for @q;
	' "$1" "$2"
}

# wl_maps ROUNDS N: ROUNDS times, N private anonymous mappings of 1 to 8
# pages made (MAP_PRIVATE: python's default MAP_SHARED would make a shmem
# file, inode and dentry for each; protections alternating so that
# neighbours do not merge into one VMA),
# each touched, then all unmapped (vm_area_struct, anon_vma, maple_node).
wl_maps() {
	python3 -c '
import mmap, sys
rounds, n = int(sys.argv[1]), int(sys.argv[2])
for r in range(rounds):
    maps = []
    for i in range(n):
        prot = mmap.PROT_READ | (mmap.PROT_WRITE if i % 2 == 0 else 0)
        m = mmap.mmap(-1, mmap.PAGESIZE * (1 + i % 8), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=prot)
        if i % 2 == 0:
            m[0] = 1
        else:
            m[0]
        maps.append(m)
    for m in maps:
        m.close()
' "$1" "$2"
}

# wl_maps_hold N HOLD: N anonymous mappings of 1 to 8 pages (protections
# alternating, as wl_maps; the writable ones touched, so each gets an
# anon_vma), held HOLD seconds, then unmapped: the VMA count of one process
# up by N and down again (vm.max_map_count is 65530 by default).
wl_maps_hold() {
	python3 -c '
import mmap, sys, time
n, hold = int(sys.argv[1]), float(sys.argv[2])
maps = []
for i in range(n):
    prot = mmap.PROT_READ | (mmap.PROT_WRITE if i % 2 == 0 else 0)
    m = mmap.mmap(-1, mmap.PAGESIZE * (1 + i % 8), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=prot)
    if i % 2 == 0:
        m[0] = 1
    maps.append(m)
time.sleep(hold)
for m in maps:
    m.close()
' "$1" "$2"
}
