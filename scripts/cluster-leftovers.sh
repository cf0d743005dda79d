#!/usr/bin/env bash
# What make cluster-test left on this machine (issue 40: no process,
# mount, namespace, volume, daemon or /tmp file of its own may stay).
#
#   scripts/cluster-leftovers.sh snapshot STATE   before the run
#   scripts/cluster-leftovers.sh check STATE      after it; exit 1 on leftovers
#
# STATE is a directory this script fills (snapshot) and removes (check);
# RUN_TMP (env) is the TMPDIR the run was given (make cluster-test gives
# it a directory of its own, so that its go-build directory, its tests'
# temporary directories and the clusters' directories land there): it
# must be empty at the end, and is removed.
#
# Leftovers, each named on a line of its own:
# - processes of the file systems and the tests (glusterd, glusterfs(d),
#   ceph-*, radosgw, mfs*, versitygw, storbench, fio) whose environment or
#   command line names RUN_TMP, and the file systems' daemons started since
#   the snapshot;
# - FUSE mounts (type fuse.*) made since the snapshot, and any mount under
#   RUN_TMP;
# - network namespaces and links the harnesses make (sbdfs-*, sbsrv-*; sd*,
#   ss*) made since the snapshot;
# - new entries in the daemons' system directories (/var/lib/glusterd,
#   /var/log/glusterfs, /run/gluster, /var/lib/ceph, /var/log/ceph,
#   /run/ceph, /var/lib/mfs);
# - new entries in /tmp, and anything in RUN_TMP.
# On a machine others use at once, their new /tmp entries and processes
# are not the run's: IGNORE_TMP (an extended regex of /tmp names) leaves
# those names out (CI sets none), and their storbench and fio processes,
# naming no RUN_TMP, are not counted.
set -euo pipefail

procs='^(glusterd|glusterfsd|glusterfs|ceph-[a-z]+|radosgw|mfsmaster|mfschunkserver|mfsmount|mfsmetalogger|versitygw|storbench|fio)$'
# Daemons no one else starts here: new ones are the run's.
daemons='^(glusterd|glusterfsd|glusterfs|ceph-[a-z]+|radosgw|mfsmaster|mfschunkserver|mfsmount|mfsmetalogger)$'
sysdirs=(/var/lib/glusterd /var/log/glusterfs /run/gluster /var/lib/ceph /var/log/ceph /run/ceph /var/lib/mfs)
# LEFTOVERS_SYSDIRS (space-separated) replaces them, for the script's test.
if [[ -n ${LEFTOVERS_SYSDIRS:-} ]]; then read -ra sysdirs <<<"$LEFTOVERS_SYSDIRS"; fi

# named_pids: "PID NAME" of the live processes whose name matches procs.
# A zombie (state Z) has ended and holds nothing but its number until its
# parent (not the run's, when it is the container's first process) reaps
# it: not a leftover.
named_pids() {
	local d comm state
	for d in /proc/[0-9]*; do
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		[[ $comm =~ $procs ]] || continue
		state=$(awk '$1 == "State:" { print $2 }' "$d/status" 2>/dev/null) || continue
		if [[ $state != Z ]]; then
			echo "${d#/proc/} $comm"
		fi
	done
}

# names_run_tmp PID: the process's environment or command line names
# RUN_TMP (every process the run starts inherits its TMPDIR).
names_run_tmp() {
	tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | grep -qxF "TMPDIR=$RUN_TMP" ||
		tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF "$RUN_TMP"
}

fuse_mounts() { awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i+1) ~ /^fuse/) print $5; break } }' /proc/self/mountinfo | sort; }
netns_names() { ip netns list 2>/dev/null | awk '$1 ~ /^(sbdfs|sbsrv)-/ { print $1 }' | sort; }
links() { ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); if ($2 ~ /^(sd|ss)[0-9a-f]+/) print $2 }' | sort; }
# find fails on an entry that goes away while it reads (a daemon of a test
# run beside this one removing its files) or a directory not there; what
# it listed is what there is, and under pipefail its failure ended the
# snapshot (exit 1, nothing said).
sysfiles() { { find "${sysdirs[@]}" -mindepth 1 -maxdepth 2 2>/dev/null || true; } | sort; }
tmp_entries() { { find /tmp -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null || true; } | sort; }

snapshot() {
	mkdir -p "$1"
	named_pids | awk '{ print $1 }' | sort >"$1/pids"
	fuse_mounts >"$1/mounts"
	netns_names >"$1/netns"
	links >"$1/links"
	sysfiles >"$1/sys"
	tmp_entries >"$1/tmp"
}

# new LIST_FILE: the lines of standard input not in LIST_FILE.
new() { comm -13 "$1" -; }

check() {
	local state=$1 left=0 pid name
	report() { echo "left behind: $*"; left=1; }
	while read -r pid name; do
		local ours=""
		if [[ -n ${RUN_TMP:-} ]] && names_run_tmp "$pid"; then
			ours="naming $RUN_TMP"
		elif [[ $name =~ $daemons ]] && ! grep -qx "$pid" "$state/pids"; then
			ours="started during the run"
		fi
		if [[ -n $ours && -d /proc/$pid ]]; then
			report "process $pid $name ($ours): $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
		fi
	done < <(named_pids)
	while read -r m; do report "FUSE mount $m"; done < <(fuse_mounts | new "$state/mounts")
	if [[ -n ${RUN_TMP:-} ]]; then
		while read -r m; do report "mount $m"; done < <(awk -v d="$RUN_TMP/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo)
	fi
	while read -r n; do report "network namespace $n"; done < <(netns_names | new "$state/netns")
	while read -r l; do report "link $l"; done < <(links | new "$state/links")
	while read -r f; do report "$f"; done < <(sysfiles | new "$state/sys")
	while read -r f; do
		if [[ -z ${IGNORE_TMP:-} || ! $f =~ $IGNORE_TMP ]]; then
			report "/tmp/$f"
		else
			echo "not counted (IGNORE_TMP): /tmp/$f"
		fi
	done < <(tmp_entries | new "$state/tmp")
	if [[ -n ${RUN_TMP:-} && -d $RUN_TMP ]]; then
		while read -r f; do report "$f"; done < <(find "$RUN_TMP" -mindepth 1 -maxdepth 2 2>/dev/null)
		rmdir "$RUN_TMP" 2>/dev/null || true
	fi
	rm -rf "$state"
	if ((left)); then
		return 1
	fi
	echo "make cluster-test left nothing behind"
}

case ${1:-} in
snapshot) snapshot "${2:?usage: $0 snapshot STATE}" ;;
check) check "${2:?usage: $0 check STATE}" ;;
*)
	echo "usage: $0 snapshot|check STATE" >&2
	exit 2
	;;
esac
