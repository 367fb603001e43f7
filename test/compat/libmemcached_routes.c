/*
 * libmemcached_routes.c
 *		Route keys with libmemcached's own weighted ketama.
 *
 *   libmemcached_routes SERVERS KEYS > ROUTES
 *   libmemcached_routes --config FILE KEYS > ROUTES
 *
 * SERVERS is TSV, one "name<TAB>weight" line per server in the client's
 * order; a name is "host" (port 11211) or "host:port".  KEYS has one key a
 * line.  ROUTES gets, for each key, the name (as given) of the server that
 * libmemcached picks: memcached_generate_hash() on a handle set up as an
 * application would (MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, then
 * memcached_server_add_with_weight() in order).  No connection is made.
 *
 * With --config, the servers are FILE, a string of libmemcached's
 * configuration language (chash_export's format libmemcached) given to
 * memcached() as it is, then MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, which the
 * language has no option for; a server's name is its --SERVER= value
 * without the weight.
 *
 * libmemcached hashes the points of a server on port 11211 as "host-i",
 * however its name was spelled, and of other servers as "host:port-i".
 * Debian's build keeps an assertion that aborts the process when a
 * continuum is built for more than 100 servers: this program stops with
 * exit status 3 and a message first.
 *
 * Build: gcc -O2 -o libmemcached_routes libmemcached_routes.c -lmemcached
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmemcached/memcached.h>

/* libmemcached's limit: servers * POINTS_PER_SERVER <= CONTINUUM_SIZE */
#define MAX_SERVERS (MEMCACHED_CONTINUUM_SIZE / MEMCACHED_POINTS_PER_SERVER)

static void
fail(const char *what, const char *detail)
{
	fprintf(stderr, "libmemcached_routes: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
	exit(2);
}

static void
check(memcached_st *memc, memcached_return_t rc, const char *what)
{
	if (rc != MEMCACHED_SUCCESS)
		fail(what, memcached_last_error_message(memc));
}

/* Strip the line end ("\n" or "\r\n"); returns the length left */
static size_t
chomp(char *line, ssize_t len)
{
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	return (size_t) len;
}

/*
 * A handle made by memcached() from the configuration string in path, and
 * the servers' names, by index, into *names
 */
static memcached_st *
load_config(const char *path, char ***names, size_t *nservers)
{
	char		buf[1 << 20];
	char		error[1024];
	size_t		len;
	char	   *word;
	char	   *save;
	FILE	   *f;
	memcached_st *memc;

	if ((f = fopen(path, "r")) == NULL)
		fail(path, strerror(errno));
	len = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f) || !feof(f))
		fail(path, "unreadable, or over 1 MB");
	fclose(f);
	buf[len] = '\0';
	len = chomp(buf, len);
	if (libmemcached_check_configuration(buf, len, error, sizeof(error)) != MEMCACHED_SUCCESS)
		fail("libmemcached_check_configuration", error);
	if ((memc = memcached(buf, len)) == NULL)
		fail("memcached() failed on", path);
	check(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1),
		  "memcached_behavior_set(MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED)");
	*nservers = 0;
	for (word = strtok_r(buf, " ", &save); word; word = strtok_r(NULL, " ", &save))
	{
		char	   *weight = strstr(word, "/?");

		if (strncmp(word, "--SERVER=", 9) != 0)
			continue;
		if (weight)
			*weight = '\0';
		*names = realloc(*names, (*nservers + 1) * sizeof(char *));
		if (*names == NULL || ((*names)[*nservers] = strdup(word + 9)) == NULL)
			fail("out of memory", NULL);
		(*nservers)++;
	}
	if (*nservers == 0 || *nservers > MAX_SERVERS)
		fail("no servers, or more than libmemcached takes, in", path);
	if (memcached_server_count(memc) != *nservers)
		fail("memcached_server_count() disagrees with the --SERVER options", NULL);
	return memc;
}

int
main(int argc, char **argv)
{
	memcached_st *memc;
	char	  **names = NULL;	/* the servers' names as given, by index */
	size_t		nservers = 0;
	char	   *line = NULL;
	size_t		linecap = 0;
	ssize_t		len;
	FILE	   *f;

	if (argc == 4 && strcmp(argv[1], "--config") == 0)
	{
		memc = load_config(argv[2], &names, &nservers);
		argv++;
		goto route;
	}
	if (argc != 3)
	{
		fprintf(stderr, "usage: %s [--config FILE] SERVERS KEYS > ROUTES\n", argv[0]);
		return 2;
	}

	memc = memcached_create(NULL);
	if (memc == NULL)
		fail("memcached_create failed", NULL);
	check(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1),
		  "memcached_behavior_set(MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED)");

	if ((f = fopen(argv[1], "r")) == NULL)
		fail(argv[1], strerror(errno));
	while ((len = getline(&line, &linecap, f)) != -1)
	{
		char	   *tab,
				   *colon,
				   *end;
		char		host[1024];
		unsigned long port = MEMCACHED_DEFAULT_PORT;
		unsigned long weight;

		if (chomp(line, len) == 0)
			continue;
		if ((tab = strchr(line, '\t')) == NULL)
			fail("server line without a tab", line);
		*tab = '\0';
		errno = 0;
		weight = strtoul(tab + 1, &end, 10);
		if (errno || *end != '\0' || weight == 0 || weight > UINT32_MAX)
			fail("bad weight", tab + 1);
		if (strlen(line) >= sizeof(host))
			fail("server name too long", line);
		strcpy(host, line);
		if ((colon = strrchr(host, ':')) != NULL)
		{
			*colon = '\0';
			errno = 0;
			port = strtoul(colon + 1, &end, 10);
			if (errno || *end != '\0' || port == 0 || port > 65535)
				fail("bad port", line);
		}
		if (nservers >= MAX_SERVERS)
		{
			fprintf(stderr, "libmemcached_routes: libmemcached asserts at most %d servers\n",
					MAX_SERVERS);
			exit(3);
		}

		check(memc, memcached_server_add_with_weight(memc, host, (in_port_t) port,
													 (uint32_t) weight),
			  "memcached_server_add_with_weight");

		names = realloc(names, (nservers + 1) * sizeof(char *));
		if (names == NULL || (names[nservers] = strdup(line)) == NULL)
			fail("out of memory", NULL);
		nservers++;
	}
	fclose(f);
	if (nservers == 0)
		fail("no servers in", argv[1]);
	if (memcached_server_count(memc) != nservers)
		fail("memcached_server_count() disagrees with the server list", NULL);

route:
	if ((f = fopen(argv[2], "r")) == NULL)
		fail(argv[2], strerror(errno));
	while ((len = getline(&line, &linecap, f)) != -1)
	{
		size_t		klen = chomp(line, len);
		uint32_t	idx = memcached_generate_hash(memc, line, klen);

		if (idx >= nservers)
			fail("memcached_generate_hash() returned no server for", line);
		if (fputs(names[idx], stdout) == EOF || putchar('\n') == EOF)
			fail("write error", strerror(errno));
	}
	fclose(f);
	free(line);
	memcached_free(memc);
	if (fflush(stdout) != 0)
		fail("write error", strerror(errno));
	return 0;
}
