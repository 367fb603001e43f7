/*-------------------------------------------------------------------------
 *
 * profile.c
 *	  The table of profiles: the ring settings that route keys exactly as
 *	  one real system does.
 *
 * chash_ring_create(ring, profile => 'name') takes a profile's settings;
 * chash_profiles() lists them, with the software each was checked against
 * and how to name the nodes.  Adding a profile is a line in
 * chash_profiles[] below, once test/scripts/compat.sh proves it against
 * the real software.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "placement/profile.h"

static const ChashProfile chash_profiles[] = {
	{
		.name = "libmemcached",
		.system = "libmemcached's weighted ketama (MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED), as pylibmc and php-memcached use it",
		.algorithm = "ketama",
		.variant = "libmemcached",
		.nodes = "host or host:port, in the client's server order, with its weights; a server on port 11211 is hashed as its host",
		.checked_against = "libmemcached 1.1.4 (Debian 12), memcached_generate_hash(), and its published ketama fixture",
	},
	{
		.name = "twemproxy",
		.system = "twemproxy (nutcracker), distribution: ketama",
		.algorithm = "ketama",
		.variant = "twemproxy",
		.key_hash = "md5",
		.settable = CHASH_SETTING_KEY_HASH | CHASH_SETTING_HASH_TAG,
		.nodes = "the server's name (after its weight on the server line), else host:port, or the host alone on port 11211",
		.checked_against = "nutcracker 0.5.0 (Debian 12) in front of memcached servers, all 12 of its hashes",
	},
	{
		.name = "uhashring",
		.system = "uhashring's ketama ring (Python), hash_fn='ketama'",
		.algorithm = "ketama",
		.variant = "uhashring",
		.nodes = "the node names given to HashRing, with their weights",
		.checked_against = "uhashring 2.1 (Debian 12's python3-uhashring)",
	},
	{
		.name = "hashring",
		.system = "npm hashring (Node.js)",
		.algorithm = "ketama",
		.variant = "node",
		.nodes = "the server names given to HashRing, with their weights; names that are integers are refused",
		.checked_against = "hashring 3.2.0 (npm)",
	},
	{
		.name = "libketama",
		.system = "libketama, the original ketama C library",
		.algorithm = "ketama",
		.variant = "libketama",
		.nodes = "host:port as in its server file, with its weights",
		.checked_against = "an independent reference (test/compat/libketama_reference.py), itself checked against libketama built from source",
	},
	{
		.name = "java_ring",
		.system = "the Java ring code of the consistent-hashing articles (a TreeMap of FNV-1a points)",
		.hash = "java_fnv32",
		.vnode_name = "{node}&&VN{i}",
		.ties = "last",
		.settable = CHASH_SETTING_HASH | CHASH_SETTING_KEY_HASH |
		CHASH_SETTING_VNODES | CHASH_SETTING_VNODE_NAME |
		CHASH_SETTING_VNODE_FIRST,
		.nodes = "the node names the code puts its points for",
		.checked_against = "an independent reference (test/compat/java_ring_reference.py), itself checked against OpenJDK 17",
	},
	{
		.name = "spymemcached",
		.system = "spymemcached, the Java memcached client: KetamaNodeLocator, key format SPYMEMCACHED, no weights",
		.algorithm = "ketama",
		.variant = "spymemcached",
		.nodes = "ip:port of each server as spymemcached writes its address, port 11211 included (a host name as host/ip:port), in the client's order; weights 1",
		.checked_against = "spymemcached 2.12.3 (Debian 12's libspymemcached-java) on OpenJDK 17: KetamaNodeLocator.getPrimary()",
	},
	{
		.name = "spymemcached_weighted",
		.system = "spymemcached's KetamaNodeLocator given weights, key format SPYMEMCACHED",
		.algorithm = "ketama",
		.variant = "spymemcached_weighted",
		.nodes = "ip:port of each server as spymemcached writes its address, port 11211 included, in the client's order, with the weights given to the locator",
		.checked_against = "spymemcached 2.12.3 (Debian 12's libspymemcached-java) on OpenJDK 17: KetamaNodeLocator.getPrimary()",
	},
	{
		.name = "spymemcached_libmemcached",
		.system = "spymemcached's KetamaNodeLocator, key format LIBMEMCACHED, no weights",
		.algorithm = "ketama",
		.variant = "spymemcached_libmemcached",
		.nodes = "host or host:port as libmemcached names servers (a server on port 11211 is hashed as its host), in the client's order; weights 1",
		.checked_against = "spymemcached 2.12.3 (Debian 12's libspymemcached-java) on OpenJDK 17: KetamaNodeLocator.getPrimary()",
	},
	{
		.name = "spymemcached_libmemcached_weighted",
		.system = "spymemcached's KetamaNodeLocator given weights, key format LIBMEMCACHED",
		.algorithm = "ketama",
		.variant = "spymemcached_libmemcached_weighted",
		.nodes = "host or host:port as libmemcached names servers, in the client's order, with the weights given to the locator",
		.checked_against = "spymemcached 2.12.3 (Debian 12's libspymemcached-java) on OpenJDK 17: KetamaNodeLocator.getPrimary()",
	},
	{
		.name = "dubbo",
		.system = "Apache Dubbo's ConsistentHashLoadBalance (loadbalance=consistenthash), 2.7 and 3.x",
		.algorithm = "ketama",
		.variant = "spymemcached",
		.vnode_name = "{node}{i}",
		.settable = CHASH_SETTING_VNODES,
		.nodes = "each provider's address as Dubbo gives it (host:port), in the invoker list's order; weights 1 (Dubbo's consistent hash has none); vnodes is hash.nodes, a multiple of 4; keys are the selected arguments' String.valueOf, concatenated",
		.checked_against = "an independent reference (test/compat/dubbo_reference.py) written from ConsistentHashLoadBalance of Dubbo 2.7.0 to 3.3.1; no Dubbo in Debian 12",
	},
	{
		.name = "envoy_ring_hash",
		.system = "Envoy's ring_hash load balancer (hash_function XX_HASH), keys hashed by a header hash policy",
		.algorithm = "envoy_ring_hash",
		.hash = "xxh64",
		.vnodes = 1024,
		.vnode_name = "{node}_{i}",
		.settable = CHASH_SETTING_VNODES,
		.nodes = "each host's hash key (its hash_key metadata, its hostname with use_hostname_for_hashing, else ip:port), in the host set's order, with its load_balancing_weight; vnodes is minimum_ring_size",
		.checked_against = "an independent reference (test/compat/envoy_reference.py) written from Envoy's ring_hash_lb.cc, itself checked against every value Envoy's ring_hash_lb_test.cc and hash_test.cc publish; no Envoy in Debian 12",
	},
	{
		.name = "envoy_maglev",
		.system = "Envoy's maglev load balancer, keys hashed by a header hash policy",
		.algorithm = "maglev",
		.hash = "xxh64",
		.variant = "envoy",
		.settable = CHASH_SETTING_TABLE_SIZE,
		.nodes = "each host's hash key (its hash_key metadata, its hostname with use_hostname_for_hashing, else ip:port), with its load_balancing_weight; table_size is Envoy's table_size (a prime, default 65537)",
		.checked_against = "an independent reference (test/compat/envoy_reference.py) written from Envoy's maglev_lb.cc, itself checked against every table Envoy's maglev_lb_test.cc publishes; no Envoy in Debian 12",
	},
	{
		.name = "pymemcache",
		.system = "pymemcache's HashClient with its default hasher, RendezvousHash",
		.algorithm = "rendezvous",
		.hash = "pymemcache_murmur3",
		.variant = "pymemcache",
		.nodes = "host:port of each server, as HashClient names them (a bare host on port 11211 is host:11211); weights 1; str keys",
		.checked_against = "pymemcache 3.5.2 (Debian 12's python3-pymemcache): HashClient's own choice of client for each key, with no memcached",
	},
	{
		.name = "nginx",
		.system = "nginx's upstream hash $key consistent",
		.algorithm = "nginx",
		.key_hash = "crc32",
		.nodes = "the server text exactly as written on each server line (host:port, host, or unix:path), in the configuration's order, with its weight",
		.checked_against = "nginx 1.22.1 (Debian 12) proxying to its own backends: the backend that answered each key",
	},
	{
		.name = "haproxy",
		.system = "HAProxy 2.x, balance hdr(...) (or uri, url_param, ...) with hash-type consistent",
		.algorithm = "haproxy",
		.key_hash = "haproxy_sdbm_avalanche",
		.settable = CHASH_SETTING_KEY_HASH,
		.nodes = "a node per server line, named with the server's name, with its weight, and its ordinal equal to the server's id (show servers state); key_hash the backend's hash function: haproxy_sdbm, haproxy_djb2, haproxy_wt6, crc32, or their _avalanche forms",
		.checked_against = "HAProxy 2.6.12 (Debian 12) in front of backends of its own: the server that answered each key, with every hash function, with and without avalanche, servers with and without ids",
	},
	{
		.name = "haproxy_3_0",
		.system = "HAProxy 3.0.0 to 3.0.11 (and 3.1.0, 3.2.0), hash-type consistent with the default hash-key id: servers at full_hash(full_hash(id) + j)",
		.algorithm = "haproxy",
		.key_hash = "haproxy_sdbm_avalanche",
		.variant = "id_hashed",
		.settable = CHASH_SETTING_KEY_HASH,
		.nodes = "as for haproxy: a node per server line, named with the server's name, with its weight, and its ordinal equal to the server's id",
		.checked_against = "HAProxy 2.6.12 for all but the server key (no HAProxy 3.0 in Debian 12); the server key against values computed from lb_chash.c of 3.0.0 and the published reg-test balance-hash-maxconn.vtc, whose expected server tells the two rules apart",
	},
	{
		.name = "elasticsearch",
		.system = "Elasticsearch (and OpenSearch) document routing of indices created by 7.0 or later: a document's shard by its _routing or _id",
		.algorithm = "elasticsearch",
		.key_hash = "es_murmur3",
		.settable = CHASH_SETTING_TABLE_SIZE,
		.nodes = "one node a shard, in shard order (node ordinal: shard 0 first); table_size the index's number_of_routing_shards if it was set or the index was split or shrunk",
		.checked_against = "the hash by Lucene 8.8 (Debian 12's liblucene8-java, StringHelper.murmurhash3_x86_32) and Elasticsearch's published hash values; the shard rule from Elasticsearch's source (IndexRouting), with no server",
	},
	{
		.name = "dalli",
		.system = "Dalli, Ruby's (and Rails') memcached client",
		.algorithm = "dalli",
		.key_hash = "crc32",
		.nodes = "host:port as given to Dalli (a bare host is host:11211), in the client's order, with their weights",
		.checked_against = "Dalli 3.0.6 (Debian 12's ruby-dalli, Ruby 3.1): Dalli::Client routing each key",
	},
	{
		.name = "groupcache",
		.system = "groupcache's consistenthash (Go), as its HTTPPool uses it",
		.hash = "crc32",
		.vnodes = 50,
		.vnode_name = "{i}{node}",
		.ties = "last",
		.settable = CHASH_SETTING_VNODES | CHASH_SETTING_HASH | CHASH_SETTING_KEY_HASH,
		.nodes = "the peers given to Add(), in their order, weights 1; vnodes the replicas given to consistenthash.New (HTTPPool's 50)",
		.checked_against = "groupcache (Debian 12's golang-github-golang-groupcache-dev, Go 1.19): consistenthash.Map.Get()",
	},
	{
		.name = "guava",
		.system = "Guava's Hashing.consistentHash(long, int), Java's jump hash",
		.algorithm = "jump",
		.variant = "guava",
		.key_hash = "int64",
		.nodes = "one node a bucket, in bucket order (node ordinal: bucket 0 first); keys are the longs given to consistentHash",
		.checked_against = "Guava 31.1 (Debian 12's libguava-java) on OpenJDK 17: consistentHash(long, int)",
	},
	{
		.name = "jump",
		.system = "jump consistent hash as the paper (Lamping and Veach) and its ports (go-jump, ...) write it, on 64-bit integer keys",
		.algorithm = "jump",
		.key_hash = "int64",
		.settable = CHASH_SETTING_KEY_HASH,
		.nodes = "one node a bucket, in bucket order (node ordinal: bucket 0 first); keys are the 64-bit integers given to the function",
		.checked_against = "the published vectors of go-jump and of Microsoft's TypeScript port (test/sql/placement.sql)",
	},
	{
		.name = "redis_cluster",
		.system = "Redis Cluster: CRC16 key slots with {hash tags}, slot ranges per master",
		.algorithm = "slots",
		.key_hash = "crc16",
		.table_size = 16384,
		.hash_tag = "{}",
		.nodes = "ip:port of each master (CLUSTER NODES' address without @cport); chash_ring_import() reads them with their slots",
		.checked_against = "redis-server 7.0.15 (Debian 12): CLUSTER KEYSLOT and the owner of every key and slot of a running cluster, before and after redis-cli --cluster reshard and rebalance",
	},
	{
		.name = "postgres_partitions",
		.system = "PostgreSQL's hash partitioning (PARTITION BY HASH, FOR VALUES WITH (MODULUS m, REMAINDER r)), mixed moduli included",
		.algorithm = "slots",
		.key_hash = "postgres_partition",
		.settable = CHASH_SETTING_TABLE_SIZE,
		.nodes = "each partition's qualified name; chash_ring_import(ring, 'postgres_partitions', 'schema.table') reads them with their bounds: table_size is the largest modulus, and the partition of modulus m and remainder r owns every slot s with s % m = r",
		.checked_against = "PostgreSQL itself (the major the tests run on): the partition tableoid names for every row of real hash-partitioned tables, 13 key types, moduli 1 to 64 and mixed (test/sql/pg_partitions.sql)",
	},
	{
		.name = "cassandra",
		.system = "Apache Cassandra's Murmur3Partitioner: token rings, keys as CQL serialises them (chash_cql_key)",
		.algorithm = "tokens",
		.key_hash = "cassandra_murmur3",
		.nodes = "each node's address as nodetool ring shows it, with its tokens, and its rack as zone; chash_ring_import() reads them, one data centre a ring",
		.checked_against = "the DataStax Python driver 3.25 (Debian 12's python3-cassandra): its Murmur3 tokens, CQL serialisers, and replicas by SimpleStrategy and NetworkTopologyStrategy; no Cassandra server runs here",
	},
};

/* The settings of ring_create's arguments, in the order chash_profiles() shows them */
static const struct
{
	ChashSetting setting;
	const char *name;
}			setting_names[] = {
	{CHASH_SETTING_ALGORITHM, "algorithm"},
	{CHASH_SETTING_HASH, "hash"},
	{CHASH_SETTING_VNODES, "vnodes"},
	{CHASH_SETTING_VNODE_NAME, "vnode_name"},
	{CHASH_SETTING_VNODE_FIRST, "vnode_first"},
	{CHASH_SETTING_KEY_HASH, "key_hash"},
	{CHASH_SETTING_VARIANT, "ketama_variant"},
	{CHASH_SETTING_TIES, "ties"},
	{CHASH_SETTING_TABLE_SIZE, "table_size"},
	{CHASH_SETTING_LOOKUP, "lookup"},
	{CHASH_SETTING_HASH_TAG, "hash_tag"},
};

