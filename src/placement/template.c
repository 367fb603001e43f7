/*-------------------------------------------------------------------------
 *
 * template.c
 *	  Names of virtual nodes, made from a template with {node} and {i}.
 *
 * The ring and ketama algorithms both hash names such as 'cache1#17' or
 * 'cache1-17'; the template says how a node's name and the vnode's number
 * make one.  A template is cut once per node at its {i} placeholders, with
 * {node} filled in, so that each name is a few copies and i's digits.
 * chash_template_build hashes a node's names into its points, for every
 * algorithm that names its points so.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "placement/placement.h"

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

/* Cut a template for one node; names are then made by chash_template_name */
void
chash_template_init(ChashNameTemplate *t, const char *tmpl, int tmpl_len,
					const char *node, int node_len)
{
	const char *end = tmpl + tmpl_len;
	const char *p;

	/* no more parts than placeholders could start, plus the last */
	t->cuts = palloc(sizeof(int) * (tmpl_len / strlen(TOKEN_I) + 1));
	t->ncuts = 0;
	initStringInfo(&t->pieces);
	for (p = tmpl; p < end;)
	{
		int			len;

		switch (template_next(p, end, &len))
		{
			case TOKEN_IS_NODE:
				appendBinaryStringInfo(&t->pieces, node, node_len);
				break;
			case TOKEN_IS_I:
				t->cuts[t->ncuts++] = t->pieces.len;
				break;
			case TOKEN_LITERAL:
				appendBinaryStringInfo(&t->pieces, p, len);
				break;
		}
		p += len;
	}
	t->cuts[t->ncuts] = t->pieces.len;
	initStringInfo(&t->name);
}

/* The name of vnode i into t->name */
void
chash_template_name(ChashNameTemplate *t, int64 i)
{
	char		digits[MAXINT8LEN + 1];
	int			ndigits = pg_lltoa(i, digits);
	int			start = 0;

	resetStringInfo(&t->name);
	for (int c = 0; c <= t->ncuts; c++)
	{
		appendBinaryStringInfo(&t->name, t->pieces.data + start,
							   t->cuts[c] - start);
		if (c < t->ncuts)
			appendBinaryStringInfo(&t->name, digits, ndigits);
		start = t->cuts[c];
	}
}

void
chash_template_free(ChashNameTemplate *t)
{
	pfree(t->cuts);
	pfree(t->pieces.data);
	pfree(t->name.data);
}

/* Append the name of vnode i of the node to buf */
void
chash_template_expand(StringInfo buf, const char *tmpl,
					  const char *node, int node_len, int64 i)
{
	ChashNameTemplate t;

	chash_template_init(&t, tmpl, strlen(tmpl), node, node_len);
	chash_template_name(&t, i);
	appendBinaryStringInfo(buf, t.name.data, t.name.len);
	chash_template_free(&t);
}

/*
 * Points 0 to count - 1 of a node at the ring's hash of their names, the
 * template's with i from vnode_first (the points of ring rings, and of
 * every algorithm that names them so)
 */
void
chash_template_build(const ChashRingSpec *spec, int node, int64 count,
					 ChashPoint *out)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	ChashHashFn hash = spec->hash->fn;
	ChashNameTemplate t;
	int64		work = 0;

	chash_template_init(&t, spec->vnode_name_utf8, spec->vnode_name_utf8_len,
						n->name_utf8, n->name_utf8_len);
	for (int64 v = 0; v < count; v++)
	{
		chash_template_name(&t, (int64) spec->vnode_first + v);
		/* a large ring takes a while, long names longer: let it be cancelled */
		work += t.name.len + CHASH_WORK_PER_NAME;
		if (work >= CHASH_WORK_PER_INTERRUPT_CHECK)
		{
			CHECK_FOR_INTERRUPTS();
			work -= CHASH_WORK_PER_INTERRUPT_CHECK;
		}
		out[v].position = hash((const unsigned char *) t.name.data, t.name.len);
		out[v].node = node;
		out[v].vnode = (uint32) v;
	}
	chash_template_free(&t);
}
