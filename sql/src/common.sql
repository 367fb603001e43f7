-- A dollar quote that ends where it should: a tag that the body does not
-- hold, nor ends with all but its last "$" of (a body ending in "$chash"
-- closed by "$chash$" would hold "$chash$" first).  SQL ends the quote at
-- the first tag after the opening one: that must be the closing one.
CREATE OR REPLACE FUNCTION chash.dollar_quote(body text)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	tag text := '$chash$';
	i integer := 0;
BEGIN
	WHILE strpos(body || tag, tag) <= length(body) LOOP
		i := i + 1;
		tag := '$chash' || i || '$';
	END LOOP;
	RETURN tag || body || tag;
END
$$;
COMMENT ON FUNCTION chash.dollar_quote(text) IS
	'body in dollar quotes whose tag it does not contain';

-- A name for a message: long ones cut, so that they do not flood the log
CREATE OR REPLACE FUNCTION chash.message_name(name text)
	RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT CASE WHEN octet_length(name) > 64 THEN left(name, 64) || '...' ELSE name END $$;
COMMENT ON FUNCTION chash.message_name(text) IS
	'a name as error messages show it: its first 64 characters and "..." if longer';

-- The errors of the public PL/pgSQL functions, raised again as a function
-- in C raises them: same SQLSTATE, message, detail and hint, without the
-- CONTEXT of internal helpers and statements (empty detail or hint: none).
-- The exception block that catches them is a subtransaction, which
-- parallel mode forbids: those functions are PARALLEL UNSAFE, so that a
-- query calling them is never run in parallel.
CREATE OR REPLACE FUNCTION chash.raise_without_context(sqlstate text, message text,
														detail text, hint text)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_raise_without_context'
	LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION chash.raise_without_context(text, text, text, text) IS
	'raise an error of this SQLSTATE, message, detail and hint without CONTEXT: how chash''s PL/pgSQL functions report what they caught';
