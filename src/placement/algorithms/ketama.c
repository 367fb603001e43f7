/*-------------------------------------------------------------------------
 *
 * ketama.c
 *	  The "ketama" algorithm, in the variants of the clients that use it.
 *
 * Ketama hashes the names '<node>-<i>' with MD5 and takes four points from
 * each digest, its 4-byte words read little-endian.  How many digests a
 * node gets depends on its share of the total weight and on the number of
 * nodes, computed by each client in its own arithmetic; the rounding of
 * single-precision floats gives some cluster sizes 39 digests a node
 * instead of 40.  Clients also differ in how ties between nodes on one
 * position are broken and whether a key on a point belongs to it.  Each
 * variant is one line of ketama_variants[] below, with its count function.
 *
 * Weighting depends on the whole list of nodes: adding one changes every
 * node's share, and with it, slightly, every node's number of points.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/placement.h"

#define KETAMA_POINTS_PER_DIGEST	4
/* libmemcached and nutcracker keep weights in uint32 */
#define KETAMA_MAX_WEIGHT			4294967295.0

typedef struct KetamaVariant
{
	const char *name;

	/*
	 * Digests for a node of weight w among n active nodes of total weight
	 * total, d being the digests a node of average weight gets (the ring's
	 * vnodes / 4, or the node's own for clients with that setting)
	 */
	double		(*digests) (double w, double total, int n, int d);
	ChashTies	ties;
	bool		strictly_after;
	/* a node's own vnodes are its exact points, not its d */
	bool		own_vnodes_exact;
	/* the client hashes at most this many bytes of a name; 0: all */
	int			max_name_len;
	/* a node name ending in this is hashed without it; NULL: none */
	const char *default_port;
	/* the client takes no weights: every node has weight 1 */
	bool		unweighted;
} KetamaVariant;

/*
 * libmemcached (hosts.cc, KETAMA_WEIGHTED): in single precision,
 * floor((float) (pct * 160 / 4 * (float) live_servers + 1e-10F)).
 */
static double
digests_libmemcached(double w, double total, int n, int d)
{
	float		pct = (float) w / (float) total;

	return floor((float) (pct * (float) (d * KETAMA_POINTS_PER_DIGEST) /
						  KETAMA_POINTS_PER_DIGEST * (float) n + 0.0000000001F));
}

/*
 * twemproxy (nc_ketama.c): libmemcached's formula, but the 1e-10 is a
 * double, and the sum is rounded back to float before floorf.
 */
static double
digests_twemproxy(double w, double total, int n, int d)
{
	float		pct = (float) w / (float) total;

	return floorf((float) (pct * (float) (d * KETAMA_POINTS_PER_DIGEST) /
						   KETAMA_POINTS_PER_DIGEST * (float) n + 0.0000000001));
}

/*
 * The original libketama: floorf(pct * 40.0 * (float) numservers), where
 * 40.0 makes the product a double, rounded to float for floorf.
 */
static double
digests_libketama(double w, double total, int n, int d)
{
	float		pct = (float) w / (float) total;

	return floorf((float) (pct * (double) d * (float) n));
}

/*
 * uhashring (python): (vnodes * len(nodes) * weight) // total in exact
 * integer arithmetic.  Its weights are integers; others get the same
 * formula in double precision.
 */
static double
digests_uhashring(double w, double total, int n, int d)
{
	double		product = (double) d * n * w;

	if (w == floor(w) && total == floor(total) &&
		product < (double) PG_INT64_MAX / 2 && total < (double) PG_INT64_MAX)
		return (double) ((int64) d * n * (int64) w / (int64) total);
	return floor(product / total);
}

/*
 * spymemcached without weights (KetamaNodeLocator given none): 40 digests
 * a server, whatever their number
 */
static double
digests_fixed(double w, double total, int n, int d)
{
	return d;
}

/* npm hashring: Math.floor(weight / total * vnodes * servers), in doubles */
static double
digests_node(double w, double total, int n, int d)
{
	return floor(w / total * d * n);
}

/*
 * Ties: libmemcached sorts equal points by server index; libketama qsorts
 * with a comparator that calls them equal, and glibc's qsort (a merge sort
 * where memory allows) keeps them in server order; npm hashring's
 * Array.sort is stable.  twemproxy does the same as libketama, but it has
 * sorted its servers by name length and name when it read its
 * configuration.  uhashring stores points in a dict, where a later node
 * overwrites an earlier one on the same point.
 *
 * libmemcached names a server on its default port 11211 by its host alone,
 * so node 'host:11211' is hashed as 'host'.
 *
 * spymemcached (2.12.3) keeps points in a TreeMap, where a later server
 * overwrites an earlier one; given weights, it counts digests in float as
 * libmemcached does (its 1e-10 is a double, added after the float product,
 * which is the same: 39.999996 stays below 40).  Its SPYMEMCACHED key
 * format names servers "ip:port", port 11211 included; its LIBMEMCACHED
 * format names them as libmemcached does.
 */