int
chash_profile_count(void)
{
	return lengthof(chash_profiles);
}

const ChashProfile *
chash_profile_at(int i)
{
	Assert(i >= 0 && i < lengthof(chash_profiles));
	return &chash_profiles[i];
}

static const char *
profile_name_at(int i)
{
	return chash_profiles[i].name;
}

/* The profile of that name; an error listing the valid ones if none */
const ChashProfile *
chash_profile_get(const char *name)
{
	for (int i = 0; i < lengthof(chash_profiles); i++)
	{
		if (strcmp(chash_profiles[i].name, name) == 0)
			return &chash_profiles[i];
	}
	chash_error_unknown("profile", "profiles", name, lengthof(chash_profiles),
						profile_name_at);
}

/* The name of a setting, as chash_ring_create's argument */
const char *
chash_setting_name(ChashSetting setting)
{
	for (int i = 0; i < lengthof(setting_names); i++)
	{
		if (setting_names[i].setting == setting)
			return setting_names[i].name;
	}
	elog(ERROR, "unknown ring setting %d", (int) setting);
	return NULL;				/* keep compiler quiet */
}

/*
 * An error if a setting the profile decides was given: a profile routes as
 * its system does only with the system's own settings.  Those its system's
 * configuration chooses (twemproxy's hash, say) may be given.
 */
