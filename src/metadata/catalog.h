/*-------------------------------------------------------------------------
 *
 * catalog.h
 *	  Reading and changing the catalog tables (metadata/catalog.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_CATALOG_H
#define CHASH_CATALOG_H

#include "placement/placement.h"
#include "nodes/parsenodes.h"
#include "utils/snapshot.h"

/* Schema and tables of the catalog, as created by the install script */
#define CHASH_SCHEMA			"chash"
#define CHASH_RING_TABLE		"ring_config"
#define CHASH_NODE_TABLE		"node_config"

/*
 * Equality in queries on the catalog, bound to pg_catalog whatever the
 * caller's search_path
 */
#define CHASH_EQ				" OPERATOR(pg_catalog.=) "

/* Catalog access (metadata/catalog.c) */
extern ChashRingSpec *chash_catalog_read_ring(const char *ring, bool latest);
extern ChashRingSpec *chash_catalog_read_settings(const char *ring, bool latest);
extern Oid	chash_catalog_relid(const char *table);
extern AttrNumber chash_catalog_version_attnum(void);
extern void chash_catalog_forget_relids(void);
extern bool chash_catalog_is_ours(Oid relid);
extern bool chash_catalog_is_table(Oid relid);
extern void chash_catalog_check_privilege(const char *table, AclMode mode,
										  const char *ring);
extern void chash_catalog_check_read(const char *ring);
extern bool chash_catalog_rls_applies(void);
extern bool chash_catalog_probe(const char *name, int len, Snapshot snap,
								int64 *version, bool *own);
extern struct _SPI_plan *chash_catalog_plan(const char *sql, int nargs,
											const Oid *argtypes);
extern uint64 chash_catalog_execute(const char *sql, int nargs,
									const Oid *argtypes, const Datum *args,
									const bool *argnulls);
extern bool chash_catalog_ring_exists(const char *ring);
extern bool chash_catalog_has_table_size(void);
extern bool chash_catalog_has_hash_tag(void);
extern bool chash_catalog_has_capacity(void);
extern bool chash_catalog_has_address(void);
extern bool chash_catalog_has_notify(void);
extern void chash_catalog_tokens(Datum tokens, MemoryContext mcxt,
								 ChashNodeSpec *n);
extern void chash_catalog_slots(Datum slots, MemoryContext mcxt,
								ChashNodeSpec *n);

#endif							/* CHASH_CATALOG_H */
