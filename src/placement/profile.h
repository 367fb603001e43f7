/*-------------------------------------------------------------------------
 *
 * profile.h
 *	  Profiles: the ring settings of real systems (placement/profile.c).
 *
 * Pure code: nothing declared here reads the catalog.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_PROFILE_H
#define CHASH_PROFILE_H

#include "common/chash.h"
#include "lib/stringinfo.h"

/* The settings of chash_ring_create, as bits */
typedef enum ChashSetting
{
	CHASH_SETTING_ALGORITHM = 1 << 0,
	CHASH_SETTING_HASH = 1 << 1,
	CHASH_SETTING_VNODES = 1 << 2,
	CHASH_SETTING_VNODE_NAME = 1 << 3,
	CHASH_SETTING_VNODE_FIRST = 1 << 4,
	CHASH_SETTING_KEY_HASH = 1 << 5,
	CHASH_SETTING_VARIANT = 1 << 6,
	CHASH_SETTING_TIES = 1 << 7,
	CHASH_SETTING_TABLE_SIZE = 1 << 8,
	CHASH_SETTING_LOOKUP = 1 << 9,
	CHASH_SETTING_HASH_TAG = 1 << 10
} ChashSetting;

/*
 * A profile: settings as chash_ring_create's arguments (NULL or 0: the
 * argument's default), the settings its system's configuration chooses,
 * which may be given with it, and what users need to know.
 */
typedef struct ChashProfile
{
	const char *name;
	const char *system;			/* the system, as its users know it */
	const char *algorithm;		/* NULL: ring */
	const char *hash;
	int32		vnodes;			/* 0: 160 */
	const char *vnode_name;
	int32		vnode_first;
	const char *key_hash;
	const char *variant;
	const char *ties;
	int32		table_size;
	const char *lookup;
	const char *hash_tag;
	uint32		settable;		/* ChashSetting bits that may be given */
	const char *nodes;			/* how to name the nodes */
	const char *checked_against;	/* the software, its version, how */
} ChashProfile;

extern int	chash_profile_count(void);
extern const ChashProfile *chash_profile_at(int i);
extern const ChashProfile *chash_profile_get(const char *name);
extern const char *chash_setting_name(ChashSetting setting);
extern void chash_profile_check_setting(const ChashProfile *profile,
										ChashSetting setting);
extern void chash_profile_settings(const ChashProfile *profile,
								   StringInfo buf);
extern int	chash_profile_settable(const ChashProfile *profile,
								   const char **names);

#endif							/* CHASH_PROFILE_H */
