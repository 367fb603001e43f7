-- churn.sh: check every recorded answer against the committed state it
-- was routed by.  Prints "name|value" lines for churn.sh to check.
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
\pset footer off
SET work_mem = '256MB';
SET jit = off;

-- The committed states: one per ring and version, each recreated as a ring
-- of its own from the configuration recorded with it
CREATE TABLE states AS
	SELECT row_number() OVER (ORDER BY min(seq)) AS id, ring, version, ring_row, nodes,
		   points, points_md5, min(seq) AS first_seq, min(step) AS first_step
	FROM history
	GROUP BY ring, version, ring_row, nodes, points, points_md5;
ALTER TABLE states ADD COLUMN name text;
UPDATE states SET name = 'state_' || id;
CREATE UNIQUE INDEX ON states (name);
ANALYZE states;
SELECT 'history_rows|' || count(*) FROM history;
SELECT 'states|' || count(*) FROM states;
SELECT 'states_churn|' || count(*) FROM states WHERE ring = 'churn';
SELECT 'states_churn_k|' || count(*) FROM states WHERE ring = 'churn_k';
-- a version names one configuration
SELECT 'versions_with_two_states|' || count(*)
FROM (SELECT ring, version FROM states GROUP BY 1, 2 HAVING count(*) > 1) x;
-- versions only grow: no committed change brings an older version back
SELECT 'versions_going_back|' || count(*)
FROM (SELECT version < lag(version) OVER (PARTITION BY ring ORDER BY seq) AS back FROM history) x
WHERE back;
SELECT 'steps_recorded|' || count(DISTINCT step) FROM history;

INSERT INTO chash.ring_config
SELECT (jsonb_populate_record(NULL::chash.ring_config,
							  s.ring_row || jsonb_build_object('ring', s.name, 'version', 0))).*
FROM states s;
INSERT INTO chash.node_config
SELECT (jsonb_populate_record(NULL::chash.node_config, e || jsonb_build_object('ring', s.name))).*
FROM states s CROSS JOIN LATERAL jsonb_array_elements(s.nodes) e;

-- each recreated ring has the very points the changing session routed by
SELECT 'recreated_rings|' || count(*) FROM chash.ring_config WHERE ring LIKE 'state\_%';
SELECT 'recreated_points_differ|' || count(*)
FROM states s
CROSS JOIN LATERAL (SELECT count(*)::int AS points,
						   md5(string_agg(concat_ws(' ', q.point, q.node, q.vnode), ',' ORDER BY q.ord)) AS md5
					FROM chash_points(s.name) WITH ORDINALITY q(point, node, vnode, ord)) p
WHERE p.points <> s.points OR p.md5 IS DISTINCT FROM s.points_md5;

-- Every answer with the state of each ring its statement saw, and the
-- key's position in each: the key hash of the state, applied by chash_hash
CREATE TABLE checked AS
	SELECT row_number() OVER () AS id, a.*, sc.name AS c_state, sk.name AS k_state,
		   sc.id AS c_sid, sk.id AS k_sid,
		   chash_hash(coalesce(sc.ring_row->>'key_hash', sc.ring_row->>'hash'), 'key:' || a.k) AS c_pos_expected,
		   chash_hash(coalesce(sk.ring_row->>'key_hash', sk.ring_row->>'hash'), 'key:' || a.k) AS k_pos_expected
	FROM answers a
	LEFT JOIN states sc ON sc.ring = 'churn' AND sc.version = a.vc
	LEFT JOIN states sk ON sk.ring = 'churn_k' AND sk.version = a.vk;
ANALYZE checked;
SELECT 'answers|' || count(*) FROM answers;
SELECT 'checked_rows|' || count(*) FROM checked;
SELECT 'answers_src_' || src || '|' || count(*) FROM answers GROUP BY src ORDER BY src;
-- a version no committed state has (a rolled-back one, or none at all)
SELECT 'answers_of_no_committed_state|' || count(*) FROM checked
WHERE c_state IS NULL OR k_state IS NULL;
CREATE TABLE rolled_back_only AS
	SELECT DISTINCT r.ring, r.version FROM rolled_back r
	WHERE NOT EXISTS (SELECT FROM history h WHERE h.ring = r.ring AND h.version = r.version);
