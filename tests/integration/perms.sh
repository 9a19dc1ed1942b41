#!/bin/bash
# perms.sh - a shared mount (-o allow_other) lets nobody read a log they
# could not read on disk (default_permissions, owner and mode mirrored):
# a root-owned 0400 log is unreadable to another user, a 0644 one is
# readable, and whoever may read a log may write filters of their own on
# it (root's stay root's: users.sh tests that further); a log the user
# owns is theirs to filter.  Without allow_other the user cannot enter
# the mount at all.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (to mount with allow_other and switch users)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
U=65534
as_user() { t setpriv --reuid=$U --regid=$U --clear-groups "$@"; }

SRC=$TMP/src MNT=$TMP/mnt
mkdir -p "$SRC/2026/11"
chmod 755 "$SRC" "$SRC/2026" "$SRC/2026/11"
cp "$LOGS/sample.darshan" "$SRC/2026/11/secret.darshan"
cp "$LOGS/sample.darshan" "$SRC/2026/11/public.darshan"
cp "$LOGS/dxt.darshan" "$SRC/2026/11/theirs.darshan"
chown 0:0 "$SRC/2026/11/secret.darshan" "$SRC/2026/11/public.darshan"
chmod 0400 "$SRC/2026/11/secret.darshan"
chmod 0644 "$SRC/2026/11/public.darshan"
chown $U:$U "$SRC/2026/11/theirs.darshan"
chmod 0600 "$SRC/2026/11/theirs.darshan"
# for jobs.csv: a damaged 0600 root log, a 0700 directory and a 0711 one
# (searchable, not listable) holding a 0700 one further down
head -c 500 "$LOGS/dxt.darshan" >"$SRC/2026/11/broken.darshan"
chmod 0600 "$SRC/2026/11/broken.darshan"
mkdir -p "$SRC/2026/11/private" "$SRC/2026/11/deep/open/closed"
cp "$LOGS/sample.darshan" "$SRC/2026/11/private/hidden.darshan"
cp "$LOGS/sample.darshan" "$SRC/2026/11/deep/open/closed/deeper.darshan"
chmod 0644 "$SRC/2026/11/private/hidden.darshan" "$SRC/2026/11/deep/open/closed/deeper.darshan"
chmod 0700 "$SRC/2026/11/private" "$SRC/2026/11/deep/open/closed"
chmod 0711 "$SRC/2026/11/deep"
chmod 0755 "$SRC/2026/11/deep/open"
# a 0644 log whose ACL denies the user (user:U:---)
cp "$LOGS/sample.darshan" "$SRC/2026/11/acl.darshan"
chmod 0644 "$SRC/2026/11/acl.darshan"
python3 - "$SRC/2026/11/acl.darshan" $U <<'PY' || skip "cannot set an ACL on $SRC (no ACL support)"
import os, struct, sys
# system.posix_acl_access: version 2, then (tag, perm, id) sorted by tag
entries = [(0x01, 6, 0xffffffff), (0x02, 0, int(sys.argv[2])), (0x04, 4, 0xffffffff),
           (0x10, 4, 0xffffffff), (0x20, 4, 0xffffffff)]
os.setxattr(sys.argv[1], "system.posix_acl_access",
            struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))
PY
as_user cat "$SRC/2026/11/acl.darshan" >/dev/null 2>&1 && skip "the ACL on $SRC does not deny user $U"
# ways around directory permissions, each closed on disk to user U:
#  - a link in a 1777 directory to a log in another user's 0700 directory
#    (relative and absolute);
#  - a 0755 directory whose ACL says user:U:---;
#  - a log of group G (0640) beside the others, and a 0750 directory of
#    group G: open to U only with G among their supplementary groups.
O=1234 G=4242
as_owner() { t setpriv --reuid=$O --regid=$O --clear-groups "$@"; }
as_member() { t setpriv --reuid=$U --regid=$U --groups=$G "$@"; }
mkdir -p "$SRC/2026/11/pub" "$SRC/2026/11/bpriv" "$SRC/2026/11/fence" "$SRC/2026/11/team"
cp "$LOGS/sample.darshan" "$SRC/2026/11/bpriv/owned.darshan"
chown -R $O:$O "$SRC/2026/11/bpriv"
chmod 0644 "$SRC/2026/11/bpriv/owned.darshan"
chmod 0700 "$SRC/2026/11/bpriv"
chmod 1777 "$SRC/2026/11/pub"
ln -s ../bpriv/owned.darshan "$SRC/2026/11/pub/steal.darshan"
ln -s "$SRC/2026/11/bpriv/owned.darshan" "$SRC/2026/11/pub/grab.darshan"
cp "$LOGS/sample.darshan" "$SRC/2026/11/fence/fenced.darshan"
chmod 0644 "$SRC/2026/11/fence/fenced.darshan"
chmod 0755 "$SRC/2026/11/fence"
python3 - "$SRC/2026/11/fence" $U <<'PY' || skip "cannot set an ACL on a directory of $SRC"
import os, struct, sys
entries = [(0x01, 7, 0xffffffff), (0x02, 0, int(sys.argv[2])), (0x04, 5, 0xffffffff),
           (0x10, 5, 0xffffffff), (0x20, 5, 0xffffffff)]
