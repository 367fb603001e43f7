/*-------------------------------------------------------------------------
 *
 * spec.c
 *	  A ring's configuration checked before it is built: the settings of
 *	  its algorithm, nodes, tokens and size; its fingerprint and the count
 *	  of its points.
 *
 * Pure code: metadata/catalog.c fills a ChashRingSpec, and everything
 * here checks or describes it without building the placement (build.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "placement/placement.h"

static const struct
{
	const char *name;
	ChashTies	ties;
}			ties_rules[] = {
	{"name", CHASH_TIES_NAME},
	{"first", CHASH_TIES_FIRST},
	{"last", CHASH_TIES_LAST},
};

static const char *
ties_rule_at(int i)
{
	return ties_rules[i].name;
}

static const struct
{
	const char *name;
	ChashLookupRule rule;
}			lookup_rules[] = {
	{"successor", CHASH_LOOKUP_SUCCESSOR},
	{"predecessor", CHASH_LOOKUP_PREDECESSOR},
	{"nearest", CHASH_LOOKUP_NEAREST},
};

static const char *
lookup_rule_at(int i)
{
	return lookup_rules[i].name;
}

/*
 * Check a ring's settings and derive what building it needs: the active
 * nodes and their weight, the ties rule, and the algorithm's own settings.
 * An error for settings the algorithm cannot build.
 */
void
chash_ring_prepare_spec(ChashRingSpec *spec)
{
	chash_template_check(spec->vnode_name);

	spec->ties = CHASH_TIES_NAME;
	if (spec->ties_name != NULL)
	{
		int			i;

		for (i = 0; i < lengthof(ties_rules); i++)
		{
			if (strcmp(spec->ties_name, ties_rules[i].name) == 0)
				break;
		}
		if (i == lengthof(ties_rules))
			chash_error_unknown("ties rule", "ties rules", spec->ties_name,
								lengthof(ties_rules), ties_rule_at);
		spec->ties = ties_rules[i].ties;
	}
	spec->strictly_after = false;
	spec->variant_data = NULL;
	spec->keyed = false;
	spec->lookup = CHASH_LOOKUP_SUCCESSOR;
	if (spec->lookup_name != NULL)
	{
		int			i;

		for (i = 0; i < lengthof(lookup_rules); i++)
		{
			if (strcmp(spec->lookup_name, lookup_rules[i].name) == 0)
				break;
		}
		if (i == lengthof(lookup_rules))
			chash_error_unknown("lookup rule", "lookup rules", spec->lookup_name,
								lengthof(lookup_rules), lookup_rule_at);
		if (!spec->algorithm->has_lookup_rules)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("lookup applies to rings of algorithms \"ring\" and \"tokens\" only"),
					 errdetail("Ring \"%s\" uses algorithm \"%s\".",
							   spec->name, spec->algorithm->name)));
		spec->lookup = lookup_rules[i].rule;
	}

	if (spec->hash->needs_utf8 &&
		pg_encoding_verifymbstr(PG_UTF8, spec->vnode_name_utf8,
								spec->vnode_name_utf8_len) != spec->vnode_name_utf8_len)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("vnode_name of ring \"%s\" is not valid UTF-8", spec->name),
				 errdetail("Hash function \"%s\" hashes a name's characters, as the client's own strings hold them, and takes UTF-8 text only.",
						   spec->hash->name)));

	if (spec->algorithm->names_hashed && spec->hash->integer_keys)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hash function \"%s\" cannot place the nodes of ring \"%s\"",
						spec->hash->name, spec->name),
				 errdetail("Algorithm \"%s\" hashes node names, and \"%s\" takes integer keys only.",
						   spec->algorithm->name, spec->hash->name),
				 errhint("Use \"%s\" as the key hash only: chash_ring_create(ring, algorithm, key_hash => '%s').",
						 spec->hash->name, spec->hash->name)));
	if (spec->algorithm->kind == CHASH_PLACEMENT_POINTS &&
		spec->algorithm->names_hashed &&
		spec->hash->bits != spec->key_hash->bits)
	{
		/* twemproxy's own names for its hashes are chash's twemproxy_* */
		const ChashHashFunction *twemproxy =
			chash_hash_find(psprintf("twemproxy_%s", spec->key_hash->name));

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key_hash \"%s\" and hash \"%s\" have different widths",
						spec->key_hash->name, spec->hash->name),
				 errdetail("\"%s\" gives %d-bit values and \"%s\" %d-bit values; keys and points must share one space.",
						   spec->key_hash->name, spec->key_hash->bits,
						   spec->hash->name, spec->hash->bits),
				 twemproxy != NULL && twemproxy->bits == spec->hash->bits ?
				 errhint("twemproxy's hash \"%s\" is chash's \"%s\", whose values nutcracker keeps in %d bits.",
						 spec->key_hash->name, twemproxy->name, twemproxy->bits) : 0));
	}

	if (spec->hash_tag != NULL)
		chash_hash_tag_check(spec->hash_tag);

	if (spec->table_size != 0 && !spec->algorithm->has_table)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table_size applies to maglev, slots and elasticsearch rings only"),
				 errdetail("Ring \"%s\" uses algorithm \"%s\".",
						   spec->name, spec->algorithm->name)));

	spec->nactive = 0;
	spec->active_weight = 0;
	for (int k = 0; k < spec->nnodes; k++)
	{
		chash_ring_check_node(spec, &spec->nodes[k]);
		if (spec->nodes[k].active)
		{
			spec->nactive++;
			spec->active_weight += spec->nodes[k].weight;
		}
	}

	spec->algorithm->prepare(spec);

	/* keys as SQL types: a position, from the key's typed value */
	if (spec->nkey_types > 0 && !spec->key_hash->typed_keys)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key_types applies to rings that hash keys as their SQL type only"),
				 errdetail("Ring \"%s\" hashes keys with \"%s\", which hashes their bytes.",
						   spec->name, spec->key_hash->name),
				 errhint("Set key_types to NULL, or key_hash to \"postgres_partition\".")));
	if (spec->keyed && spec->key_hash->typed_keys)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("algorithm \"%s\" cannot use key hash \"%s\"",
						spec->algorithm->name, spec->key_hash->name),
				 errdetail("Ring \"%s\" scores each node with the key's bytes, and \"%s\" hashes keys as their SQL type.",
						   spec->name, spec->key_hash->name)));
	/* the last point at or before a key: see apply_lookup_rule */
	if (spec->lookup == CHASH_LOOKUP_PREDECESSOR)
		spec->strictly_after = true;
}

