/*
 * chash_export_plan: the ordered steps that take a running system from one
 * ring to another, each safe to run again.  Format redis_cluster lists a
 * Redis Cluster's resharding as the commands sent to each master (slot
 * ranges written a-b, node ids as <id of host:port>); format redis_cli
 * gives the same steps as one bash script over redis-cli (its rows in step
 * order, step 0 the functions the others call), each step checking the
 * cluster first and skipping what is done.  Format haproxy_runtime gives
 * the HAProxy Runtime API commands that take a running backend from one
 * ring to the other without a reload.  chash_export_plan checks its
 * arguments and options, then calls the format's function.
 */

-- The nodes of both rings of a plan, the old first (by ordinal and name),
-- each at its address in to_ring where it is there
CREATE OR REPLACE FUNCTION chash.export_plan_nodes(from_ring text, to_ring text)
	RETURNS TABLE(node text, address text, in_from boolean, in_to boolean, k bigint)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT x.node, x.address, x.in_from, x.in_to, row_number() OVER (ORDER BY NOT x.in_from, x.ordinal, x.node)
FROM (SELECT coalesce(t.node, f.node) AS node, coalesce(t.address, t.node, f.address, f.node) AS address,
			 f.node IS NOT NULL AS in_from, t.node IS NOT NULL AS in_to,
			 coalesce(f.ordinal, t.ordinal) AS ordinal
	  FROM (SELECT c.node, c.address, c.ordinal FROM chash.node_config c WHERE c.ring = from_ring) f
	  FULL JOIN (SELECT c.node, c.address, c.ordinal FROM chash.node_config c WHERE c.ring = to_ring) t
	  USING (node)) x
$$;
COMMENT ON FUNCTION chash.export_plan_nodes(text, text) IS
	'the nodes of the rings of a plan, with their addresses, which ring holds each, and their order';

