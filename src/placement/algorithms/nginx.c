/*-------------------------------------------------------------------------
 *
 * nginx.c
 *	  The "nginx" algorithm: nginx's "hash $key consistent".
 *
 * ngx_http_upstream_hash_module (nginx 1.22) gives each server 160 points
 * per unit of weight: a chain of CRC-32s of the server's host and port,
 * as written in the configuration, each point seeding the next:
 * p0 = crc32(host 0x00 port LE32(0)), p(j) = crc32(host 0x00 port
 * LE32(p(j-1))).  The server text is split at its last ':' when only
 * digits follow it; a "unix:" server is its path, with no port.  Points
 * are sorted (glibc's qsort keeps server order among equal ones) and
 * equal points collapse to the first, so the server listed first wins a
 * shared point.  A key hashed with CRC-32 goes to the first point at or
 * after it.  A node's points depend on its name and weight alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <zlib.h>

#include "miscadmin.h"

#include "placement/placement.h"

#define NGINX_POINTS_PER_WEIGHT 160

static void
nginx_prepare(ChashRingSpec *spec)
{
	chash_refuse_variant(spec);
	if (strcmp(spec->hash->name, "crc32") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nginx rings place their points with \"crc32\", not \"%s\"",
						spec->hash->name),
				 errdetail("Ring \"%s\" is an nginx ring.", spec->name),
				 errhint("Leave hash unset; key_hash chooses the hash of the keys.")));
	if (spec->ties_name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ties cannot be set for nginx rings"),
				 errdetail("nginx keeps the point of the server listed first.")));
	spec->ties = CHASH_TIES_FIRST;
}

/*
 * 160 points a unit of weight.  Checked here, with the node alone: nginx's
 * weights are integers
 */
static int64
nginx_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	if (n->weight != floor(n->weight) ||
		n->weight * NGINX_POINTS_PER_WEIGHT > CHASH_MAX_VNODES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weights of the nodes of an nginx ring are integers from 1 to %d",
						CHASH_MAX_VNODES / NGINX_POINTS_PER_WEIGHT),
				 errdetail("Node \"%s\" of ring \"%s\" has weight %.15g.",
						   chash_message_name(n->name, n->name_len),
						   spec->name, n->weight)));
	if (!n->active)
		return 0;
	return (int64) n->weight * NGINX_POINTS_PER_WEIGHT;
}

/*
 * The host and port of a server as nginx splits its text: "unix:path" is
 * the path; else at the last ':' if only digits follow it
 */
static void
nginx_split(const char *name, int len, int *host_len, int *port_at)
{
	if (len >= 5 && pg_strncasecmp(name, "unix:", 5) == 0)
	{
		*port_at = -5;			/* host from byte 5, no port */
		*host_len = len - 5;
		return;
	}
	for (int j = 0; j < len; j++)
	{
		char		c = name[len - j - 1];

		if (c == ':')
		{
			*host_len = len - j - 1;
			*port_at = len - j;
			return;
		}
		if (c < '0' || c > '9')
			break;
	}
	*host_len = len;
	*port_at = len;
}

static void
nginx_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	const unsigned char *name = (const unsigned char *) n->name_utf8;
	int64		count = nginx_node_points(spec, node);
	int			host_len;
	int			port_at;
	uLong		base;
	uint32		prev = 0;

	nginx_split(n->name_utf8, n->name_utf8_len, &host_len, &port_at);
	base = crc32(0L, Z_NULL, 0);
	if (port_at < 0)
	{
		base = crc32(base, name + 5, host_len);
		base = crc32(base, (const Bytef *) "", 1);
	}
	else
	{
		base = crc32(base, name, host_len);
		base = crc32(base, (const Bytef *) "", 1);
		base = crc32(base, name + port_at, n->name_utf8_len - port_at);
	}
	for (int64 j = 0; j < count; j++)
	{
		unsigned char le[4];

		if ((j & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
		le[0] = prev & 0xff;
		le[1] = (prev >> 8) & 0xff;
		le[2] = (prev >> 16) & 0xff;
		le[3] = (prev >> 24) & 0xff;
		prev = (uint32) crc32(base, le, 4);
		out[j].position = prev;
		out[j].node = node;
		out[j].vnode = (uint32) j;
	}
}

/* A point is the j-th link of its server's chain: 'server~j' */
static void
nginx_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
				  StringInfo buf)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	appendBinaryStringInfo(buf, n->name, n->name_len);
	appendStringInfo(buf, "~%u", vnode);
}

const ChashAlgorithm chash_algorithm_nginx = {
	.name = "nginx",
	.default_hash = "crc32",
	.default_vnode_name = "{node}#{i}",
	.prepare = nginx_prepare,
	.node_points = nginx_node_points,
	.node_build = nginx_node_build,
	.point_label = nginx_point_label,
	.kind = CHASH_PLACEMENT_POINTS,
	.names_hashed = true,
	.weighted = true,
	.node_points_alone = true,
	.description = "nginx's hash ... consistent: 160 points per unit of weight, a chain of CRC-32s of each server's host and port",
};