static const KetamaVariant ketama_variants[] = {
	{"libmemcached", digests_libmemcached, CHASH_TIES_FIRST, false, false, 0, ":11211"},
	{"libketama", digests_libketama, CHASH_TIES_FIRST, false, false, 0, NULL},
	/* nutcracker 0.5.0 hashes names of up to KETAMA_MAX_HOSTLEN - 1 bytes */
	{"twemproxy", digests_twemproxy, CHASH_TIES_SHORTEST_NAME, false, false, 272, NULL},
	/* uhashring finds keys with bisect_right: the first point after them */
	{"uhashring", digests_uhashring, CHASH_TIES_LAST, true, false, 0, NULL},
	{"node", digests_node, CHASH_TIES_FIRST, false, true, 0, NULL},
	{"spymemcached", digests_fixed, CHASH_TIES_LAST, false, false, 0, NULL, true},
	{"spymemcached_weighted", digests_libmemcached, CHASH_TIES_LAST, false, false, 0, NULL},
	{"spymemcached_libmemcached", digests_fixed, CHASH_TIES_LAST, false, false, 0, ":11211", true},
	{"spymemcached_libmemcached_weighted", digests_libmemcached, CHASH_TIES_LAST, false, false, 0, ":11211"},
};

/* The length of the part of a node's name that the variant hashes */
static int
hashed_name_len(const KetamaVariant *variant, const char *name, int len)
{
	if (variant->default_port != NULL)
	{
		int			plen = strlen(variant->default_port);

		if (len > plen && memcmp(name + len - plen, variant->default_port, plen) == 0)
			return len - plen;
	}
	return len;
}

static const char *
variant_name_at(int i)
{
	return ketama_variants[i].name;
}

static void
ketama_prepare(ChashRingSpec *spec)
{
	const KetamaVariant *variant = NULL;
	const char *name = spec->variant ? spec->variant : ketama_variants[0].name;

	for (int i = 0; i < lengthof(ketama_variants); i++)
	{
		if (strcmp(ketama_variants[i].name, name) == 0)
			variant = &ketama_variants[i];
	}
	if (variant == NULL)
		chash_error_unknown("ketama variant", "ketama variants", name,
							lengthof(ketama_variants), variant_name_at);

	if (strcmp(spec->hash->name, "md5") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ketama rings place their points with \"md5\", not \"%s\"",
						spec->hash->name),
				 errdetail("Ring \"%s\" is a ketama ring.", spec->name),
				 errhint("Set hash to 'md5' (chash_ring_create() does when hash is left unset); key_hash chooses the hash of the keys.")));
	if (spec->vnodes % KETAMA_POINTS_PER_DIGEST != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vnodes of a ketama ring must be a multiple of %d",
						KETAMA_POINTS_PER_DIGEST),
				 errdetail("Each MD5 digest gives %d points; ring \"%s\" has vnodes %d.",
						   KETAMA_POINTS_PER_DIGEST, spec->name, spec->vnodes)));
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (spec->nodes[k].weight > KETAMA_MAX_WEIGHT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("weights of the nodes of a ketama ring must be at most %.0f",
							KETAMA_MAX_WEIGHT),
					 errdetail("Node \"%s\" of ring \"%s\" has weight %.15g.",
							   chash_message_name(spec->nodes[k].name, spec->nodes[k].name_len),
							   spec->name,
							   spec->nodes[k].weight),
					 errhint("The clients keep weights as 32-bit unsigned integers.")));
		if (variant->unweighted && spec->nodes[k].weight != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("nodes of ketama variant \"%s\" have weight 1", variant->name),
					 errdetail("Node \"%s\" of ring \"%s\" has weight %.15g; the client without weights gives every server the same points.",
							   chash_message_name(spec->nodes[k].name, spec->nodes[k].name_len),
							   spec->name, spec->nodes[k].weight),
					 strcmp(variant->name, "spymemcached") == 0 ?
					 errhint("Give every node weight 1, as spymemcached's locator without weights and Dubbo's ConsistentHashLoadBalance (which ignores a provider's weight parameter) do; a spymemcached locator given weights is ketama variant \"%s_weighted\".",
							 variant->name) :
					 errhint("Use ketama variant \"%s_weighted\" for a client given weights.",
							 variant->name)));
		if (spec->nodes[k].vnodes % KETAMA_POINTS_PER_DIGEST != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("vnodes of a node of a ketama ring must be a multiple of %d",
							KETAMA_POINTS_PER_DIGEST),
					 errdetail("Node \"%s\" of ring \"%s\" has vnodes %d.",
							   chash_message_name(spec->nodes[k].name, spec->nodes[k].name_len),
							   spec->name,
							   spec->nodes[k].vnodes)));
	}
	if (spec->ties_name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ties cannot be set for ketama rings"),
				 errdetail("Ring \"%s\" breaks ties as its client, variant \"%s\", does.",
						   spec->name, variant->name)));

	spec->ties = variant->ties;
	spec->strictly_after = variant->strictly_after;
	spec->variant_data = variant;
}