/* An error if the ring has a ketama_variant: algorithms without variants */
void
chash_refuse_variant(const ChashRingSpec *spec)
{
	if (spec->variant != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ketama_variant applies to ketama, jump, haproxy, maglev and rendezvous rings only"),
				 errdetail("Ring \"%s\" uses algorithm \"%s\".",
						   spec->name, spec->algorithm->name)));
}

/*
 * The settings of computed algorithms: nothing of points applies, and an
 * error says so rather than ignoring it
 */
void
chash_computed_prepare(ChashRingSpec *spec)
{
	chash_refuse_variant(spec);
	if (spec->ties_name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ties applies to rings of points only"),
				 errdetail("Ring \"%s\" uses algorithm \"%s\", which places no points.",
						   spec->name, spec->algorithm->name)));
}

/*
 * A node's tokens: only where the algorithm takes them, not with vnodes of
 * its own, and in the key hash's space (0 to 2^bits - 1 unsigned, as SQL
 * shows a position: 64-bit ones as signed bigints)
 */
void
chash_check_tokens(const ChashRingSpec *spec, const ChashNodeSpec *node)
{
	int			bits = spec->key_hash->bits;

	if (!spec->algorithm->takes_tokens)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node \"%s\" of ring \"%s\" cannot have tokens",
						chash_message_name(node->name, node->name_len),
						spec->name),
				 errdetail("Algorithm \"%s\" computes where its nodes are.",
						   spec->algorithm->name),
				 errhint("Use algorithm \"ring\" or \"tokens\" for nodes at given positions.")));
	if (node->weight != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node \"%s\" of ring \"%s\" has both tokens and weight %g",
						chash_message_name(node->name, node->name_len),
						spec->name, node->weight),
				 errdetail("A node's tokens are its points: its weight is 1.")));
	if (node->vnodes > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node \"%s\" of ring \"%s\" has both tokens and vnodes",
						chash_message_name(node->name, node->name_len),
						spec->name),
				 errdetail("A node's tokens are its points.")));
	if (node->ntokens > CHASH_MAX_VNODES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("node \"%s\" has too many tokens",
						chash_message_name(node->name, node->name_len)),
				 errdetail("It has %d; the most a node can have is %d.",
						   node->ntokens, CHASH_MAX_VNODES)));
	if (bits == 64)
		return;
	for (int i = 0; i < node->ntokens; i++)
	{
		if (node->tokens[i] < 0 || (uint64) node->tokens[i] > (UINT64CONST(1) << bits) - 1)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("token %lld of node \"%s\" is outside ring \"%s\"",
							(long long) node->tokens[i],
							chash_message_name(node->name, node->name_len),
							spec->name),
					 errdetail("Key hash \"%s\" gives positions from 0 to %llu.",
							   spec->key_hash->name,
							   (unsigned long long) ((UINT64CONST(1) << bits) - 1))));
	}
}

