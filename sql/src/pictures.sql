-- Pictures: standalone SVG 1.1
CREATE OR REPLACE FUNCTION chash.svg_text(s text)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	result text := '';
	c text;
	b bytea;
	cp integer;
	-- SQL_ASCII text is bytes of no known encoding
	raw boolean := current_setting('server_encoding') = 'SQL_ASCII';
BEGIN
	FOR c IN SELECT regexp_split_to_table(s, '') LOOP
		IF ascii(c) < 128 THEN
			cp := ascii(c);
		ELSIF raw THEN
			cp := -1;
		ELSE
			-- the character's code point, from its UTF-8
			b := convert_to(c, 'UTF8');
			cp := CASE length(b)
				WHEN 2 THEN ((get_byte(b, 0) & 31) << 6) | (get_byte(b, 1) & 63)
				WHEN 3 THEN ((get_byte(b, 0) & 15) << 12) | ((get_byte(b, 1) & 63) << 6) | (get_byte(b, 2) & 63)
				ELSE ((get_byte(b, 0) & 7) << 18) | ((get_byte(b, 1) & 63) << 12) |
					 ((get_byte(b, 2) & 63) << 6) | (get_byte(b, 3) & 63) END;
		END IF;
		result := result || CASE
			WHEN cp = 38 THEN '&amp;'
			WHEN cp = 60 THEN '&lt;'
			WHEN cp = 62 THEN '&gt;'
			WHEN cp = 34 THEN '&quot;'
			WHEN cp = 39 THEN '&#39;'
			WHEN cp BETWEEN 32 AND 126 OR cp IN (9, 10, 13) THEN c
			-- what XML 1.0 does not allow, and bytes of no known encoding
			WHEN cp < 32 OR cp IN (65534, 65535) OR cp < 0 THEN '?'
			ELSE '&#x' || upper(to_hex(cp)) || ';' END;
	END LOOP;
	RETURN result;
END
$$;
COMMENT ON FUNCTION chash.svg_text(text) IS
	'text for XML in ASCII: markup escaped, other characters as references, those XML does not allow as question marks';

-- The colour of the k-th node, as #rrggbb: HSV with saturation 0.65 and
-- value 0.85, hues a golden angle apart so that neighbours differ
CREATE OR REPLACE FUNCTION chash.svg_color(k integer)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT '#' || string_agg(lpad(to_hex(round(255 * (0.85 - 0.85 * 0.65 *
										  greatest(0, least(c.kc, 4 - c.kc, 1))))::integer), 2, '0'),
						 '' ORDER BY c.ord)
FROM (SELECT v.ord, mod((v.n + h.hue * 6)::numeric, 6)::double precision AS kc
	  FROM (VALUES (1, 5), (2, 3), (3, 1)) v(ord, n),
		   (SELECT mod((k * 0.618033988749895)::numeric, 1) AS hue) h) c
$$;
COMMENT ON FUNCTION chash.svg_color(integer) IS
	'the colour of a ring''s k-th node in its pictures';