void
chash_profile_check_setting(const ChashProfile *profile, ChashSetting setting)
{
	if ((profile->settable & setting) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("profile \"%s\" sets %s", profile->name,
						chash_setting_name(setting)),
				 errdetail("A profile's settings are those of its system; chash_profiles() lists those that may be chosen."),
				 errhint("Leave %s unset, or create the ring without a profile.",
						 chash_setting_name(setting))));
}

/*
 * The profile's settings as chash_ring_create's named arguments, for
 * chash_profiles(): "algorithm => 'slots', key_hash => 'crc16', ..."
 */
void
chash_profile_settings(const ChashProfile *profile, StringInfo buf)
{
	const char *sep = "";

#define SETTING_TEXT(field, label) \
	if (profile->field != NULL) \
	{ \
		appendStringInfo(buf, "%s%s => '%s'", sep, label, profile->field); \
		sep = ", "; \
	}
#define SETTING_INT(field, label) \
	if (profile->field != 0) \
	{ \
		appendStringInfo(buf, "%s%s => %d", sep, label, profile->field); \
		sep = ", "; \
	}
	SETTING_TEXT(algorithm, "algorithm");
	SETTING_TEXT(hash, "hash");
	SETTING_INT(vnodes, "vnodes");
	SETTING_TEXT(vnode_name, "vnode_name");
	SETTING_INT(vnode_first, "vnode_first");
	SETTING_TEXT(key_hash, "key_hash");
	SETTING_TEXT(variant, "ketama_variant");
	SETTING_TEXT(ties, "ties");
	SETTING_INT(table_size, "table_size");
	SETTING_TEXT(lookup, "lookup");
	SETTING_TEXT(hash_tag, "hash_tag");
#undef SETTING_TEXT
#undef SETTING_INT
}

/* The settings that may be chosen, as names, into names[]; returns how many */
int
chash_profile_settable(const ChashProfile *profile, const char **names)
{
	int			n = 0;

	for (int i = 0; i < lengthof(setting_names); i++)
	{
		if (profile->settable & setting_names[i].setting)
			names[n++] = setting_names[i].name;
	}
	return n;
}