/*
 * Whether a node can be placed: by the ring's hash (the Java hashes take
 * UTF-8 only, and a SQL_ASCII database may hold other bytes), with the
 * settings its algorithm has
 */
void
chash_ring_check_node(const ChashRingSpec *spec, const ChashNodeSpec *node)
{
	if (!spec->algorithm->weighted && node->weight != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node \"%s\" of ring \"%s\" cannot have weight %g",
						chash_message_name(node->name, node->name_len),
						spec->name, node->weight),
				 errdetail("Algorithm \"%s\" gives every active node an equal share; its nodes have weight 1.",
						   spec->algorithm->name),
				 errhint("Use algorithm \"rendezvous\" or \"ring\" for weighted nodes.")));
	if (node->slots_given)
		chash_check_slot_ranges(spec, node);
	if (node->ntokens > 0)
		chash_check_tokens(spec, node);
	else if (spec->algorithm->needs_tokens && node->active)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node \"%s\" of ring \"%s\" has no tokens",
						chash_message_name(node->name, node->name_len),
						spec->name),
				 errdetail("Algorithm \"%s\" places each node at the tokens it is given.",
						   spec->algorithm->name),
				 errhint("Give it tokens: chash_node_add(ring, node, tokens => ARRAY[...]).")));
	if (spec->algorithm->kind != CHASH_PLACEMENT_POINTS && node->vnodes > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node \"%s\" of ring \"%s\" cannot have vnodes",
						chash_message_name(node->name, node->name_len),
						spec->name),
				 errdetail("Algorithm \"%s\" places no points.",
						   spec->algorithm->name)));
	if (spec->hash->needs_utf8 &&
		pg_encoding_verifymbstr(PG_UTF8, node->name_utf8,
								node->name_utf8_len) != node->name_utf8_len)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("node name \"%s\" is not valid UTF-8",
						chash_message_name(node->name, node->name_len)),
				 errdetail("Ring \"%s\" hashes node names with \"%s\", which hashes a name's characters, as the client's own strings hold them, and takes UTF-8 text only.",
						   spec->name, spec->hash->name),
				 errhint("Name the node in UTF-8.")));
}

/*
 * The points of one node, from the node and the ring's settings alone
 * (settings: a prepared spec, as chash_catalog_read_settings gives), for
 * algorithms that say they can; with check, the node is checked as a new
 * node of the ring is.
 */
int64
chash_ring_node_points_alone(const ChashRingSpec *settings,
							 const ChashNodeSpec *node, bool check)
{
	ChashRingSpec one = *settings;

	Assert(settings->algorithm->node_points_alone);
	if (check)
		chash_ring_check_node(settings, node);
	one.nodes = (ChashNodeSpec *) node;
	one.nnodes = 1;
	return settings->algorithm->node_points(&one, 0);
}

/* An error if a ring of that many points would be too large */
void
chash_ring_check_total(const ChashRingSpec *spec, int64 total)
{
	if (total > CHASH_MAX_RING_POINTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ring \"%s\" would have too many points", spec->name),
				 errdetail("Its nodes would have %lld points; the most a ring can have is %d.",
						   (long long) total, CHASH_MAX_RING_POINTS)));
}