-- redis_cluster and redis_cli: a Redis Cluster's resharding, the commands
-- per master, or (cli) the same steps as one bash script over redis-cli
CREATE OR REPLACE FUNCTION chash.export_plan_redis(from_ring text, to_ring text, cli boolean)
	RETURNS TABLE(step integer, target text, command text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	bad record;
	r text;
	n record;
	m record;
	o record;
	seed text;
	waits text[] := '{}';
	k integer := 0;
BEGIN
	-- both rings: the slots of a Redis cluster, every one with a master
	-- that is up and is at host:port
	FOREACH r IN ARRAY ARRAY[from_ring, to_ring] LOOP
		PERFORM chash.check_redis_ring(r, 'redis_cluster');
		SELECT c.node INTO bad FROM chash.node_config c
		WHERE c.ring = r AND c.state = 'down' ORDER BY c.ordinal, c.node LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" is down', chash.message_name(bad.node), chash.message_name(r)),
				DETAIL = 'A plan of format "redis_cluster" moves slots between masters that are up.',
				HINT = 'Fail the master over, or give its slots to others, and import the cluster again.';
		END IF;
		SELECT g.slot INTO bad FROM generate_series(0, 16383) g(slot)
		WHERE NOT EXISTS (SELECT FROM @extschema@.chash_slot_ranges(r) x WHERE x.slots @> g.slot)
		ORDER BY g.slot LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('slot %s of ring "%s" has no node', bad.slot, chash.message_name(r)),
				DETAIL = 'A plan of format "redis_cluster" takes a cluster whose every slot has a master to another.',
				HINT = 'Give the slots to nodes with chash_node_set(ring, node, slots => ...).';
		END IF;
		SELECT c.node, coalesce(c.address, c.node) AS address INTO bad FROM chash.node_config c
		WHERE c.ring = r
		  AND (coalesce(c.address, c.node) !~ '^[A-Za-z0-9_.:\[\]][A-Za-z0-9_.:\[\]-]*:[0-9]{1,5}$'
			   OR substring(coalesce(c.address, c.node) FROM ':([0-9]+)$')::integer NOT BETWEEN 1 AND 65535)
		ORDER BY c.ordinal, c.node LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" is not at host:port', chash.message_name(bad.node), chash.message_name(r)),
				DETAIL = format('Its address is "%s"; a plan of format "redis_cluster" addresses each master at the host:port it has in CLUSTER NODES.',
								chash.message_name(bad.address)),
				HINT = 'Import the cluster with chash_ring_import(ring, ''redis_cluster_nodes'', ...), or give the node its address with chash_node_set(ring, node, address => ''host:port'').';
		END IF;
		SELECT coalesce(c.address, c.node) AS address, min(c.node) AS first, max(c.node) AS second INTO bad
		FROM chash.node_config c WHERE c.ring = r
		GROUP BY coalesce(c.address, c.node) HAVING count(*) > 1 ORDER BY 1 LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('nodes "%s" and "%s" of ring "%s" have the same address "%s"',
								 chash.message_name(bad.first), chash.message_name(bad.second), chash.message_name(r),
								 chash.message_name(bad.address)),
				DETAIL = 'A plan of format "redis_cluster" addresses each master at its own host:port.';
		END IF;
	END LOOP;
	SELECT p.address, min(p.node) AS first, max(p.node) AS second INTO bad FROM chash.export_plan_nodes(from_ring, to_ring) p
	GROUP BY p.address HAVING count(*) > 1 ORDER BY 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('nodes "%s" and "%s" of rings "%s" and "%s" have the same address "%s"',
							 chash.message_name(bad.first), chash.message_name(bad.second), chash.message_name(from_ring),
							 chash.message_name(to_ring), chash.message_name(bad.address)),
			DETAIL = 'A plan of format "redis_cluster" addresses each master at its own host:port.';
	END IF;
	IF cli THEN
		step := 0;
		target := NULL;
		command := $script$#!/usr/bin/env bash
# Written by chash_export_plan(from_ring, to_ring, 'redis_cli'): takes a
# running Redis Cluster from the slots of ring FROM to those of ring TO.
# Each step checks the cluster first and skips what is done, so the script
# can be run again from the start after a failure or a kill.  Nodes are
# host:port; their ids are asked of the nodes (CLUSTER MYID, CLUSTER NODES).
# Environment: REDIS_CLI (default redis-cli); REDISCLI_AUTH, the password,
# as redis-cli reads it, and REDIS_USER, an ACL user, for a cluster that
# asks for them (MIGRATE then authenticates on the destination too); keys
# are moved BATCH (default 1000) a slot at a time with MIGRATE ... REPLACE
# KEYS, each MIGRATE given MIGRATE_TIMEOUT ms (5000).  A node that leaves,
# once the masters that stay have forgotten it, may be shut down: a step
# on it is then skipped, and the plan can still be run again.
set -euo pipefail
REDIS_CLI=${REDIS_CLI:-redis-cli}
BATCH=${BATCH:-1000}
MIGRATE_TIMEOUT=${MIGRATE_TIMEOUT:-5000}
user=()
[ -z "${REDIS_USER:-}" ] || user=(--user "$REDIS_USER")
# MIGRATE's AUTH or AUTH2, each byte \xHH in quotes as redis-cli reads them
migrate_auth=
if [ -n "${REDISCLI_AUTH:-}" ]; then
	hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n' | sed 's/../\\x&/g'; }
	migrate_auth=" AUTH \"$(hex "$REDISCLI_AUTH")\""
	[ -z "${REDIS_USER:-}" ] || migrate_auth=" AUTH2 \"$(hex "$REDIS_USER")\" \"$(hex "$REDISCLI_AUTH")\""
fi
say() { printf '%s\n' "$*" >&2; }
die() { say "plan: $*"; exit 1; }
# cli ADDR ARGS...: one command on ADDR, its raw reply
cli() { "$REDIS_CLI" "${user[@]}" -h "${1%:*}" -p "${1##*:}" "${@:2}"; }
# gone ADDR: ADDR does not answer, and no master that stays (STAYING, set
# by the plan) knows it any more: it has left, and its steps are done
gone() {
	local s
	cli "$1" PING >/dev/null 2>&1 && return 1
	for s in "${STAYING[@]}"; do
		[ -z "$(line_of "$(view "$s")" "$1")" ] || return 1
	done
	say "$1 has left the cluster: nothing to do on it"
}
# batch ADDR: the commands on stdin (redis-cli's quoting, one a line) on
# ADDR; their replies (--no-raw), or a failure on an error reply
batch() {
	local out
	out=$("$REDIS_CLI" "${user[@]}" -h "${1%:*}" -p "${1##*:}" --no-raw) || die "$1: redis-cli failed"
	if grep -q '^(error)' <<<"$out"; then
		die "$1: $(grep -m1 '^(error)' <<<"$out")"
	fi
	printf '%s\n' "$out"
}
# pipe ADDR [soft]: the commands on stdin (short lines, redis-cli's
# quoting) sent to ADDR at once (redis-cli --pipe), or a failure on an
# error reply (soft: a false status)
pipe() {
	local out
	out=$("$REDIS_CLI" "${user[@]}" -h "${1%:*}" -p "${1##*:}" --pipe 2>&1) && return 0
	[ $# -lt 2 ] || return 1
	die "$1: $(tr '\n' ' ' <<<"$out")"
}
# myid ADDR: the node id of ADDR
myid() {
	local id
	id=$(cli "$1" CLUSTER MYID) || die "$1: CLUSTER MYID failed"
	[[ $id =~ ^[0-9a-f]{40}$ ]] || die "$1: CLUSTER MYID answered \"$id\""
	printf '%s\n' "$id"
}
# view ADDR: CLUSTER NODES of ADDR
view() { cli "$1" CLUSTER NODES || die "$1: CLUSTER NODES failed"; }
# slots_of VIEW OWNER RANGES: the slots of RANGES ("a-b,c-d", ends
# included) that VIEW (CLUSTER NODES text) gives OWNER (host:port, or
# "myself"), one a line
slots_of() {
	awk -v who="$2" -v ranges="$3" '
		BEGIN { nr = split(ranges, rr, ","); for (j = 1; j <= nr; j++) { split(rr[j], e, "-"); lo[j] = e[1] + 0; hi[j] = e[2] + 0 } }
		{ a = $2; sub(/@.*/, "", a) }
		(who == "myself" && $3 ~ /(^|,)myself(,|$)/) || (who != "myself" && a == who) {
			for (i = 9; i <= NF; i++) {
				if ($i ~ /^\[/) continue
				n = split($i, r, "-"); f = r[1] + 0; t = (n > 1 ? r[2] : r[1]) + 0
				for (j = 1; j <= nr; j++) {
					a0 = (f > lo[j] ? f : lo[j]); b0 = (t < hi[j] ? t : hi[j])
					for (s = a0; s <= b0; s++) print s
				}
			}
		}' <<<"$1"
}
# marked VIEW RANGES: the slots of RANGES that the node whose view it is
# migrates or imports ([s->-id], [s-<-id] in its line), one a line
marked() {
	awk -v ranges="$2" '
		BEGIN { nr = split(ranges, rr, ","); for (j = 1; j <= nr; j++) { split(rr[j], e, "-"); lo[j] = e[1] + 0; hi[j] = e[2] + 0 } }
		$3 ~ /(^|,)myself(,|$)/ {
			for (i = 9; i <= NF; i++)
				if ($i ~ /^\[/) {
					s = substr($i, 2) + 0
					for (j = 1; j <= nr; j++) if (s >= lo[j] && s <= hi[j]) print s
				}
		}' <<<"$1"
}
# is_master VIEW: the node whose view it is is a master
is_master() { awk '$3 ~ /(^|,)myself(,|$)/ && $3 ~ /(^|,)master(,|$)/ { m = 1 } END { exit !m }' <<<"$1"; }
# line_of VIEW ADDR: the line of ADDR in VIEW, if it knows it (not in handshake)
line_of() { awk -v who="$2" '{ a = $2; sub(/@.*/, "", a) } a == who && $3 !~ /handshake|noaddr/' <<<"$1"; }
# complement RANGES: the slots of RANGES not on stdin
complement() {
	awk -v ranges="$1" '{ d[$1] = 1 }
		END { nr = split(ranges, rr, ",")
			  for (j = 1; j <= nr; j++) { split(rr[j], e, "-"); for (s = e[1] + 0; s <= e[2] + 0; s++) if (!(s in d)) print s } }'
}

# meet SEED NEW NODES...: NEW joins the cluster through SEED, then waits
# (60 s at most) until NEW and each of NODES know each other and NEW has
# learnt every slot's master (cluster_state:ok): till then it answers the
# MIGRATE of a key with CLUSTERDOWN
meet() {
	local seed=$1 new=$2 n i ok
	shift 2
	if [ -z "$(line_of "$(view "$seed")" "$new")" ]; then
		[ "$(cli "$seed" CLUSTER MEET "${new%:*}" "${new##*:}")" = OK ] || die "$seed: CLUSTER MEET $new failed"
	fi
	for ((i = 0; i < 600; i++)); do
		ok=1
		for n in "$@"; do
			if [ -z "$(line_of "$(view "$n")" "$new")" ] || [ -z "$(line_of "$(view "$new")" "$n")" ]; then
				ok=
				break
			fi
		done
		if [ -n "$ok" ] && cli "$new" CLUSTER INFO | grep -q '^cluster_state:ok'; then
			return 0
		fi
		sleep 0.1
	done
	die "$new and $* do not know each other, or $new has not learnt the slots, after 60 s"
}

# importing DST SRC RANGES: CLUSTER SETSLOT s IMPORTING <SRC> on DST, for
# the slots s of RANGES that DST does not own
importing() {
	local id todo
	! gone "$1" || return 0
	todo=$(slots_of "$(view "$1")" myself "$3" | complement "$3")
	[ -n "$todo" ] || return 0
	id=$(myid "$2")
	awk -v id="$id" '{ print "CLUSTER SETSLOT " $1 " IMPORTING " id }' <<<"$todo" | pipe "$1"
}
# migrating SRC DST RANGES: CLUSTER SETSLOT s MIGRATING <DST> on SRC, for
# the slots s of RANGES that SRC still owns
migrating() {
	local id todo
	! gone "$1" || return 0
	todo=$(slots_of "$(view "$1")" myself "$3")
	[ -n "$todo" ] || return 0
	id=$(myid "$2")
	awk -v id="$id" '{ print "CLUSTER SETSLOT " $1 " MIGRATING " id }' <<<"$todo" | pipe "$1"
}
# migrate SRC DST RANGES: the keys of the slots of RANGES that SRC still
# owns MIGRATEd to DST, BATCH keys a slot at a time, until none is left
migrate() {
	local todo keys moves
	! gone "$1" || return 0
	while :; do
		todo=$(slots_of "$(view "$1")" myself "$3")
		[ -n "$todo" ] || return 0
		keys=$(awk -v n="$BATCH" '{ print "ECHO @" $1; print "CLUSTER GETKEYSINSLOT " $1 " " n }' <<<"$todo" | batch "$1")
		# the keys as redis-cli prints them, quoted as it reads them back
		moves=$(MIGRATE_AUTH=$migrate_auth awk -v host="${2%:*}" -v port="${2##*:}" -v t="$MIGRATE_TIMEOUT" '
			function flush() { if (k != "") print "MIGRATE " host " " port " \"\" 0 " t " REPLACE" ENVIRON["MIGRATE_AUTH"] " KEYS" k; k = "" }
			/^"@[0-9]+"$/ { flush(); next }
			/^ *[0-9]+\) "/ { sub(/^ *[0-9]+\) /, ""); k = k " " $0 }
			END { flush() }' <<<"$keys")
		[ -n "$moves" ] || return 0
		batch "$1" <<<"$moves" >/dev/null
	done
}
# node TARGET DST RANGES [SRC]: CLUSTER SETSLOT s NODE <DST> on TARGET, a
# master, for the slots s of RANGES it does not give DST yet; with SRC (on
# DST itself), first checks that SRC holds no key of them
node() {
	local v id todo left
	! gone "$1" || return 0
	v=$(view "$1")
	is_master "$v" || return 0
	# (a slot it gives DST by gossip may still be marked migrating here)
	todo=$({ slots_of "$v" "$([ "$1" = "$2" ] && echo myself || echo "$2")" "$3" | complement "$3"
			 marked "$v" "$3"; } | sort -nu)
	[ -n "$todo" ] || return 0
	if [ $# -gt 3 ] && ! gone "$4" && is_master "$(view "$4")"; then
		left=$(awk '{ print "CLUSTER COUNTKEYSINSLOT " $1 }' <<<"$todo" | batch "$4" | awk '{ n += $2 } END { print n + 0 }')
		[ "$left" = 0 ] || die "$4 still holds $left keys of slots $3"
	fi
	id=$(myid "$2")
	# (a donor that has just given its last slot may have become a replica
	# meanwhile, Redis 7's replica migration: then there is nothing to set)
	if ! awk -v id="$id" '{ print "CLUSTER SETSLOT " $1 " NODE " id }' <<<"$todo" | pipe "$1" soft; then
		! is_master "$(view "$1")" || die "$1: CLUSTER SETSLOT ... NODE $id failed"
	fi
}
# forget TARGET GONE: CLUSTER FORGET <GONE> on TARGET, if it still knows
# GONE, which must own no slot
forget() {
	local line
	line=$(line_of "$(view "$1")" "$2")
	[ -n "$line" ] || return 0
	[ -z "$(cut -d' ' -f9- <<<"$line" | tr -d ' ')" ] || die "$1 says $2 still owns slots: $(cut -d' ' -f9- <<<"$line")"
	[ "$(cli "$1" CLUSTER FORGET "$(cut -d' ' -f1 <<<"$line")")" = OK ] || die "$1: CLUSTER FORGET $2 failed"
}
# replicas GONE HEIR: every replica of GONE (a master that leaves) made a
# replica of HEIR (CLUSTER REPLICATE), unless Redis moved it already (a
# replica of a master left without slots follows the master that took
# its last one, with cluster-allow-replica-migration)
replicas() {
	local v gone_id heir_id a
	v=$(view "$2")
	gone_id=$(line_of "$v" "$1" | cut -d' ' -f1)
	[ -n "$gone_id" ] || return 0
	heir_id=$(myid "$2")
	awk -v id="$gone_id" '$3 ~ /(^|,)slave(,|$)/ && $4 == id { a = $2; sub(/@.*/, "", a); print a }' <<<"$v" |
	while read -r a; do
		[ "$(cli "$a" CLUSTER REPLICATE "$heir_id")" = OK ] || die "$a: CLUSTER REPLICATE $heir_id failed"
	done
}
# forget_replicas SEED GONE: CLUSTER FORGET <GONE> on every replica that
# SEED knows, as on the masters (else their gossip would bring GONE back)
forget_replicas() {
	local a
	awk '$3 ~ /(^|,)slave(,|$)/ && $3 !~ /fail|handshake|noaddr/ { a = $2; sub(/@.*/, "", a); print a }' <<<"$(view "$1")" |
	while read -r a; do
		forget "$a" "$2"
	done
}
# step N WHAT ARGS...: step N of the plan
step() {
	local t0=${EPOCHREALTIME:-0}
	say "step $1: $2 ${*:3}"
	"${@:2}"
	say "step $1: done in $(awk -v a="$t0" -v b="${EPOCHREALTIME:-0}" 'BEGIN { printf "%.2f", b - a }') s"
}
$script$
			|| format(E'# the plan: chash_export_plan(%s, %s, ''redis_cli'')\nSTAYING=(%s)',
					  pg_catalog.regexp_replace(pg_catalog.quote_literal(from_ring), '[[:cntrl:]]', '?', 'g'),
					  pg_catalog.regexp_replace(pg_catalog.quote_literal(to_ring), '[[:cntrl:]]', '?', 'g'),
					  (SELECT string_agg(pg_catalog.quote_literal(p.address), ' ' ORDER BY p.k)
					   FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE p.in_to));
		RETURN NEXT;
	END IF;
	-- new masters meet the cluster through a master that stays
	SELECT p.address INTO seed FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE p.in_from ORDER BY NOT p.in_to, p.k LIMIT 1;
	SELECT array_agg(p.address ORDER BY p.k) INTO waits FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE p.in_from;
	FOR n IN SELECT p.address FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE NOT p.in_from ORDER BY p.k LOOP
		k := k + 1;
		step := k;
		target := seed;
		command := CASE WHEN cli THEN format('step %s meet %s %s %s', k, seed, n.address, array_to_string(waits, ' '))
						ELSE format('CLUSTER MEET %s %s', substring(n.address FROM '^(.*):'), substring(n.address FROM ':([0-9]+)$')) END;
		RETURN NEXT;
		waits := waits || n.address;
	END LOOP;
	-- the slots that change master, by pair of masters (in up to 1,000
	-- ranges a step: the list is one argument of the script's awk), each
	-- moved as redis-cli --cluster reshard moves a slot
	FOR m IN SELECT string_agg(y.lo || '-' || (y.hi - 1), ',' ORDER BY y.lo) AS ranges, y.src, y.dst
			 FROM (SELECT lower(x.slots) AS lo, upper(x.slots) AS hi, pf.address AS src, pt.address AS dst,
						  (row_number() OVER (PARTITION BY pf.address, pt.address ORDER BY lower(x.slots)) - 1) / 1000 AS chunk
				   FROM @extschema@.chash_moved_slots(from_ring, to_ring) x
				   JOIN chash.export_plan_nodes(from_ring, to_ring) pf ON pf.node = x.from_node
				   JOIN chash.export_plan_nodes(from_ring, to_ring) pt ON pt.node = x.to_node) y
			 GROUP BY y.src, y.dst, y.chunk
			 ORDER BY min(y.lo) LOOP
		k := k + 1;
		step := k;
		target := m.dst;
		command := CASE WHEN cli THEN format('step %s importing %s %s %s', k, m.dst, m.src, m.ranges)
						ELSE format('CLUSTER SETSLOT %s IMPORTING <id of %s>', m.ranges, m.src) END;
		RETURN NEXT;
		k := k + 1;
		step := k;
		target := m.src;
		command := CASE WHEN cli THEN format('step %s migrating %s %s %s', k, m.src, m.dst, m.ranges)
						ELSE format('CLUSTER SETSLOT %s MIGRATING <id of %s>', m.ranges, m.dst) END;
		RETURN NEXT;
		k := k + 1;
		step := k;
		target := m.src;
		command := CASE WHEN cli THEN format('step %s migrate %s %s %s', k, m.src, m.dst, m.ranges)
						ELSE format('CLUSTER GETKEYSINSLOT %s 1000, MIGRATE %s %s "" 0 5000 REPLACE KEYS <its keys>, until it has none',
									m.ranges, substring(m.dst FROM '^(.*):'), substring(m.dst FROM ':([0-9]+)$')) END;
		RETURN NEXT;
		FOR o IN SELECT p.address FROM chash.export_plan_nodes(from_ring, to_ring) p
				 ORDER BY p.address <> m.dst, p.address <> m.src, p.k LOOP
			k := k + 1;
			step := k;
			target := o.address;
			command := CASE WHEN cli THEN format('step %s node %s %s %s%s', k, o.address, m.dst, m.ranges,
												 CASE WHEN o.address = m.dst THEN ' ' || m.src ELSE '' END)
							ELSE format('CLUSTER SETSLOT %s NODE <id of %s>', m.ranges, m.dst) END;
			RETURN NEXT;
		END LOOP;
	END LOOP;
	-- masters that leave: their replicas to the master that takes most of
	-- their slots, then forgotten by those that stay (and their replicas)
	-- once they own nothing
	FOR n IN SELECT p.node, p.address FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE NOT p.in_to ORDER BY p.k LOOP
		SELECT pt.address AS heir INTO o
		FROM @extschema@.chash_moved_slots(from_ring, to_ring) x
		JOIN chash.export_plan_nodes(from_ring, to_ring) pt ON pt.node = x.to_node
		WHERE x.from_node = n.node
		GROUP BY pt.address, pt.k ORDER BY sum(upper(x.slots) - lower(x.slots)) DESC, pt.k LIMIT 1;
		IF NOT FOUND THEN
			SELECT p.address AS heir INTO o FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE p.in_to ORDER BY p.k LIMIT 1;
		END IF;
		k := k + 1;
		step := k;
		target := o.heir;
		command := CASE WHEN cli THEN format('step %s replicas %s %s', k, n.address, o.heir)
						ELSE format('CLUSTER REPLICATE <id of %s>, sent to each replica of %s', o.heir, n.address) END;
		RETURN NEXT;
		FOR o IN SELECT p.address FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE p.in_to ORDER BY p.k LOOP
			k := k + 1;
			step := k;
			target := o.address;
			command := CASE WHEN cli THEN format('step %s forget %s %s', k, o.address, n.address)
							ELSE format('CLUSTER FORGET <id of %s>', n.address) END;
			RETURN NEXT;
		END LOOP;
		SELECT p.address AS first INTO o FROM chash.export_plan_nodes(from_ring, to_ring) p WHERE p.in_to ORDER BY p.k LIMIT 1;
		k := k + 1;
		step := k;
		target := o.first;
		command := CASE WHEN cli THEN format('step %s forget_replicas %s %s', k, o.first, n.address)
						ELSE format('CLUSTER FORGET <id of %s>, sent to every replica', n.address) END;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash.export_plan_redis(text, text, boolean) IS
	'chash_export_plan of formats redis_cluster and (cli) redis_cli';

-- An address that HAProxy 2.6 gives a server added at runtime as it is:
-- an IPv4 or IPv6 address (with or without a port) or a unix socket.
-- ("add server" never resolves a host name: such a server has none.)
CREATE OR REPLACE FUNCTION chash.export_plan_haproxy_addable(address text)
	RETURNS boolean
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT address ~ '^(ipv4@)?[0-9]{1,3}(\.[0-9]{1,3}){3}(:[0-9]{1,5})?$'
	OR address ~ '^(ipv6@)?(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)(:[0-9]{1,5})?$'
	OR address ~ '^(unix@)?/[A-Za-z0-9_./-]+$'
	OR address ~ '^abns@[A-Za-z0-9_./-]+$'
$$;
COMMENT ON FUNCTION chash.export_plan_haproxy_addable(text) IS
	'an address that HAProxy gives a server added at runtime as it is (an IP address or a unix socket), not a host name it would leave unresolved';

-- The servers of a haproxy_runtime plan, by name, as chash_export writes
-- them for each ring (ordinal = id, address, weight, down): gone, those
-- that leave from_ring's backend or are deleted to come back with another
-- id or address; added, those that come (back); in to_ring's order, those
-- that leave after them in from_ring's
CREATE OR REPLACE FUNCTION chash.export_plan_haproxy_servers(from_ring text, to_ring text)
	RETURNS TABLE(node text, f_ordinal bigint, t_ordinal bigint, t_address text, f_weight integer,
				  t_weight integer, f_down boolean, t_down boolean, gone boolean, added boolean, k bigint)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT x.node, x.f_ordinal, x.t_ordinal, x.t_address, x.f_weight, x.t_weight, x.f_down, x.t_down,
	   x.f_ordinal IS NOT NULL AND (x.t_ordinal IS NULL OR x.changed),
	   x.t_ordinal IS NOT NULL AND (x.f_ordinal IS NULL OR x.changed),
	   row_number() OVER (ORDER BY x.t_ordinal IS NULL, x.t_ordinal, x.f_ordinal, x.node)
FROM (SELECT coalesce(t.node, f.node) AS node, f.ordinal AS f_ordinal, t.ordinal AS t_ordinal,
			 t.address AS t_address, f.weight::integer AS f_weight, t.weight::integer AS t_weight,
			 f.down AS f_down, t.down AS t_down,
			 f.ordinal IS DISTINCT FROM t.ordinal OR f.address IS DISTINCT FROM t.address AS changed
	  FROM (SELECT c.node, c.ordinal, coalesce(c.address, c.node) AS address, c.weight, c.state = 'down' AS down
			FROM chash.node_config c WHERE c.ring = from_ring) f
	  FULL JOIN (SELECT c.node, c.ordinal, coalesce(c.address, c.node) AS address, c.weight, c.state = 'down' AS down
				 FROM chash.node_config c WHERE c.ring = to_ring) t
	  USING (node)) x
$$;
COMMENT ON FUNCTION chash.export_plan_haproxy_servers(text, text) IS
	'the servers of a haproxy_runtime plan: their ids, addresses, weights and states in both rings, which are deleted and which added';

-- haproxy_runtime: the HAProxy Runtime API commands (stats socket, level
-- admin) that take a running backend loaded from chash_export(from_ring,
-- 'haproxy') to route as to_ring, without a reload.  HAProxy places a
-- server by its id and weight: a server whose id or address changes is
-- deleted and added again under its name; one that leaves is put in
-- maintenance, then deleted; one that comes is added (HAProxy starts it in
-- maintenance), weights are set, then each server's state.  What the
-- runtime cannot change (the key hash, a host name for an added server) is
-- refused.
CREATE OR REPLACE FUNCTION chash.export_plan_haproxy_runtime(from_ring text, to_ring text, options jsonb)
	RETURNS TABLE(step integer, target text, command text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	backend text;
	hashes record;
	bad record;
	n record;
	k integer := 0;
BEGIN
	IF from_ring = to_ring THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'a plan compares two different rings',
			DETAIL = format('Both rings are "%s".', chash.message_name(from_ring)),
			HINT = 'Copy the ring with chash_ring_copy(), change the copy, and compare the two.';
	END IF;
	backend := chash.export_option(options, 'backend', from_ring, '^[A-Za-z0-9_.:-]+$',
								   'a backend name of letters, digits, "_", ".", ":" and "-"');
	-- both rings as format haproxy writes them: its settings, names,
	-- weights from 1 to 256, ids (the ordinals), addresses
	PERFORM chash.export_haproxy(from_ring, pg_catalog.jsonb_build_object('name', backend));
	PERFORM chash.export_haproxy(to_ring, pg_catalog.jsonb_build_object('name', backend));
	SELECT coalesce(f.key_hash, f.hash) AS f, coalesce(t.key_hash, t.hash) AS t INTO hashes
	FROM chash.ring_config f, chash.ring_config t WHERE f.ring = from_ring AND t.ring = to_ring;
	IF hashes.f <> hashes.t THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('rings "%s" and "%s" have different key hashes, which HAProxy cannot change at runtime',
							 chash.message_name(from_ring), chash.message_name(to_ring)),
			DETAIL = format('Ring "%s" hashes keys with "%s", ring "%s" with "%s"; HAProxy reads a backend''s hash-type from its configuration only.',
							chash.message_name(from_ring), hashes.f, chash.message_name(to_ring), hashes.t),
			HINT = 'Write the backend of chash_export(to_ring, ''haproxy'') to the configuration and reload HAProxy.';
	END IF;
	SELECT p.node, p.t_address INTO bad FROM chash.export_plan_haproxy_servers(from_ring, to_ring) p
	WHERE p.added AND NOT chash.export_plan_haproxy_addable(p.t_address) ORDER BY p.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has address "%s", which HAProxy cannot give a server added at runtime',
							 chash.message_name(bad.node), chash.message_name(to_ring), chash.message_name(bad.t_address)),
			DETAIL = 'HAProxy 2.6 never resolves the host name of a server added with "add server" (its init-addr is none): the address of a server the plan adds is an IP address or a unix socket.',
			HINT = 'Give the node such an address with chash_node_set(ring, node, address => ''10.0.0.1:80''), or write the backend of chash_export(to_ring, ''haproxy'') to the configuration and reload HAProxy.';
	END IF;
	step := 0;
	target := NULL;
	command := format(E'# HAProxy Runtime API commands (HAProxy 2.6 or later) that take backend %s,\n'
					  '# loaded from chash_export(%s, ''haproxy''), to the servers of ring %s without a reload.\n'
					  '# This row is not a command: send the commands of steps 1 and up, in order, to\n'
					  '# the stats socket (level admin), as "socat stdio /run/haproxy/admin.sock" reads them.\n'
					  '# Running them again from step 1 ends in the same backend: "set server" and "del\n'
					  '# server" of a server already deleted answer "No such server.", "add server" of\n'
					  '# one already added answers "custom id N already used ... (''server NAME'')", and a\n'
					  '# server added again for a new id or address is deleted and added once more.\n'
					  '# "del server" answers "Server still has connections attached to it" while the\n'
					  '# server in maintenance has connections (idle ones close after pool-purge-delay):\n'
					  '# send it, and the steps after it, again later.  A reload forgets servers added\n'
					  '# at runtime: write chash_export(%s, ''haproxy'') to the configuration too.',
					  backend,
					  pg_catalog.regexp_replace(pg_catalog.quote_literal(from_ring), '[[:cntrl:]]', '?', 'g'),
					  pg_catalog.regexp_replace(pg_catalog.quote_literal(to_ring), '[[:cntrl:]]', '?', 'g'),
					  pg_catalog.regexp_replace(pg_catalog.quote_literal(to_ring), '[[:cntrl:]]', '?', 'g'));
	RETURN NEXT;
	-- servers that leave, or come back with another id or address: out of
	-- the hash (maintenance), then deleted
	FOR n IN SELECT p.node FROM chash.export_plan_haproxy_servers(from_ring, to_ring) p WHERE p.gone
			 ORDER BY p.f_ordinal LOOP
		k := k + 1;
		step := k;
		target := backend || '/' || n.node;
		command := format('set server %s state maint', target);
		RETURN NEXT;
		k := k + 1;
		step := k;
		command := format('del server %s', target);
		RETURN NEXT;
	END LOOP;
	-- servers that come (back): HAProxy adds them in maintenance
	FOR n IN SELECT p.node, p.t_address, p.t_ordinal, p.t_weight FROM chash.export_plan_haproxy_servers(from_ring, to_ring) p
			 WHERE p.added ORDER BY p.k LOOP
		k := k + 1;
		step := k;
		target := backend || '/' || n.node;
		command := format('add server %s %s id %s weight %s', target, n.t_address, n.t_ordinal, n.t_weight);
		RETURN NEXT;
	END LOOP;
	-- weights of the servers that stay
	FOR n IN SELECT p.node, p.t_weight FROM chash.export_plan_haproxy_servers(from_ring, to_ring) p
			 WHERE p.f_ordinal IS NOT NULL AND p.t_ordinal IS NOT NULL AND NOT p.added AND p.f_weight <> p.t_weight
			 ORDER BY p.k LOOP
		k := k + 1;
		step := k;
		target := backend || '/' || n.node;
		command := format('set server %s weight %s', target, n.t_weight);
		RETURN NEXT;
	END LOOP;
	-- states: ready for a server that comes up, maint for one that goes down
	FOR n IN SELECT p.node, p.t_down FROM chash.export_plan_haproxy_servers(from_ring, to_ring) p
			 WHERE p.t_ordinal IS NOT NULL
			   AND (NOT p.t_down AND (p.added OR p.f_down) OR p.t_down AND NOT p.added AND NOT p.f_down)
			 ORDER BY p.k LOOP
		k := k + 1;
		step := k;
		target := backend || '/' || n.node;
		command := format('set server %s state %s', target, CASE WHEN n.t_down THEN 'maint' ELSE 'ready' END);
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash.export_plan_haproxy_runtime(text, text, jsonb) IS
	'chash_export_plan of format haproxy_runtime';

CREATE OR REPLACE FUNCTION chash_export_plan(from_ring text, to_ring text, format text DEFAULT NULL,
											 options jsonb DEFAULT '{}')
	RETURNS TABLE(step integer, target text, command text)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	profile text;
	-- (null: a system that loads a whole configuration, whose options are
	-- chash_export's, and relation and key_column)
	known CONSTANT jsonb := '{"redis_cluster": [], "redis_cli": [], "haproxy_runtime": ["backend"],
							 "cassandra": [], "nginx": null, "haproxy": null, "twemproxy": null,
							 "envoy": null, "libmemcached": null, "dalli": null, "spymemcached": null,
							 "pymemcache": null, "uhashring": null, "hashring": null, "groupcache": null}';
	bad record;
	r text;
BEGIN
	IF from_ring IS NULL OR to_ring IS NULL OR options IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'from_ring, to_ring and options must not be null',
			HINT = 'Leave format out (or NULL) for the profile of to_ring, and options for none.';
	END IF;
	FOREACH r IN ARRAY ARRAY[from_ring, to_ring] LOOP
		IF NOT EXISTS (SELECT FROM chash.ring_config c WHERE c.ring = r) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_object',
				MESSAGE = format('ring "%s" does not exist', chash.message_name(r));
		END IF;
	END LOOP;
	SELECT c.profile INTO profile FROM chash.ring_config c WHERE c.ring = to_ring;
	IF format IS NULL AND profile IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has no profile to take the format from', chash.message_name(to_ring)),
			HINT = 'Give the format: "redis_cluster", "redis_cli", "haproxy_runtime", "cassandra", or the format of chash_export of a system that loads a whole configuration.';
	END IF;
	-- (a ring of profile haproxy: the Runtime API commands)
	format := coalesce(format, CASE WHEN profile = 'haproxy' THEN 'haproxy_runtime'
									WHEN profile IN ('envoy_ring_hash', 'envoy_maglev') THEN 'envoy' ELSE profile END);
	IF NOT known ? format THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown plan format "%s"', chash.message_name(format)),
			DETAIL = CASE WHEN format = profile THEN format('It is the profile of ring "%s".', chash.message_name(to_ring))
						  ELSE 'It is not one chash_export_plan has.' END,
			HINT = 'The formats are "redis_cluster" (the commands per master), "redis_cli" (a bash script over redis-cli), "haproxy_runtime" (HAProxy Runtime API commands), "cassandra" (nodes joining, moving and leaving, one at a time), and those of chash_export of a system that loads a whole configuration: "nginx", "haproxy", "twemproxy", "envoy", "libmemcached", "dalli", "spymemcached", "pymemcache", "uhashring", "hashring" and "groupcache" (the new configuration, then what moves).';
	END IF;
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'options must be a JSON object',
			DETAIL = format('They are %s.', pg_catalog.left(options::text, 100));
	END IF;
	IF known -> format = 'null' THEN
		RETURN QUERY SELECT * FROM chash.export_plan_config(from_ring, to_ring, format, options);
		RETURN;
	END IF;
	SELECT opt.k INTO bad FROM pg_catalog.jsonb_object_keys(options) AS opt(k)
	WHERE NOT (known -> format) ? opt.k ORDER BY opt.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown option "%s" of format "%s"', chash.message_name(bad.k), format),
			HINT = CASE WHEN pg_catalog.jsonb_array_length(known -> format) = 0 THEN format('Format "%s" has no options.', format)
						ELSE format('The options of format "%s" are %s.', format,
									(SELECT string_agg('"' || x || '"', ' and ') FROM pg_catalog.jsonb_array_elements_text(known -> format) x)) END;
	END IF;
	IF format = 'haproxy_runtime' THEN
		RETURN QUERY SELECT * FROM chash.export_plan_haproxy_runtime(from_ring, to_ring, options);
	ELSIF format = 'cassandra' THEN
		RETURN QUERY SELECT * FROM chash.export_plan_cassandra(from_ring, to_ring, options);
	ELSE
		RETURN QUERY SELECT * FROM chash.export_plan_redis(from_ring, to_ring, format = 'redis_cli');
	END IF;
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_export_plan(text, text, text, jsonb) IS
	'the ordered steps, each safe to run again, that take a running system from one ring to another: format redis_cluster (by default for rings of that profile), the commands per master of a Redis Cluster resharding (new masters met, per moving slot range SETSLOT IMPORTING on the destination, MIGRATING on the source, GETKEYSINSLOT/MIGRATE until empty, SETSLOT NODE on every master; masters that leave forgotten), or redis_cli, the same steps as one bash script over redis-cli (rows in step order, step 0 its functions); format haproxy_runtime (by default for rings of profile haproxy), the HAProxy Runtime API commands that take a backend loaded from chash_export(from_ring, ''haproxy'') to route as to_ring without a reload (step 0 a comment: what a re-run does), option backend (default from_ring); format cassandra (new nodes join with their initial_token, nodes of one token move, nodes that leave are decommissioned, one at a time); and for systems that load a whole configuration (nginx, haproxy, twemproxy, envoy, the memcached clients) the new configuration, what moves per pair of servers and, with options relation and key_column, every key that changes server';