SELECT 'rolled_back_versions|' || count(*) FROM rolled_back_only;
SELECT 'answers_of_rolled_back_versions|' || count(*) FROM answers a
WHERE a.vc IN (SELECT version FROM rolled_back_only WHERE ring = 'churn')
   OR a.vk IN (SELECT version FROM rolled_back_only WHERE ring = 'churn_k');
SELECT 'null_answers|' || count(*) FROM answers
WHERE num_nulls(vc, vk, c_text, c_int, c_big, c_uuid, c_n, c_pos, k_text, k_n) > 0;

-- The reference owner, from the points alone: the first point at or after
-- the key's position in ring order (positions compared unsigned: x # min
-- turns unsigned order into signed order), wrapping to the first point.
-- In one sort of points and keys by state and position, keys before points
-- at the same position: a key's owner is the point after the points before it.
CREATE TABLE ref AS
	SELECT s.id AS sid, p.point # (-9223372036854775808)::bigint AS f, p.node,
		   row_number() OVER (PARTITION BY s.id ORDER BY p.point # (-9223372036854775808)::bigint, p.ord) AS rank,
		   count(*) OVER (PARTITION BY s.id) AS total
	FROM states s CROSS JOIN LATERAL chash_points(s.name) WITH ORDINALITY p(point, node, vnode, ord);
ANALYZE ref;
CREATE TABLE ref_owner AS
	WITH merged AS (
		SELECT c.c_sid AS sid, c.c_pos_expected # (-9223372036854775808)::bigint AS f, 0 AS is_point, c.id
		FROM checked c WHERE c.c_sid IS NOT NULL
		UNION ALL
		SELECT c.k_sid, c.k_pos_expected # (-9223372036854775808)::bigint, 0, c.id
		FROM checked c WHERE c.k_sid IS NOT NULL
		UNION ALL
		SELECT r.sid, r.f, 1, NULL FROM ref r
	), counted AS (
		SELECT m.sid, m.id,
			   count(*) FILTER (WHERE m.is_point = 1)
				   OVER (PARTITION BY m.sid ORDER BY m.f, m.is_point ROWS UNBOUNDED PRECEDING) AS before
		FROM merged m
	)
	SELECT c.id, s.ring, r.node
	FROM counted c
	JOIN states s ON s.id = c.sid
	JOIN (SELECT DISTINCT sid, total FROM ref) t ON t.sid = c.sid
	JOIN ref r ON r.sid = c.sid AND r.rank = c.before % t.total + 1
	WHERE c.id IS NOT NULL;
ANALYZE ref_owner;

-- Every answer against chash on the recreated ring of its state, and the
-- text keys' against the reference
CREATE TABLE verdict AS
	SELECT c.id, c.src, c.k, c.vc, c.vk, c.c_state, c.k_state, rc.node AS c_ref, rk.node AS k_ref,
		   (c.c_text, c.c_int, c.c_big, c.c_uuid, c.c_n, c.c_pos)
			   IS NOT DISTINCT FROM
		   (chash_lookup(c.c_state, 'key:' || c.k), chash_lookup(c.c_state, c.k::int),
			chash_lookup(c.c_state, c.k * 1000003), chash_lookup(c.c_state, md5(c.k::text)::uuid),
			chash_lookup_n(c.c_state, 'key:' || c.k, 3), c.c_pos_expected) AS c_ok,
		   (c.k_text, c.k_n)
			   IS NOT DISTINCT FROM
		   (chash_lookup(c.k_state, 'key:' || c.k), chash_lookup_n(c.k_state, c.k::int, 2)) AS k_ok,
		   c.c_text IS NOT DISTINCT FROM rc.node AND c.k_text IS NOT DISTINCT FROM rk.node AS ref_ok
	FROM checked c
	LEFT JOIN ref_owner rc ON rc.id = c.id AND rc.ring = 'churn'
	LEFT JOIN ref_owner rk ON rk.id = c.id AND rk.ring = 'churn_k';
SELECT 'verdict_rows|' || count(*) FROM verdict;
SELECT 'reference_rows|' || count(*) FILTER (WHERE c_ref IS NOT NULL AND k_ref IS NOT NULL) FROM verdict;
SELECT 'wrong_answers|' || count(*) FROM verdict WHERE NOT (c_ok AND k_ok AND ref_ok) OR c_ok IS NULL OR k_ok IS NULL OR ref_ok IS NULL;
SELECT 'wrong_answers_chash|' || count(*) FROM verdict WHERE NOT (c_ok AND k_ok) OR c_ok IS NULL OR k_ok IS NULL;
SELECT 'wrong_answers_reference|' || count(*) FROM verdict WHERE NOT ref_ok OR ref_ok IS NULL;
SELECT 'wrong_answer|' || concat_ws(' ', 'src', v.src, 'key', v.k, 'churn version', v.vc, 'churn_k version', v.vk, ':',
	   'churn', concat_ws(' ', c.c_text, c.c_int, c.c_big, c.c_uuid, c.c_n, c.c_pos),
	   'state routes', concat_ws(' ', chash_lookup(v.c_state, 'key:' || v.k), chash_lookup(v.c_state, v.k::int),
								 chash_lookup(v.c_state, v.k * 1000003), chash_lookup(v.c_state, md5(v.k::text)::uuid),
								 chash_lookup_n(v.c_state, 'key:' || v.k, 3), c.c_pos_expected),
	   'reference', v.c_ref, '; churn_k', concat_ws(' ', c.k_text, c.k_n),
	   'state routes', concat_ws(' ', chash_lookup(v.k_state, 'key:' || v.k), chash_lookup_n(v.k_state, v.k::int, 2)),
	   'reference', v.k_ref)
FROM verdict v JOIN checked c ON c.id = v.id
WHERE NOT (v.c_ok AND v.k_ok AND v.ref_ok) OR v.c_ok IS NULL OR v.k_ok IS NULL OR v.ref_ok IS NULL
ORDER BY v.src, v.k LIMIT 10;

-- Script 6: what parallel workers routed, against each state's routes
CREATE TABLE parallel_checked AS
	SELECT p.vc, p.routes, s.name FROM parallel_answers p
	LEFT JOIN states s ON s.ring = 'churn' AND s.version = p.vc;
CREATE TABLE parallel_expected AS
	SELECT d.name, pkeys_routes(d.name) AS routes
	FROM (SELECT DISTINCT name FROM parallel_checked WHERE name IS NOT NULL) d;
SELECT 'parallel_answers|' || count(*) FROM parallel_answers;
SELECT 'parallel_answers_of_no_committed_state|' || count(*) FROM parallel_checked WHERE name IS NULL;
SELECT 'parallel_answers_checked|' || count(*) FROM parallel_checked c JOIN parallel_expected e USING (name);
SELECT 'parallel_wrong_answers|' || count(*)
FROM parallel_checked c LEFT JOIN parallel_expected e USING (name)
WHERE c.routes IS DISTINCT FROM e.routes;
SELECT 'parallel_states_seen|' || count(DISTINCT vc) FROM parallel_answers;
SELECT 'parallel_workers_launched|' || parallel_workers_launched();

-- How sharp the check is: answers whose route differs under the state just
-- before theirs (the stale route a missed invalidation would give), and
-- under the last state
CREATE TABLE prev_state AS
	SELECT s.name, lag(s.name) OVER (PARTITION BY s.ring ORDER BY s.first_seq) AS prev,
		   last_value(s.name) OVER (PARTITION BY s.ring ORDER BY s.first_seq
									ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last
	FROM states s;
SELECT 'answers_differing_from_previous_state|' || count(*)
FROM (SELECT c.k, c.c_text, p.prev FROM checked c JOIN prev_state p ON p.name = c.c_state
	  WHERE p.prev IS NOT NULL ORDER BY p.prev) x
WHERE x.c_text IS DISTINCT FROM chash_lookup(x.prev, 'key:' || x.k);
SELECT 'answers_differing_from_last_state|' || count(*)
FROM checked c JOIN prev_state p ON p.name = c.c_state
WHERE c.c_text IS DISTINCT FROM chash_lookup(p.last, 'key:' || c.k);
SELECT 'states_seen_churn|' || count(DISTINCT vc) FROM answers WHERE src BETWEEN 1 AND 5;
SELECT 'states_seen_churn_k|' || count(DISTINCT vk) FROM answers WHERE src BETWEEN 1 AND 5;
SELECT 'changer_answers_in_transaction|' || count(*) FROM answers WHERE src = 7;
SELECT 'changer_answers_after_commit|' || count(*) FROM answers WHERE src = 8;
SELECT 'change_statements|' || count(*) FROM changes;
SELECT 'change_kinds|' || count(DISTINCT kind) FROM changes;
SELECT 'change_kinds_done|' || count(DISTINCT done) FROM changes;