os.setxattr(sys.argv[1], "system.posix_acl_access",
            struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))
PY
cp "$LOGS/sample.darshan" "$SRC/2026/11/crew.darshan"
cp "$LOGS/sample.darshan" "$SRC/2026/11/team/team.darshan"
chgrp $G "$SRC/2026/11/crew.darshan" "$SRC/2026/11/team" "$SRC/2026/11/team/team.darshan"
chmod 0640 "$SRC/2026/11/crew.darshan" "$SRC/2026/11/team/team.darshan"
chmod 0750 "$SRC/2026/11/team"
for p in pub/steal.darshan pub/grab.darshan fence/fenced.darshan crew.darshan team/team.darshan; do
	as_user cat "$SRC/2026/11/$p" >/dev/null 2>&1 && skip "user $U can read $p on disk"
done
as_owner cat "$SRC/2026/11/pub/steal.darshan" >/dev/null || skip "user $O cannot read their log through the link"
as_member cat "$SRC/2026/11/team/team.darshan" >/dev/null || skip "group $G does not open team.darshan to $U"
# links to logs: one to a root-only log outside SOURCE, one inside it
mkdir -p "$TMP/outside"
cp "$LOGS/sample.darshan" "$TMP/outside/private.darshan"
chmod 0600 "$TMP/outside/private.darshan"
ln -s "$TMP/outside/private.darshan" "$SRC/2026/11/away.darshan"
ln -s ../11/public.darshan "$SRC/2026/11/near.darshan"
as_user test -r "$SRC/2026/11/public.darshan" || skip "user $U cannot reach $SRC (a private TMPDIR?)"
dfs_mount "$SRC" "$MNT" -o allow_other
D=$MNT/2026/11

# modes and owners mirror the logs
[ "$(stat -c '%A %u' "$D/secret.darshan")" = "dr-x------ 0" ] || fail "secret.darshan/ is $(stat -c '%A %u' "$D/secret.darshan")"
[ "$(stat -c '%A %u' "$D/public.darshan")" = "dr-xr-xr-x 0" ] || fail "public.darshan/ is $(stat -c '%A %u' "$D/public.darshan")"
# (on a shared mount whoever may read a filter may write their own)
[ "$(stat -c '%A %u' "$D/public.darshan/POSIX/filter")" = "-rw-rw-rw- 0" ] || fail "public.darshan/POSIX/filter is $(stat -c '%A %u' "$D/public.darshan/POSIX/filter")"
[ "$(stat -c '%A %u' "$D/secret.darshan/POSIX/filter")" = "-rw------- 0" ] || fail "secret.darshan/POSIX/filter is $(stat -c '%A %u' "$D/secret.darshan/POSIX/filter")"
[ "$(stat -c '%A %u' "$D/theirs.darshan/header.txt")" = "-r-------- $U" ] || fail "theirs.darshan/header.txt is $(stat -c '%A %u' "$D/theirs.darshan/header.txt")"
say "ok: owners and modes of log directories and files mirror the logs"

# the 0400 root log is closed to the user
for p in secret.darshan/header.txt secret.darshan/POSIX/records.csv; do
	if as_user cat "$D/$p" >/dev/null 2>"$TMP/err"; then fail "user $U can read $p of a 0400 root log"; fi
	grep -q "Permission denied" "$TMP/err" || fail "reading $p as $U: '$(cat "$TMP/err")', not Permission denied"
