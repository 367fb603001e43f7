/*-------------------------------------------------------------------------
 *
 * algo_ring.c
 *	  The "ring" algorithm: virtual nodes named by a template.
 *
 * A node of weight w gets its own vnodes, else round(ring vnodes * w) and
 * at least 1, points.  Point i sits at hash(name), the name being the
 * template with {node} and {i} replaced, i counting from vnode_first.  A
 * point depends on its node's name and its number only, so changing one
 * node's weight or vnodes adds or removes that node's points and no others.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "chash.h"

#define TOKEN_NODE	"{node}"
#define TOKEN_I		"{i}"

typedef enum TemplateToken
{
	TOKEN_LITERAL,
	TOKEN_IS_NODE,
	TOKEN_IS_I
} TemplateToken;

/*
 * The token at *p of a template ending at end; for a literal, its length
 * (up to the next '{' that starts a placeholder) in *len.
 */
static TemplateToken
template_next(const char *p, const char *end, int *len)
{
	const char *q;

	if (end - p >= (int) strlen(TOKEN_NODE) &&
		memcmp(p, TOKEN_NODE, strlen(TOKEN_NODE)) == 0)
	{
		*len = strlen(TOKEN_NODE);
		return TOKEN_IS_NODE;
	}
	if (end - p >= (int) strlen(TOKEN_I) &&
		memcmp(p, TOKEN_I, strlen(TOKEN_I)) == 0)
	{
		*len = strlen(TOKEN_I);
		return TOKEN_IS_I;
	}
	for (q = p + 1; q < end && *q != '{'; q++)
		;
	*len = q - p;
	return TOKEN_LITERAL;
}

/* A vnode template must name both the node and the vnode number */
void
chash_template_check(const char *tmpl)
{
	if (strstr(tmpl, TOKEN_I) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vnode_name must contain \"%s\"", TOKEN_I),
				 errdetail("Each virtual node needs a name of its own."),
				 errhint("For example '{node}#{i}' or '{node}-{i}'.")));
	if (strstr(tmpl, TOKEN_NODE) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vnode_name must contain \"%s\"", TOKEN_NODE),
				 errdetail("Without the node's name all nodes would have the same points."),
				 errhint("For example '{node}#{i}' or '{node}-{i}'.")));
}

/* Append the name of vnode i of the node to buf */
static void
template_expand(StringInfo buf, const char *tmpl, int tmpl_len,
				const char *node, int node_len, int64 i)
{
	const char *p = tmpl;
	const char *end = tmpl + tmpl_len;

	while (p < end)
	{
		int			len;
		char		digits[MAXINT8LEN + 1];

		switch (template_next(p, end, &len))
		{
			case TOKEN_IS_NODE:
				appendBinaryStringInfo(buf, node, node_len);
				break;
			case TOKEN_IS_I:
				appendBinaryStringInfo(buf, digits, chash_format_int64(i, digits));
				break;
			case TOKEN_LITERAL:
				appendBinaryStringInfo(buf, p, len);
				break;
		}
		p += len;
	}
}

static int64
ring_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	double		points;

	if (!n->active)
		return 0;
	if (n->vnodes > 0)
		return n->vnodes;

	points = round((double) spec->vnodes * n->weight);
	if (points > CHASH_MAX_VNODES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("node \"%s\" would have too many points", n->name),
				 errdetail("Weight %g times the ring's %d vnodes is %.0f; the most a node can have is %d.",
						   n->weight, spec->vnodes, points, CHASH_MAX_VNODES),
				 errhint("Lower the node's weight or give it vnodes of its own.")));
	return points < 1 ? 1 : (int64) points;
}

/*
 * Hash the names of all the node's vnodes.  The template is cut once at
 * its {i} placeholders, with {node} filled in, so that each name is a few
 * memcpy's and the digits of i.
 */
static void
ring_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	int64		count = ring_node_points(spec, node);
	const char *tmpl = spec->vnode_name_utf8;
	const char *end = tmpl + spec->vnode_name_utf8_len;
	const char *p;
	StringInfoData pieces;		/* the template's parts between {i}s */
	int		   *cuts;			/* end of each part in pieces */
	int			ncuts = 0;
	StringInfoData name;
	ChashHashFn hash = spec->hash->fn;

	/* no more parts than placeholders could start, plus the last */
	cuts = palloc(sizeof(int) * (spec->vnode_name_utf8_len / strlen(TOKEN_I) + 1));
	initStringInfo(&pieces);
	for (p = tmpl; p < end;)
	{
		int			len;

		switch (template_next(p, end, &len))
		{
			case TOKEN_IS_NODE:
				appendBinaryStringInfo(&pieces, n->name_utf8, n->name_utf8_len);
				break;
			case TOKEN_IS_I:
				cuts[ncuts++] = pieces.len;
				break;
			case TOKEN_LITERAL:
				appendBinaryStringInfo(&pieces, p, len);
				break;
		}
		p += len;
	}
	cuts[ncuts] = pieces.len;

	initStringInfo(&name);
	for (int64 v = 0; v < count; v++)
	{
		char		digits[MAXINT8LEN + 1];
		int			ndigits = chash_format_int64((int64) spec->vnode_first + v, digits);
		int			start = 0;

		/* a large ring takes a while: let it be cancelled */
		if ((v & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		resetStringInfo(&name);
		for (int c = 0; c <= ncuts; c++)
		{
			appendBinaryStringInfo(&name, pieces.data + start, cuts[c] - start);
			if (c < ncuts)
				appendBinaryStringInfo(&name, digits, ndigits);
			start = cuts[c];
		}
		out[v].position = hash((const unsigned char *) name.data, name.len);
		out[v].node = node;
		out[v].vnode = (uint32) v;
	}
	pfree(cuts);
	pfree(pieces.data);
	pfree(name.data);
}

static void
ring_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
				 StringInfo buf)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	template_expand(buf, spec->vnode_name, strlen(spec->vnode_name),
					n->name, n->name_len, (int64) spec->vnode_first + vnode);
}

const ChashAlgorithm chash_algorithm_ring = {
	.name = "ring",
	.node_points = ring_node_points,
	.node_build = ring_node_build,
	.point_label = ring_point_label,
	.description = "virtual nodes named by a template, each hashed onto the ring",
};
