/*-------------------------------------------------------------------------
 *
 * chash.h
 *	  What every layer of the chash extension shares: limits and messages.
 *
 * The layers, from the bottom up, each with its header:
 *	  hash.c (hash.h)	the table of hash functions
 *	  algorithm.c, algo_*.c, ring.c, ownership.c, rebalance.c, template.c
 *		(placement.h)	placements: what an algorithm builds from a ring's
 *					configuration and how keys find their owners in it (pure:
 *					configuration in, owners out; no catalog access)
 *	  catalog.c (catalog.h)
 *					reading and changing chash.ring_config/node_config
 *	  cache.c, triggers.c (cache.h)
 *					the per-backend cache of built placements, and the
 *					catalog tables' trigger: the ring-change lock, versions,
 *					and the checks every change passes
 *	  lookup.c, admin.c, plan.c, report.c, cql.c
 *					thin fmgr wrappers for routing, ring changes, plans and
 *					reports, and Cassandra's CQL key bytes
 *
 * A pure file includes placement.h (and so hash.h and this) only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_H
#define CHASH_H

#include "compat.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

/* Limits, mirrored by the CHECK constraints of the catalog tables */
#define CHASH_MAX_RING_NAME		(NAMEDATALEN - 1)
/* well under what a btree index entry of (ring, node) can hold */
#define CHASH_MAX_NODE_NAME		1024
/* a vnode name is at most this many times a node name long */
#define CHASH_MAX_TEMPLATE		256
#define CHASH_MAX_VNODES		16777216
/* 12 bytes a point keeps a ring of this size under 1 GB of memory */
#define CHASH_MAX_RING_POINTS	(64 * 1024 * 1024)

/*
 * Builds check for interrupts by the work done, not by the points made: a
 * vnode name costs its bytes plus this, and a check is due every so much
 * work (some hundred microseconds of MD5, less of the other hashes)
 */
#define CHASH_WORK_PER_NAME		32
#define CHASH_WORK_PER_INTERRUPT_CHECK	(256 * 1024)

/* Names in messages: longer ones are cut to this many bytes and "..." */
#define CHASH_MESSAGE_NAME_BYTES	64

/* Module set-up and shared errors (chash.c) */
extern const char *chash_message_name(const char *name, int len);
pg_noreturn extern void chash_error_unknown(const char *what, const char *plural,
											const char *name, int count,
											const char *(*name_at) (int));

#endif							/* CHASH_H */