-- A picture: the XML declaration, the SVG 1.1 doctype and root element
CREATE OR REPLACE FUNCTION chash.svg_document(width integer, height integer, title text, body text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT concat_ws(E'\n',
	'<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
	'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">',
	format('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">',
		   width, height, width, height),
	format('<title>%s</title>', chash.svg_text(title)),
	'<rect x="0" y="0" width="100%" height="100%" fill="#ffffff"/>',
	body,
	'</svg>')
$$;
COMMENT ON FUNCTION chash.svg_document(integer, integer, text, text) IS
	'a standalone SVG 1.1 document around body';

CREATE OR REPLACE FUNCTION chash_ring_svg(ring text, width integer DEFAULT 640)
	RETURNS text
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
	size double precision;		-- the square the circle is drawn in
	radius double precision;
	cx double precision;
	cy double precision;
	nnodes integer;
	height integer;
	body text;
BEGIN
	IF ring IS NULL OR width IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = CASE WHEN ring IS NULL THEN 'ring must not be null' ELSE 'width must not be null' END;
	END IF;
	IF width < 200 OR width > 10000 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'width must be between 200 and 10000',
			DETAIL = format('width is %s.', width);
	END IF;
	size := round(width * 0.55);
	radius := size * 0.38;
	cx := size / 2;
	cy := size / 2 + 24;
	SELECT count(*) INTO nnodes FROM chash.ownership(ring, 1, false);
	height := greatest(size + 36, 56 + 20 * nnodes)::integer;

	WITH nodes AS (
		SELECT o.node, o.state, o.owned, o.expected, o.ordinality::integer - 1 AS k
		FROM chash.ownership(ring, 1, false) WITH ORDINALITY o),
	-- the circle in 1440 slices (a quarter of a degree), each drawn in the
	-- colour of the node that owns most of it: the picture's size does not
	-- grow with the ring's points
	paths AS (
		SELECT n.k, chash.svg_slice_path(array_agg(sl.slice), cx, cy, radius) AS d
		FROM chash.svg_ring_slices(ring) sl JOIN nodes n USING (node)
		GROUP BY n.k)
	SELECT concat_ws(E'\n',
		format('<text x="%s" y="18" font-size="14" font-weight="bold">ring %s</text>',
			   12, chash.svg_text(ring)),
		format('<circle cx="%s" cy="%s" r="%s" fill="none" stroke="#dddddd" stroke-width="%s"/>',
			   cx, cy, radius, round((size * 0.09)::numeric, 2)),
		(SELECT string_agg(format('<path d="%s" fill="none" stroke="%s" stroke-width="%s"/>',
								  p.d, chash.svg_color(p.k), round((size * 0.09)::numeric, 2)),
						   E'\n' ORDER BY p.k)
		 FROM paths p),
		format('<text x="%s" y="%s" text-anchor="middle" fill="#555555">0</text>',
			   cx, round((cy - radius - size * 0.06)::numeric, 2)),
		format('<text x="%s" y="40" font-weight="bold">node</text>', size + 12),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">owned</text>', width - 84),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">expected</text>', width - 12),
		(SELECT string_agg(concat_ws(E'\n',
					format('<rect x="%s" y="%s" width="12" height="12" fill="%s"/>',
						   size + 12, 48 + 20 * n.k, chash.svg_color(n.k)),
					format('<text x="%s" y="%s">%s%s</text>', size + 30, 58 + 20 * n.k,
						   chash.svg_text(n.node), CASE WHEN n.state = 'down' THEN ' (down)' ELSE '' END),
					format('<text x="%s" y="%s" text-anchor="end">%s%%</text>', width - 84, 58 + 20 * n.k,
						   round((100 * n.owned)::numeric, 2)),
					format('<text x="%s" y="%s" text-anchor="end">%s%%</text>', width - 12, 58 + 20 * n.k,
						   round((100 * n.expected)::numeric, 2))),
						   E'\n' ORDER BY n.k)
		 FROM nodes n))
	INTO body;
	RETURN chash.svg_document(width, height, format('chash ring %s', ring), body);
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_ring_svg(text, integer) IS
	'an SVG 1.1 picture of a ring: each node''s arcs in its own colour, with a legend of owned and expected shares';

CREATE OR REPLACE FUNCTION chash_ownership_svg(ring text, width integer DEFAULT 640)
	RETURNS text
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
	label_width integer;
	bar_width double precision;
	top double precision;
	nnodes integer;
	body text;
BEGIN
	IF ring IS NULL OR width IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = CASE WHEN ring IS NULL THEN 'ring must not be null' ELSE 'width must not be null' END;
	END IF;
	IF width < 200 OR width > 10000 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'width must be between 200 and 10000',
			DETAIL = format('width is %s.', width);
	END IF;
	label_width := round(width * 0.3);
	bar_width := width - label_width - 70;
	SELECT count(*), greatest(max(o.owned), max(o.expected), 1e-9)
	INTO nnodes, top
	FROM chash.ownership(ring, 1, false) o;

	SELECT concat_ws(E'\n',
		format('<text x="12" y="18" font-size="14" font-weight="bold">ring %s: owned (bar) and expected (line) share of the hash space</text>',
			   chash.svg_text(ring)),
		(SELECT string_agg(concat_ws(E'\n',
					format('<text x="%s" y="%s" text-anchor="end">%s</text>', label_width - 6,
						   46 + 24 * (o.ordinality - 1), chash.svg_text(o.node)),
					format('<rect x="%s" y="%s" width="%s" height="14" fill="%s"/>', label_width,
						   35 + 24 * (o.ordinality - 1),
						   round((bar_width * o.owned / top)::numeric, 2), chash.svg_color((o.ordinality - 1)::integer)),
					format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000000" stroke-width="2"/>',
						   round((label_width + bar_width * o.expected / top)::numeric, 2), 31 + 24 * (o.ordinality - 1),
						   round((label_width + bar_width * o.expected / top)::numeric, 2), 53 + 24 * (o.ordinality - 1)),
					format('<text x="%s" y="%s">%s%%</text>',
						   round((label_width + bar_width * greatest(o.owned, o.expected) / top + 6)::numeric, 2),
						   46 + 24 * (o.ordinality - 1), round((100 * o.owned)::numeric, 2))),
						   E'\n' ORDER BY o.ordinality)
		 FROM chash.ownership(ring, 1, false) WITH ORDINALITY o))
	INTO body;
	RETURN chash.svg_document(width, (40 + 24 * nnodes + 12)::integer,
							  format('chash ownership of ring %s', ring), body);
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_ownership_svg(text, integer) IS
	'an SVG 1.1 bar chart of each node''s owned share of the hash space against its expected share';


