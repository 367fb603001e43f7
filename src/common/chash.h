/*-------------------------------------------------------------------------
 *
 * chash.h
 *	  What every layer of the chash extension shares: its limits.
 *
 * The layers and what each may include: src/README.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_H
#define CHASH_H

#include "common/compat.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "common/messages.h"

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

#endif							/* CHASH_H */