done
if as_user ls "$D/secret.darshan" >/dev/null 2>"$TMP/err"; then fail "user $U can list a 0400 root log"; fi
grep -q "Permission denied" "$TMP/err" || fail "listing secret.darshan as $U: '$(cat "$TMP/err")'"
say "ok: a root-owned 0400 log is unreadable to user $U (Permission denied)"

# the 0644 root log is readable, not writable
as_user cat "$D/public.darshan/header.txt" >"$TMP/h" || fail "user $U cannot read header.txt of a 0644 log"
cmp -s "$TMP/h" "$D/public.darshan/header.txt" || fail "user $U reads a different header.txt"
as_user cat "$D/public.darshan/POSIX/records.csv" >/dev/null || fail "user $U cannot read records.csv of a 0644 log"
as_user ls -R "$D/public.darshan" >/dev/null || fail "user $U cannot list a 0644 log"
echo 'rank == -1' >"$D/public.darshan/POSIX/filter" || fail "root cannot write the filter of its own log"
for f in POSIX/filter filter; do
	as_user bash -c 'echo "rank == 0" > "$1"' _ "$D/public.darshan/$f" 2>"$TMP/err" ||
		fail "user $U cannot write their own $f of a 0644 root log: $(cat "$TMP/err")"
	[ "$(as_user cat "$D/public.darshan/$f")" = "rank == 0" ] || fail "user $U's $f reads '$(as_user cat "$D/public.darshan/$f")'"
done
[ "$(cat "$D/public.darshan/POSIX/filter")" = "rank == -1" ] || fail "user $U changed a root log's filter"
[ -s "$D/public.darshan/filter" ] && fail "user $U changed a root log's log-wide filter"
as_user truncate -s 0 "$D/public.darshan/POSIX/filter" || fail "user $U cannot truncate their own filter"
head -1 "$D/public.darshan/POSIX/records.csv" >"$TMP/hdr.csv"
chmod 644 "$TMP/hdr.csv"
as_user cp "$TMP/hdr.csv" "$D/public.darshan/POSIX/records.csv" || fail "user $U cannot import into their own view of a root log"
[ "$(as_user cat "$D/public.darshan/POSIX/filter")" = "# imported: 0 rows" ] || fail "user $U's import did not take"
[ "$(cat "$D/public.darshan/POSIX/filter")" = "rank == -1" ] || fail "user $U changed a root log's selection"
for f in POSIX/filter filter; do
	if as_user bash -c 'echo "rank == 0" > "$1"' _ "$D/secret.darshan/$f" 2>"$TMP/err"; then
		fail "user $U could write $f of a 0400 root log"
	fi
	grep -q "Permission denied" "$TMP/err" || fail "writing secret.darshan/$f as $U: '$(cat "$TMP/err")', not Permission denied"
done
say "ok: a 0644 root log is readable to user $U, who filters and imports into their own view of it; root's filters stay; a 0400 one's filters are Permission denied"

# jobs.csv shows the user only the logs they may read on disk, below
# directories they may search: not a 0400 root log, not a damaged 0600
# one (its error row), nothing below a 0700 directory at any depth; root
# sees them all, and neither gets the other's cached bytes
for who in root user root user; do
	for dir in "" 2026 2026/11 2026/11/deep; do
		j=${dir:+$dir/}jobs.csv
		if [ $who = user ] && [ "$dir" = 2026/11/deep ]; then
			# (a 0711 directory: its jobs.csv is as unreadable as its listing)
			as_user cat "$MNT/$j" >/dev/null 2>&1 && fail "user $U can read $j of a 0711 directory"
			continue
		fi
		if [ $who = root ]; then t cat "$MNT/$j" >"$TMP/jobs.csv"
		else as_user cat "$MNT/$j" >"$TMP/jobs.csv"; fi ||
			fail "$who cannot read $j"
		if [ "$dir" = 2026/11/deep ]; then
			readable=() private=(deeper.darshan)
		else
			readable=(public.darshan theirs.darshan)
			private=(secret.darshan broken.darshan hidden.darshan deeper.darshan acl.darshan)
		fi
		for name in "${readable[@]}"; do
			grep -q "$name" "$TMP/jobs.csv" || fail "$who: $j has no row of $name"
		done
		for name in "${private[@]}"; do
			if [ $who = root ]; then
				grep -q "$name" "$TMP/jobs.csv" || fail "root: $j has no row of $name"
			elif grep -q "$name" "$TMP/jobs.csv"; then
				fail "user $U sees $name in $j: $(grep "$name" "$TMP/jobs.csv" | head -1)"
			fi
		done
	done