static void
fingerprint_bytes(XXH3_state_t *state, const void *data, int len)
{
	int32		n = len;

	XXH3_128bits_update(state, &n, sizeof(n));
	if (len > 0)
		XXH3_128bits_update(state, data, len);
}

static void
fingerprint_string(XXH3_state_t *state, const char *s)
{
	fingerprint_bytes(state, s, s ? (int) strlen(s) : -1);
}

/*
 * 128 bits that tell configurations of a ring apart: everything the points
 * depend on, the nodes in their order in the spec.  Two specs with the
 * same fingerprint build the same ring.
 */
void
chash_ring_spec_fingerprint(const ChashRingSpec *spec, uint8 fingerprint[16])
{
	XXH3_state_t state;
	XXH128_hash_t h;
	XXH128_canonical_t canonical;

	XXH3_128bits_reset(&state);
	fingerprint_string(&state, spec->algorithm->name);
	fingerprint_string(&state, spec->hash->name);
	fingerprint_string(&state, spec->key_hash->name);
	fingerprint_bytes(&state, &spec->vnodes, sizeof(spec->vnodes));
	fingerprint_string(&state, spec->vnode_name);
	fingerprint_bytes(&state, &spec->vnode_first, sizeof(spec->vnode_first));
	fingerprint_string(&state, spec->variant);
	fingerprint_string(&state, spec->ties_name);
	fingerprint_bytes(&state, &spec->table_size, sizeof(spec->table_size));
	fingerprint_string(&state, spec->lookup_name);
	fingerprint_string(&state, spec->hash_tag);
	/* (nothing for rings without key types, as before they existed) */
	if (spec->nkey_types > 0)
	{
		fingerprint_bytes(&state, &spec->nkey_types, sizeof(spec->nkey_types));
		fingerprint_bytes(&state, spec->key_types,
						  (int) sizeof(Oid) * spec->nkey_types);
		fingerprint_bytes(&state, spec->key_collations,
						  (int) sizeof(Oid) * spec->nkey_types);
	}
	fingerprint_bytes(&state, &spec->nnodes, sizeof(spec->nnodes));
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *n = &spec->nodes[k];

		fingerprint_bytes(&state, n->name, n->name_len);
		fingerprint_bytes(&state, &n->weight, sizeof(n->weight));
		fingerprint_bytes(&state, &n->vnodes, sizeof(n->vnodes));
		fingerprint_bytes(&state, &n->active, sizeof(n->active));
		fingerprint_bytes(&state, &n->ordinal, sizeof(n->ordinal));
		fingerprint_string(&state, n->zone);
		fingerprint_bytes(&state, n->tokens, (int) sizeof(int64) * n->ntokens);
		fingerprint_bytes(&state, &n->slots_given, sizeof(n->slots_given));
		fingerprint_bytes(&state, n->slot_ranges,
						  (int) sizeof(int32) * 2 * n->nslot_ranges);
	}
	h = XXH3_128bits_digest(&state);
	XXH128_canonicalFromHash(&canonical, h);
	memcpy(fingerprint, canonical.digest, 16);
}

/*
 * The number of points of every node (into node_counts, if not NULL) and of
 * the ring; an error if the ring would be too large.
 */
int64
chash_ring_count_points(const ChashRingSpec *spec, int64 *node_counts)
{
	int64		total = 0;

	for (int k = 0; k < spec->nnodes; k++)
	{
		int64		count = spec->algorithm->node_points(spec, k);

		if (node_counts)
			node_counts[k] = count;
		total += count;
	}
	if (total == 0 && spec->nactive > 0 &&
		spec->algorithm->kind == CHASH_PLACEMENT_POINTS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ring \"%s\" would have no points", spec->name),
				 errdetail_plural("Its %d active node gets no points from its weight.",
								  "Its %d active nodes all get no points from their weights.",
								  spec->nactive, spec->nactive),
				 errhint("Give the nodes larger weights, or weights nearer to one another.")));
	chash_ring_check_total(spec, total);
	return total;
}
