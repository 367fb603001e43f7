-- Everything the chash extension defines in the current database, one
-- line an item, sorted, in a form two databases can be compared by (no
-- OIDs): its members, each function's and view's definition, the tables'
-- columns in order, constraints, indexes, triggers with their enabled
-- state, privileges, comments, reloptions, row security, sequences and
-- the extension's own row (version, config tables and their conditions).
-- test/scripts/upgrade_equals_fresh.sh runs it with psql -qAtX.
SET search_path = pg_catalog, pg_temp;

WITH ext AS (
	SELECT oid, extname, extversion, extrelocatable, extnamespace, extconfig, extcondition
	FROM pg_extension WHERE extname = 'chash'
),
member AS (
	SELECT d.classid, d.objid
	FROM pg_depend d, ext
	WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
),
func AS (
	SELECT p.* FROM pg_proc p JOIN member m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
),
rel AS (
	SELECT c.* FROM pg_class c JOIN member m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid
),
line(item) AS (
	SELECT 'extension ' || extname || ' version ' || extversion || ' relocatable ' || extrelocatable
		   || ' schema ' || extnamespace::regnamespace
	FROM ext
	UNION ALL
	SELECT 'extension config ' || c.oid::regclass || ' condition ' || quote_literal(coalesce(e.extcondition[i], ''))
	FROM ext e, generate_subscripts(e.extconfig, 1) i
	JOIN pg_class c ON true
	WHERE c.oid = e.extconfig[i]
	UNION ALL
	SELECT 'member ' || pg_describe_object(classid, objid, 0) FROM member
	UNION ALL
	-- a function's whole definition: arguments, result, language, volatility,
	-- strictness, parallel safety, security, settings, cost, rows and body
	SELECT 'function ' || p.oid::regprocedure || E'\n' || pg_get_functiondef(p.oid)
		   || E'\nowner ' || p.proowner::regrole || ' cost ' || p.procost || ' rows ' || p.prorows
		   || ' leakproof ' || p.proleakproof
	FROM func p
	UNION ALL
	SELECT 'acl ' || pg_describe_object('pg_proc'::regclass, p.oid, 0) || ' ' || coalesce(p.proacl::text, 'default')
	FROM func p
	UNION ALL
	SELECT 'relation ' || c.oid::regclass || ' kind ' || c.relkind::text || ' owner ' || c.relowner::regrole
		   || ' persistence ' || c.relpersistence::text || ' options ' || coalesce(c.reloptions::text, '{}')
		   || ' rls ' || c.relrowsecurity || ' forcerls ' || c.relforcerowsecurity
		   || ' acl ' || coalesce(c.relacl::text, 'default')
	FROM rel c
	UNION ALL
	SELECT 'view ' || c.oid::regclass || E'\n' || pg_get_viewdef(c.oid)
	FROM rel c WHERE c.relkind IN ('v', 'm')
	UNION ALL
	-- columns in their order, dropped ones left out
	SELECT 'column ' || c.oid::regclass || ' #' ||
		   row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum) || ' ' ||
		   quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod) ||
		   CASE WHEN a.attnotnull THEN ' not null' ELSE '' END ||
		   CASE WHEN a.attidentity::text <> '' THEN ' identity ' || a.attidentity::text ELSE '' END ||
		   CASE WHEN a.attgenerated::text <> '' THEN ' generated ' || a.attgenerated::text ELSE '' END ||
		   coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '') ||
		   coalesce(' collate ' || NULLIF(a.attcollation, 0)::regcollation::text, '') ||
		   coalesce(' acl ' || a.attacl::text, '')
	FROM rel c
	JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
	UNION ALL
	SELECT 'constraint ' || c.oid::regclass || ' ' || quote_ident(k.conname) || ' ' ||
		   pg_get_constraintdef(k.oid) || ' validated ' || k.convalidated ||
		   ' deferrable ' || k.condeferrable || ' deferred ' || k.condeferred
	FROM rel c JOIN pg_constraint k ON k.conrelid = c.oid
	UNION ALL
	SELECT 'index ' || pg_get_indexdef(i.indexrelid) ||
		   coalesce(' constraint ' || k.conname, '')
	FROM rel c
	JOIN pg_index i ON i.indrelid = c.oid
	LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = c.oid
	UNION ALL
	SELECT 'trigger ' || c.oid::regclass || ' ' || pg_get_triggerdef(t.oid) || ' enabled ' || t.tgenabled::text
	FROM rel c JOIN pg_trigger t ON t.tgrelid = c.oid AND NOT t.tgisinternal
	UNION ALL
	SELECT 'policy ' || c.oid::regclass || ' ' || p.polname || ' ' || p.polcmd::text || ' ' ||
		   p.polpermissive || ' ' || p.polroles::regrole[]::text || ' ' ||
		   coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' ||
		   coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '')
	FROM rel c JOIN pg_policy p ON p.polrelid = c.oid
	UNION ALL
	SELECT 'sequence ' || s.seqrelid::regclass || ' ' || format_type(s.seqtypid, NULL) || ' start ' ||
		   s.seqstart || ' increment ' || s.seqincrement || ' min ' || s.seqmin || ' max ' ||
		   s.seqmax || ' cache ' || s.seqcache || ' cycle ' || s.seqcycle ||
		   coalesce(' owned by ' || d.refobjid::regclass || '.' || a.attname, '')
	FROM rel c
	JOIN pg_sequence s ON s.seqrelid = c.oid
	LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
		 AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
	LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
	UNION ALL
	-- comments on the members and on their columns, and on the triggers,
	-- constraints and indexes of the tables
	SELECT 'comment ' || pg_describe_object(d.classoid, d.objoid, d.objsubid) || ' ' || quote_literal(d.description)
	FROM pg_description d
	WHERE (d.classoid, d.objoid) IN (SELECT classid, objid FROM member)
	   OR (d.classoid = 'pg_trigger'::regclass AND d.objoid IN
			(SELECT t.oid FROM pg_trigger t JOIN rel c ON c.oid = t.tgrelid))
	   OR (d.classoid = 'pg_constraint'::regclass AND d.objoid IN
			(SELECT k.oid FROM pg_constraint k JOIN rel c ON c.oid = k.conrelid))
	UNION ALL
	SELECT 'schema ' || n.nspname || ' owner ' || n.nspowner::regrole || ' acl ' || coalesce(n.nspacl::text, 'default')
	FROM pg_namespace n JOIN member m ON m.classid = 'pg_namespace'::regclass AND m.objid = n.oid
)
SELECT item FROM line ORDER BY item COLLATE "C";
