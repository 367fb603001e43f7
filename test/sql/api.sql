--
-- The SQL surface: every function of the extension, its deliberate
-- markings and its comment (what \df+ shows), and the objects in schema
-- chash.
--
SELECT p.oid::regprocedure AS function,
	   CASE p.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE'
			ELSE 'VOLATILE' END AS volatility,
	   CASE WHEN p.proisstrict THEN 'STRICT' ELSE '' END AS strict,
	   CASE p.proparallel WHEN 's' THEN 'SAFE' WHEN 'r' THEN 'RESTRICTED'
			ELSE 'UNSAFE' END AS parallel,
	   p.prosecdef AS security_definer,
	   obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chash'
WHERE p.proname NOT LIKE '%\_as\_caller'
ORDER BY p.proname, p.oid::regprocedure::text;
-- ... but those through which the views read on 14, which has no
-- security_invoker views: one for each view there, none from 15 on
SELECT count(*) FILTER (WHERE p.proname = v || '_as_caller' AND NOT p.prosecdef
						AND p.provolatile = 's' AND p.proparallel = 'u'
						AND obj_description(p.oid, 'pg_proc') IS NOT NULL) =
	   CASE WHEN current_setting('server_version_num')::int < 150000 THEN 3 ELSE 0 END
	   AS views_read_as_the_caller
FROM unnest(ARRAY['nodes', 'rings', 'ring_balance']) v, pg_proc p
WHERE p.pronamespace = 'chash'::regnamespace;

-- Routing functions are in the extension's schema, the catalog in chash
SELECT n.nspname AS schema, count(*) AS functions
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE (p.proname LIKE 'chash%' OR n.nspname = 'chash') AND p.proname NOT LIKE '%\_as\_caller'
GROUP BY n.nspname ORDER BY n.nspname;
SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') IS NOT NULL AS commented
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'chash' AND c.relkind IN ('r', 'v')
ORDER BY c.relname;

-- The catalog tables (and their sequences) are dumped by pg_dump, and have
-- the catalog's triggers
SELECT unnest(extconfig)::regclass AS dumped FROM pg_extension WHERE extname = 'chash'
ORDER BY 1;
-- (enabled A: always, also with session_replication_role = replica; O: origin)
SELECT tgname, tgenabled AS enabled,
	   regexp_replace(pg_get_triggerdef(oid), '^CREATE TRIGGER \S+ ', '') AS definition
FROM pg_trigger WHERE tgrelid IN ('chash.ring_config'::regclass, 'chash.node_config'::regclass)
	AND NOT tgisinternal
ORDER BY tgrelid, tgname;
-- PUBLIC may execute every function but the trigger's
SELECT p.oid::regprocedure AS not_executable_by_public
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chash'
WHERE NOT has_function_privilege('public', p.oid, 'EXECUTE');

-- The signatures and defaults of the contract
\x on
SELECT p.proname, pg_get_function_arguments(p.oid) AS arguments,
	   pg_get_function_result(p.oid) AS result
FROM pg_proc p
WHERE p.proname IN ('chash_ring_create', 'chash_ring_drop', 'chash_node_add',
					'chash_node_remove', 'chash_node_set', 'chash_points')
ORDER BY p.proname;
\x off

-- A function that catches its errors to raise them without CONTEXT runs
-- an exception block, a subtransaction, which parallel mode forbids: none
-- may be marked parallel safe or restricted
SELECT p.oid::regprocedure AS catches_errors_in_parallel
FROM pg_proc p
WHERE p.prosrc LIKE '%chash.raise_without_context(e_state%' AND p.proparallel <> 'u'
ORDER BY 1;
