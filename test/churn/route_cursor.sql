-- pgbench script 5: a PL/pgSQL cursor over 10 keys, read while other
-- statements run (see cursor_route in setup.sql)
\set k random(1, 1000000)
SELECT cursor_route((:k)::bigint);