done
say "ok: jobs.csv at every level shows user $U only the logs they may read (no 0400 log, no damaged 0600 log, nothing below a 0700 directory); root sees them all"

# a log whose ACL denies the user: its files are Permission denied to them
for p in header.txt POSIX/records.csv; do
	if as_user cat "$D/acl.darshan/$p" >/dev/null 2>"$TMP/err"; then
		fail "user $U reads $p of a log whose ACL denies them"
	fi
	grep -q "Permission denied" "$TMP/err" || fail "acl.darshan/$p as $U: '$(cat "$TMP/err")'"
done
t cat "$D/acl.darshan/header.txt" >/dev/null || fail "root cannot read acl.darshan/header.txt"
say "ok: a 0644 log whose ACL says user:$U:--- is Permission denied to $U (and not in their jobs.csv)"

# ---- access through the mount is access on disk, path included
denied() {   # denied WHO WHAT CMD...: CMD fails with Permission denied
	local who=$1 what=$2
	shift 2
	if "$@" >"$TMP/out" 2>"$TMP/err"; then fail "$who can $what through the mount (on disk: Permission denied)"; fi
	grep -q "Permission denied" "$TMP/err" || fail "$who: $what: '$(cat "$TMP/err")', not Permission denied"
}
no_row() {   # no_row WHO FILE NAME...: FILE (read by WHO) names none of NAME
	local who=$1 f=$2 name
	shift 2
	case $who in
	user) as_user cat "$MNT/$f" ;;
	member) as_member cat "$MNT/$f" ;;
	esac >"$TMP/rows" 2>"$TMP/err" || fail "$who cannot read $f: $(cat "$TMP/err")"
	for name in "$@"; do
		grep -q "$name" "$TMP/rows" && fail "$who sees $name in $f: $(grep "$name" "$TMP/rows" | head -1)"
	done
	return 0
}
# a link to a log in another user's 0700 directory: refused as on disk,
# wherever the link lies; the log's owner reads it
for l in steal grab; do
	for p in "" /header.txt /POSIX/records.csv /POSIX /jobs.csv; do
		case $p in
		""|/POSIX) denied "user $U" "list $l.darshan$p" as_user ls "$D/pub/$l.darshan$p" ;;
		/jobs.csv) ;;
		*) denied "user $U" "read $l.darshan$p" as_user cat "$D/pub/$l.darshan$p" ;;
		esac
	done
	denied "user $U" "stat $l.darshan/POSIX/records.csv" as_user stat "$D/pub/$l.darshan/POSIX/records.csv"
	as_owner cat "$D/pub/$l.darshan/header.txt" >"$TMP/h" || fail "user $O cannot read their log through $l.darshan"
	cmp -s "$TMP/h" <(ref "$SRC" 2026/11/bpriv/owned.darshan/header.txt) || fail "user $O reads another header.txt through $l.darshan"
done
for j in jobs.csv 2026/11/jobs.csv 2026/11/pub/jobs.csv 2026/11/pub/insights.csv 2026/11/insights.csv; do
	no_row user "$j" steal.darshan grab.darshan owned.darshan
	as_owner cat "$MNT/$j" | grep -q steal.darshan || fail "user $O has no row of steal.darshan in $j"
done
say "ok: a link in a 1777 directory to a log in user $O's 0700 directory: header.txt, records.csv, listings, stat and jobs.csv rows closed to user $U, open to $O"

# a 0755 directory whose ACL says user:U:---: nothing below it, nor its
# own files, for U; root reads it all
denied "user $U" "list fence" as_user ls "$D/fence"
denied "user $U" "stat fence/fenced.darshan" as_user stat "$D/fence/fenced.darshan"
for p in fenced.darshan/header.txt fenced.darshan/POSIX/records.csv jobs.csv insights.csv summary.html filter; do
	t cat "$D/fence/$p" >/dev/null || fail "root cannot read fence/$p"
	denied "user $U" "read fence/$p" as_user cat "$D/fence/$p"