static int64
ketama_node_points(const ChashRingSpec *spec, int node)
{
	const KetamaVariant *variant = spec->variant_data;
	const ChashNodeSpec *n = &spec->nodes[node];
	int			ring_digests = spec->vnodes / KETAMA_POINTS_PER_DIGEST;
	double		digests;

	if (!n->active)
		return 0;

	/* npm hashring takes a node's own vnodes as given unless they equal the ring's */
	if (variant->own_vnodes_exact && n->vnodes > 0 && n->vnodes != spec->vnodes)
		digests = n->vnodes / KETAMA_POINTS_PER_DIGEST;
	else
		digests = variant->digests(n->weight, spec->active_weight, spec->nactive,
								   n->vnodes > 0 ? n->vnodes / KETAMA_POINTS_PER_DIGEST :
								   ring_digests);

	if (digests * KETAMA_POINTS_PER_DIGEST > CHASH_MAX_VNODES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("node \"%s\" would have too many points",
						chash_message_name(n->name, n->name_len)),
				 errdetail("Its share of the weight gives it %.0f points; the most a node can have is %d.",
						   digests * KETAMA_POINTS_PER_DIGEST, CHASH_MAX_VNODES),
				 errhint("Lower the node's weight or the ring's vnodes.")));
	/* a weight too small for single precision gives NaN: no points */
	return digests > 0 ? (int64) digests * KETAMA_POINTS_PER_DIGEST : 0;
}

static void
ketama_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	const KetamaVariant *variant = spec->variant_data;
	const ChashNodeSpec *n = &spec->nodes[node];
	int64		count = ketama_node_points(spec, node);
	ChashNameTemplate t;
	int64		work = 0;

	chash_template_init(&t, spec->vnode_name_utf8, spec->vnode_name_utf8_len,
						n->name_utf8,
						hashed_name_len(variant, n->name_utf8, n->name_utf8_len));
	for (int64 d = 0; d < count / KETAMA_POINTS_PER_DIGEST; d++)
	{
		uint8		digest[16];
		int			len;

		chash_template_name(&t, (int64) spec->vnode_first + d);
		work += t.name.len + CHASH_WORK_PER_NAME;
		if (work >= CHASH_WORK_PER_INTERRUPT_CHECK)
		{
			CHECK_FOR_INTERRUPTS();
			work -= CHASH_WORK_PER_INTERRUPT_CHECK;
		}
		len = t.name.len;
		if (variant->max_name_len > 0 && len > variant->max_name_len)
			len = variant->max_name_len;
		chash_md5(t.name.data, len, digest);

		for (int x = 0; x < KETAMA_POINTS_PER_DIGEST; x++)
		{
			ChashPoint *p = &out[d * KETAMA_POINTS_PER_DIGEST + x];

			p->position = chash_le32(digest + 4 * x);
			p->node = node;
			p->vnode = (uint32) (d * KETAMA_POINTS_PER_DIGEST + x);
		}
	}
	chash_template_free(&t);
}

/* A point is word x of the digest of a name: 'name[x]' */
static void
ketama_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
				   StringInfo buf)
{
	const KetamaVariant *variant = spec->variant_data;
	const ChashNodeSpec *n = &spec->nodes[node];

	chash_template_expand(buf, spec->vnode_name, n->name,
						  hashed_name_len(variant, n->name, n->name_len),
						  (int64) spec->vnode_first + vnode / KETAMA_POINTS_PER_DIGEST);
	appendStringInfo(buf, "[%u]", vnode % KETAMA_POINTS_PER_DIGEST);
}

const ChashAlgorithm chash_algorithm_ketama = {
	.name = "ketama",
	.default_hash = "md5",
	.default_vnode_name = "{node}-{i}",
	.default_variant = "libmemcached",
	.prepare = ketama_prepare,
	.node_points = ketama_node_points,
	.node_build = ketama_node_build,
	.point_label = ketama_point_label,
	.kind = CHASH_PLACEMENT_POINTS,
	.names_hashed = true,
	.weighted = true,
	.description = "ketama: MD5 digests of '{node}-{i}', four points each, counted as a client does",
};