-- The quarter-degree slices of a ring's circle, each with the node that
-- owns most of it (what the pictures draw)
CREATE OR REPLACE FUNCTION chash.svg_ring_slices(ring text)
	RETURNS TABLE(slice integer, node text)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT DISTINCT ON (c.b) c.b, c.node
FROM (SELECT b.b, a.node,
			 least(a.stop, (b.b + 1) / 1440.0) - greatest(a.start, b.b / 1440.0) AS len
	  FROM chash.ring_arcs(ring) a
	  CROSS JOIN LATERAL generate_series(floor(a.start * 1440)::integer,
										 least(ceil(a.stop * 1440)::integer - 1, 1439)) b(b)) c
ORDER BY c.b, c.len DESC, c.node
$$;
COMMENT ON FUNCTION chash.svg_ring_slices(text) IS
	'the 1440 slices of a ring''s circle, each with the node owning most of it';

-- SVG path data of the given slices (runs of them) on a circle
CREATE OR REPLACE FUNCTION chash.svg_slice_path(slices integer[], cx double precision,
											   cy double precision, radius double precision)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
WITH runs AS (
	SELECT min(r.s) / 1440.0 AS start, (max(r.s) + 1) / 1440.0 AS stop
	FROM (SELECT u.s, u.s - row_number() OVER (ORDER BY u.s) AS grp
		  FROM unnest(slices) AS u(s)) r
	GROUP BY r.grp),
halves AS (
	-- an arc over half the circle is drawn as two halves, so that its ends
	-- are apart
	SELECT h.start, h.stop
	FROM runs r
	CROSS JOIN LATERAL (
		SELECT r.start, CASE WHEN r.stop - r.start > 0.5 THEN (r.start + r.stop) / 2 ELSE r.stop END
		UNION ALL
		SELECT (r.start + r.stop) / 2, r.stop WHERE r.stop - r.start > 0.5) h(start, stop))
SELECT string_agg(format('M %s %s A %s %s 0 0 1 %s %s',
						 round((cx + radius * sin(2 * pi() * h.start))::numeric, 2),
						 round((cy - radius * cos(2 * pi() * h.start))::numeric, 2),
						 radius, radius,
						 round((cx + radius * sin(2 * pi() * h.stop))::numeric, 2),
						 round((cy - radius * cos(2 * pi() * h.stop))::numeric, 2)),
				  ' ' ORDER BY h.start)
FROM halves h
$$;
COMMENT ON FUNCTION chash.svg_slice_path(integer[], double precision, double precision, double precision) IS
	'SVG path data of runs of quarter-degree slices on a circle';

/*
 * A picture of a move: the from ring outside, the to ring inside, each node
 * in one colour in both, and between them, in black, where keys change
 * owner.  The legend gives each node's share before and after.
 */
CREATE OR REPLACE FUNCTION chash_move_svg(from_ring text, to_ring text, width integer DEFAULT 640)
	RETURNS text
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
	size double precision;
	radius double precision;
	band double precision;
	cx double precision;
	cy double precision;
	nnodes integer;
	height integer;
	moved double precision;
	body text;