done
denied "user $U" "list fence/fenced.darshan" as_user ls "$D/fence/fenced.darshan"
no_row user jobs.csv fenced.darshan
no_row user 2026/11/insights.csv fenced.darshan
say "ok: a 0755 directory whose ACL denies user $U: its listing, logs, records.csv, jobs.csv, insights.csv, summary.html and filter are Permission denied"

# a log whose own ACL denies U: not listed into, its files not even
# stat'ed (no size, no decoding for it)
cp "$LOGS/dxt.darshan" "$SRC/2026/11/veto.darshan"
chmod 0644 "$SRC/2026/11/veto.darshan"
python3 - "$SRC/2026/11/veto.darshan" $U <<'PY'
import os, struct, sys
entries = [(0x01, 6, 0xffffffff), (0x02, 0, int(sys.argv[2])), (0x04, 4, 0xffffffff),
           (0x10, 4, 0xffffffff), (0x20, 4, 0xffffffff)]
os.setxattr(sys.argv[1], "system.posix_acl_access",
            struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))
PY
d0=$(decodes "$MNT")
denied "user $U" "list veto.darshan" as_user ls "$D/veto.darshan"
denied "user $U" "list veto.darshan/POSIX" as_user ls "$D/veto.darshan/POSIX"
for p in POSIX/records.csv header.txt derived_metrics summary.html POSIX/filter; do
	denied "user $U" "stat veto.darshan/$p" as_user stat -c %s "$D/veto.darshan/$p"
done
d1=$(decodes "$MNT")
[ "$d0" = "$d1" ] || fail "user $U's refused stats decoded veto.darshan ($d0 -> $d1 decodes)"
t stat -c %s "$D/veto.darshan/POSIX/records.csv" >/dev/null || fail "root cannot stat veto.darshan/POSIX/records.csv"
say "ok: a log whose ACL denies user $U: its directories are not listed, its files not stat'ed (no size, no decoding)"

# a supplementary group: what it opens on disk, it opens through the
# mount, and every file summing up a directory shows it
as_member cat "$D/team/team.darshan/header.txt" >/dev/null || fail "user $U in group $G cannot read team/team.darshan/header.txt"
as_member cat "$D/crew.darshan/POSIX/records.csv" >/dev/null || fail "user $U in group $G cannot read crew.darshan/POSIX/records.csv"
denied "user $U" "read team/team.darshan/header.txt without group $G" as_user cat "$D/team/team.darshan/header.txt"
for f in jobs.csv insights.csv summary.html; do
	for dir in "" 2026/11/; do
		as_member cat "$MNT/$dir$f" >"$TMP/rows" || fail "user $U in group $G cannot read $dir$f"
		grep -q "crew.darshan" "$TMP/rows" || fail "user $U in group $G: no crew.darshan (a log of group $G) in $dir$f"
		grep -q "team.darshan" "$TMP/rows" || fail "user $U in group $G: no team/team.darshan (in a 0750 directory of group $G) in $dir$f"
		no_row user "$dir$f" crew.darshan team.darshan
	done
done
say "ok: user $U with supplementary group $G reads the group's logs through the mount, and jobs.csv, insights.csv and summary.html show them; without $G, none"

# what was judged is what is read: user U swaps a link of theirs between
# their own log and one in user O's 0700 directory as fast as they can,
# while reading through it; no read, and no jobs.csv row, ever shows the
# other log (a read decodes the version of the file its check approved,
# or is refused)
cp "$LOGS/dxt.darshan" "$SRC/2026/11/bpriv/vault.darshan"
chown $O:$O "$SRC/2026/11/bpriv/vault.darshan"
cp "$LOGS/sample.darshan" "$SRC/2026/11/pub/mine.darshan"
chown $U:$U "$SRC/2026/11/pub/mine.darshan"
chmod 0644 "$SRC/2026/11/bpriv/vault.darshan" "$SRC/2026/11/pub/mine.darshan"
as_user ln -s mine.darshan "$SRC/2026/11/pub/flip.darshan"
jobid=$(ref "$SRC" 2026/11/bpriv/vault.darshan/header.txt | sed -n 's/^# jobid: //p')
mine=$(ref "$SRC" 2026/11/pub/mine.darshan/header.txt | sed -n 's/^# jobid: //p')
[ -n "$jobid" ] && [ "$jobid" != "$mine" ] || fail "the two logs of the swap test have one jobid"
as_user python3 - "$SRC/2026/11/pub" 5 <<'PY' &
import os, sys, time
d, end = sys.argv[1], time.time() + float(sys.argv[2])
tmp, link = os.path.join(d, "flip.tmp"), os.path.join(d, "flip.darshan")
while time.time() < end:
    for target in ("mine.darshan", "../bpriv/vault.darshan"):
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(target, tmp)
        os.rename(tmp, link)
