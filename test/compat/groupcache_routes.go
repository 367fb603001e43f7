// Command groupcache_routes routes keys with groupcache's consistent hash,
// the Debian package golang-github-golang-groupcache-dev (its consistenthash
// package, as groupcache's HTTPPool uses it).
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= \
//	    go run groupcache_routes.go [--replicas N] SERVERS KEYS > ROUTES
//	    go run groupcache_routes.go --config FILE KEYS > ROUTES
//
// GOPATH mode builds it offline from Debian's source in /usr/share/gocode/src
// (Debian's golang-go); give GOCACHE a temporary directory to leave nothing
// behind.  SERVERS is TSV, one "name<TAB>weight" line per server in order;
// the weight is read but ignored: groupcache has no weights.  KEYS has one
// key a line.  ROUTES gets, for each key, Get(key) of consistenthash.New(N,
// nil) after one Add(names...) in SERVERS order.  N defaults to 50, the
// replicas of groupcache's HTTPPool (defaultReplicas).  With --config, FILE
// is the JSON of an HTTPPool's Replicas and the Peers given to Set
// (chash_export's format groupcache), read into those two fields as
// HTTPPool.Set uses them: consistenthash.New(Replicas, nil), Add(Peers...).
//
// The rule: server s gets the points crc32(decimal(i) || s), i = 0 .. N-1
// (IEEE CRC-32 of the bytes, no separator); a key goes to the server of the
// first point >= crc32(key), wrapping to the smallest; a point shared by
// two servers belongs to the one added last (a map entry overwritten).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/golang/groupcache/consistenthash"
)

const prog = "groupcache_routes.go"

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, prog+": "+format+"\n", args...)
	os.Exit(1)
}

// readLines reads a file of "\n"-terminated lines, keeping empty ones.
func readLines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	text := string(data)
	if text == "" {
		return nil
	}
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		lines[i] = strings.TrimSuffix(line, "\r")
	}
	return lines
}

func readServers(path string) []string {
	var names []string
	seen := map[string]bool{}
	for _, line := range readLines(path) {
		if line == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 2 {
			fail("bad server line %q (want name<TAB>weight)", line)
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			fail("bad weight in %q", line)
		}
		if seen[fields[0]] {
			fail("duplicate server %q", fields[0])
		}
		seen[fields[0]] = true
		names = append(names, fields[0])
	}
	if len(names) == 0 {
		fail("no servers")
	}
	return names
}

func main() {
	replicas := flag.Int("replicas", 50, "points per server")
	config := flag.String("config", "", "a JSON file of Replicas and Peers")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run %s [--replicas N] {SERVERS | --config FILE} KEYS > ROUTES\n", prog)
		os.Exit(2)
	}
	flag.Parse()
	if flag.NArg() != 2 && (*config == "" || flag.NArg() != 1) {
		flag.Usage()
	}
	if *replicas < 1 {
		fail("--replicas must be >= 1")
	}
	var ring *consistenthash.Map
	keys := flag.Arg(1)
	if *config != "" {
		var pool struct {
			Replicas int
			Peers    []string
		}
		data, err := os.ReadFile(*config)
		if err != nil {
			fail("%v", err)
		}
		if err := json.Unmarshal(data, &pool); err != nil {
			fail("%s: %v", *config, err)
		}
		if pool.Replicas < 1 || len(pool.Peers) == 0 {
			fail("%s: no Replicas or no Peers", *config)
		}
		ring = consistenthash.New(pool.Replicas, nil)
		ring.Add(pool.Peers...)
		keys = flag.Arg(0)
	} else {
		ring = consistenthash.New(*replicas, nil)
		ring.Add(readServers(flag.Arg(0))...)
	}

	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	for _, key := range readLines(keys) {
		out.WriteString(ring.Get(key))
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		fail("%v", err)
	}
}