BEGIN
	IF from_ring IS NULL OR to_ring IS NULL OR width IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'from_ring, to_ring and width must not be null';
	END IF;
	IF width < 200 OR width > 10000 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'width must be between 200 and 10000',
			DETAIL = format('width is %s.', width);
	END IF;
	size := round(width * 0.55);
	radius := size * 0.38;
	band := size * 0.06;
	cx := size / 2;
	cy := size / 2 + 24;

	SELECT count(*) INTO nnodes
	FROM (SELECT o.node FROM chash.ownership(from_ring, 1, false) o
		  UNION SELECT o.node FROM chash.ownership(to_ring, 1, false) o) u;
	height := greatest(size + 36, 76 + 20 * nnodes)::integer;

	-- the moving share where the two rings compare range by range
	IF chash.plan_kind(from_ring, to_ring) = 'ranges' THEN
		SELECT coalesce(sum(m.fraction), 0) INTO moved
		FROM @extschema@.chash_move_summary(from_ring, to_ring) m WHERE m.from_node <> m.to_node;
	END IF;

	WITH nodes AS (
			-- the from ring's nodes in its order, then those only the to
			-- ring has
			SELECT (row_number() OVER (ORDER BY min(s.ord), s.node))::integer - 1 AS k, s.node,
				   sum(s.owned) FILTER (WHERE s.side = 0) AS before,
				   sum(s.owned) FILTER (WHERE s.side = 1) AS after
			FROM (SELECT 0 AS side, o.node, o.owned, o.ordinality AS ord
				  FROM chash.ownership(from_ring, 1, false) WITH ORDINALITY o
				  UNION ALL
				  SELECT 1, o.node, o.owned, 1000000000 + o.ordinality
				  FROM chash.ownership(to_ring, 1, false) WITH ORDINALITY o) s
			GROUP BY s.node),
		 a AS (SELECT * FROM chash.svg_ring_slices(from_ring)),
		 b AS (SELECT * FROM chash.svg_ring_slices(to_ring)),
		 rings AS (
			SELECT n.k, chash.svg_slice_path(array_agg(a.slice), cx, cy, radius) AS outer_d
			FROM a JOIN nodes n USING (node) GROUP BY n.k),
		 inner_rings AS (
			SELECT n.k, chash.svg_slice_path(array_agg(b.slice), cx, cy, radius - 2 * band) AS inner_d
			FROM b JOIN nodes n USING (node) GROUP BY n.k),
		 moving AS (
			SELECT chash.svg_slice_path(array_agg(a.slice), cx, cy, radius - band) AS d
			FROM a JOIN b USING (slice) WHERE a.node <> b.node)
	SELECT concat_ws(E'\n',
		format('<text x="%s" y="18" font-size="14" font-weight="bold">move from ring %s to ring %s</text>',
			   12, chash.svg_text(from_ring), chash.svg_text(to_ring)),
		(SELECT string_agg(format('<path d="%s" fill="none" stroke="%s" stroke-width="%s"/>',
								  r.outer_d, chash.svg_color(r.k), round(band::numeric, 2)),
						   E'\n' ORDER BY r.k) FROM rings r),
		(SELECT format('<path d="%s" fill="none" stroke="#222222" stroke-width="%s"/>',
					   m.d, round((band * 0.6)::numeric, 2)) FROM moving m WHERE m.d IS NOT NULL),
		(SELECT string_agg(format('<path d="%s" fill="none" stroke="%s" stroke-width="%s"/>',
								  r.inner_d, chash.svg_color(r.k), round(band::numeric, 2)),
						   E'\n' ORDER BY r.k) FROM inner_rings r),
		format('<text x="%s" y="%s" text-anchor="middle" fill="#555555">0</text>',
			   cx, round((cy - radius - size * 0.05)::numeric, 2)),
		format('<text x="%s" y="%s" text-anchor="middle" fill="#555555">outside: %s, inside: %s</text>',
			   cx, round((cy + radius + size * 0.08)::numeric, 2),
			   chash.svg_text(from_ring), chash.svg_text(to_ring)),
		format('<text x="%s" y="40" font-weight="bold">node</text>', size + 12),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">before</text>', width - 84),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">after</text>', width - 12),
		(SELECT string_agg(concat_ws(E'\n',
					format('<rect x="%s" y="%s" width="12" height="12" fill="%s"/>',
						   size + 12, 48 + 20 * n.k, chash.svg_color(n.k)),
					format('<text x="%s" y="%s">%s</text>', size + 30, 58 + 20 * n.k, chash.svg_text(n.node)),
					format('<text x="%s" y="%s" text-anchor="end">%s</text>', width - 84, 58 + 20 * n.k,
						   coalesce(round((100 * n.before)::numeric, 2) || '%', '-')),
					format('<text x="%s" y="%s" text-anchor="end">%s</text>', width - 12, 58 + 20 * n.k,
						   coalesce(round((100 * n.after)::numeric, 2) || '%', '-'))),
						   E'\n' ORDER BY n.k)
		 FROM nodes n),
		format('<rect x="%s" y="%s" width="12" height="12" fill="#222222"/>', size + 12, 48 + 20 * nnodes),
		format('<text x="%s" y="%s">keys that move%s</text>', size + 30, 58 + 20 * nnodes,
			   CASE WHEN moved IS NULL THEN '' ELSE format(': %s%%', round((100 * moved)::numeric, 2)) END))
	INTO body;
	RETURN chash.svg_document(width, height, format('chash move from ring %s to ring %s', from_ring, to_ring), body);
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_move_svg(text, text, integer) IS
	'a picture (SVG 1.1) of a move between two rings: the from ring outside, the to ring inside, each node in one colour, and where keys change owner between them; the legend gives each node''s share before and after, and the share that moves';