PY
swapper=$!
as_user python3 - "$D/pub" 5 "$jobid" >"$TMP/swap.out" <<'PY'
import os, sys, time
d, end, jobid = sys.argv[1], time.time() + float(sys.argv[2]), sys.argv[3]
reads = leaks = 0
while time.time() < end:
    for f in ("flip.darshan/header.txt", "flip.darshan/POSIX/derived_metrics", "jobs.csv"):
        try:
            with open(os.path.join(d, f), "rb") as h:
                text = h.read()
        except OSError:
            continue
        reads += 1
        if (b"# jobid: " + jobid.encode() + b"\n") in text or ("," + jobid + ",").encode() in text:
            leaks += 1
print(reads, leaks)
PY
wait $swapper
read -r reads leaks <"$TMP/swap.out"
[ "${reads:-0}" -gt 20 ] || fail "the swap test read only ${reads:-0} files"
[ "$leaks" = 0 ] || fail "user $U read user $O's 0700 log through a link swapped after its check ($leaks of $reads reads)"
rm -f "$SRC/2026/11/pub/flip.darshan" "$SRC/2026/11/pub/flip.tmp"
say "ok: a link swapped between a user's own log and another's private one while read: $reads reads, none of the private log"

# with allow_other, a link to a log outside SOURCE is hidden (nofollow_outside)
ls "$D" >"$TMP/ls" || fail "ls $D failed"
grep -qx away.darshan "$TMP/ls" && fail "a link out of SOURCE is listed on an allow_other mount"
grep -qx near.darshan "$TMP/ls" || fail "a link within SOURCE is not listed"
[ -e "$D/away.darshan" ] && fail "a link out of SOURCE can be looked up"
t cat "$MNT/jobs.csv" | grep -q away.darshan && fail "root's jobs.csv has a row of a link out of SOURCE"
say "ok: with allow_other a link to a log outside SOURCE is hidden (ls, lookup, jobs.csv); one within it shows"

# the user's own 0600 log: readable and filterable by them
as_user cat "$D/theirs.darshan/header.txt" >/dev/null || fail "user $U cannot read their own log"
as_user bash -c 'echo "rank == 0" > "$1"' _ "$D/theirs.darshan/POSIX/filter" || fail "user $U cannot filter their own log"
[ "$(as_user cat "$D/theirs.darshan/POSIX/filter")" = "rank == 0" ] || fail "user $U's filter did not take"
say "ok: user $U reads and filters a log they own"
dfs_alive "$MNT"
dfs_umount "$MNT"

# without allow_other nobody else may enter the mount, and links are
# followed (-o nofollow_outside hides them there too)
dfs_mount "$SRC" "$MNT"
[ -f "$D/away.darshan/header.txt" ] || fail "without allow_other a link out of SOURCE is hidden"
if as_user ls "$D/public.darshan" >/dev/null 2>&1; then fail "user $U can enter a mount without allow_other"; fi
ls "$D/public.darshan" >/dev/null || fail "root cannot list its own mount"
say "ok: without allow_other user $U cannot enter the mount; links out of SOURCE show"
dfs_umount "$MNT"
dfs_mount "$SRC" "$MNT" -o nofollow_outside
[ -e "$D/away.darshan" ] && fail "-o nofollow_outside shows a link out of SOURCE"
[ -f "$D/near.darshan/header.txt" ] || fail "-o nofollow_outside hides a link within SOURCE"
dfs_umount "$MNT"
dfs_mount "$SRC" "$MNT" -o allow_other,follow_outside
[ -f "$D/away.darshan/header.txt" ] || fail "-o follow_outside hides a link out of SOURCE"
dfs_umount "$MNT"
say "ok: -o nofollow_outside and -o follow_outside override the default"
say "PASS"
