/*
 * SpymemcachedRoutes -- route keys with spymemcached's own ketama ring
 * (net.spy.memcached.KetamaNodeLocator from Debian's libspymemcached-java
 * 2.12.3), with DefaultHashAlgorithm.KETAMA_HASH.  No memcached server is
 * needed: each server is a MemcachedNode (a java.lang.reflect.Proxy) that
 * answers only getSocketAddress().
 *
 * Build and run (Debian: openjdk-17-jdk-headless libspymemcached-java):
 *
 *   javac -d DIR -cp /usr/share/java/spymemcached.jar test/compat/SpymemcachedRoutes.java
 *
 *   (or, with openjdk-17-jre-headless alone, whose runtime image has the
 *   compiler: java -m jdk.compiler/com.sun.tools.javac.Main -d DIR -cp ...)
 *
 *   java -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
 *        -cp DIR:/usr/share/java/spymemcached.jar SpymemcachedRoutes \
 *        [--format SPYMEMCACHED|LIBMEMCACHED] [--weighted] [--hosts FILE] \
 *        [--points] SERVERS KEYS > ROUTES
 *
 * (or, without DIR, compiled in memory at each start, 1.2 to 1.6 s slower:
 *   java -cp /usr/share/java/spymemcached.jar test/compat/SpymemcachedRoutes.java ...)
 * Never run it with -ea: the library asserts that the ring has exactly
 * 160 points per server, which ties and weights break.
 *
 * SERVERS is TSV, one "name<TAB>weight" line per server in the client's
 * order (empty lines skipped).  A name is "host:port", split at the LAST
 * ':' by spymemcached's own AddrUtil.getAddresses() (so IPv6 needs a port:
 * "::1:11211"), or a bare host without ':', which gets port 11211.  KEYS
 * has one key a line (UTF-8, split on "\n", a trailing "\r" stripped, an
 * empty line is the empty key).  ROUTES gets, for each key, the name of the
 * server KetamaNodeLocator.getPrimary(key) returns, exactly as written in
 * SERVERS.
 *
 *   --format F   KetamaNodeKeyFormatter.Format: SPYMEMCACHED (the default,
 *                as in the library) hashes String.valueOf(InetSocketAddress)
 *                without a leading '/', then "-i": "10.0.0.1:11211-0" (the
 *                port always written), "name/10.9.0.1:11211-0" for a name
 *                the hosts file resolves, "name/<unresolved>:11211-0" for
 *                one it does not.  LIBMEMCACHED hashes getHostName(), then
 *                ":port" unless the port is 11211, then "-i":
 *                "10.0.0.1-0", "10.0.0.1:11212-0", "name-0".
 *   --weighted   pass the SERVERS weights to the locator (the weights map of
 *                KetamaConnectionFactory): spymemcached then gives a server
 *                floor(w/W*160/4*n) digests of 4 points, in float, as
 *                libmemcached does.  Without it the map is empty, as in the
 *                library's default, every server gets 40 digests (160
 *                points) and the weights in SERVERS must all be equal.
 *   --hosts FILE hosts file for name resolution (jdk.net.hosts.file; the
 *                default is an empty one): nothing goes to the system's
 *                resolver, so an IP's getHostName() (LIBMEMCACHED) is the IP
 *                itself and a host name resolves only if FILE lists it.
 *   --points     print the ring instead of routes: "point<TAB>name" for
 *                each point of the locator's TreeMap, in its order (the
 *                owner after ties; KEYS is still read but not routed).
 *
 * What the library does (2.12.3, read from its bytecode, checked with this
 * program against an independent model on 36 configurations of 1 to 1000
 * servers and 50,003 keys each):
 *   points    md5 of each "<name>-i" gives 4 points, its bytes 0-3, 4-7,
 *             8-11, 12-15 each read little-endian (unsigned 32-bit, kept in
 *             a TreeMap<Long>); i = 0..39 unweighted (160 points a server,
 *             whatever the weight); weighted: digests =
 *             (int) floor((float) ((double) ((float) w / (float) W * 160f
 *             / 4f * (float) n) + 1e-10)), float arithmetic, the 1e-10 lost
 *             in the cast back to float: 39 digests (156 points) at 25, 47
 *             or 100 equal servers, 40 at 7, 14, 28, 1000.  W is the sum,
 *             over the servers, of the weight of each one's address.
 *   ties      TreeMap.put: a point shared by two servers goes to the one
 *             listed LAST (in LIBMEMCACHED format too, where libmemcached
 *             itself gives it to the first).
 *   keys      KETAMA_HASH: md5 of the key's UTF-8 bytes, bytes 0-3
 *             little-endian; the first point >= the hash (a key on a point
 *             gets that point), past the last point the first.
 *   names     String.valueOf(InetSocketAddress) is the JDK's: this form
 *             ("/<unresolved>", IPv6 in brackets) is JDK 14 and later's.
 *             Two names of one address (10.0.0.1 and 10.0.0.1:11211) are
 *             one address: the same points, all to the later name.
 *
 * Exit status: 0 ok, 1 error (message on stderr).
 */

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import net.spy.memcached.AddrUtil;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;

public final class SpymemcachedRoutes {
    private static final String USAGE = "usage: SpymemcachedRoutes [--format SPYMEMCACHED|LIBMEMCACHED]"
        + " [--weighted] [--hosts FILE] [--points] {SERVERS | --config FILE} KEYS > ROUTES";

    private static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        Failure(String message) { super(message); }
    }

    /* Lines of a UTF-8 file, split on "\n", a trailing "\r" stripped; no
     * line after a final "\n". */
    static List<String> readLines(String path) throws IOException, Failure {
        byte[] bytes = Files.readAllBytes(Paths.get(path));
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Failure(path + ": not UTF-8");
        }
        List<String> lines = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? text.length() : nl;
            String line = text.substring(start, end);
            if (line.endsWith("\r"))
                line = line.substring(0, line.length() - 1);
            lines.add(line);
            start = end + 1;
        }
        return lines;
    }

    /* A MemcachedNode that only has an address.  equals/hashCode are
     * identity (the library keeps nodes in HashMaps); every other method
     * fails loudly, so that a library path that needs more shows. */
    static MemcachedNode node(InetSocketAddress address, String name) {
        InvocationHandler handler = (proxy, method, args) -> {
            switch (method.getName()) {
            case "getSocketAddress": return address;
            case "hashCode": return System.identityHashCode(proxy);
            case "equals": return proxy == args[0];
            case "toString": return "node " + name + " (" + address + ")";
            default: throw new UnsupportedOperationException("MemcachedNode." + method.getName());
            }
        };
        return (MemcachedNode) Proxy.newProxyInstance(
            MemcachedNode.class.getClassLoader(), new Class<?>[] {MemcachedNode.class}, handler);
    }

    @SuppressWarnings("unchecked")
    static TreeMap<Long, MemcachedNode> ring(KetamaNodeLocator locator) throws ReflectiveOperationException {
        Field f = KetamaNodeLocator.class.getDeclaredField("ketamaNodes");
        f.setAccessible(true);
        return (TreeMap<Long, MemcachedNode>) f.get(locator);
    }

    static void run(String[] argv) throws Exception {
        KetamaNodeKeyFormatter.Format format = KetamaNodeKeyFormatter.Format.SPYMEMCACHED;
        boolean weighted = false, points = false;
        String hosts = null, config = null;
        List<String> files = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (a.equals("--format") && i + 1 < argv.length) {
                try {
                    format = KetamaNodeKeyFormatter.Format.valueOf(argv[++i]);
                } catch (IllegalArgumentException e) {
                    throw new Failure("unknown format " + argv[i] + " (SPYMEMCACHED or LIBMEMCACHED)");
                }
            } else if (a.equals("--weighted")) {
                weighted = true;
            } else if (a.equals("--points")) {
                points = true;
            } else if (a.equals("--hosts") && i + 1 < argv.length) {
                hosts = argv[++i];
            } else if (a.equals("--config") && i + 1 < argv.length) {
                config = argv[++i];
            } else if (a.startsWith("--")) {
                throw new Failure(USAGE);
            } else {
                files.add(a);
            }
        }
        // with --config, the servers are FILE: AddrUtil's address list
        // (chash_export's format spymemcached), given to it as it is
        if (config != null)
            files.add(0, config);
        if (files.size() != 2)
            throw new Failure(USAGE);

        // Before anything resolves a name: the JDK's own hosts-file name
        // service, never the system resolver (it reads the property when
        // InetAddress is first initialised, which nothing has done yet).
        if (hosts == null) {
            File empty = File.createTempFile("spymemcached-hosts", ".txt");
            empty.deleteOnExit();
            hosts = empty.getPath();
        } else if (!new File(hosts).canRead()) {
            throw new Failure(hosts + ": cannot read");
        }
        System.setProperty("jdk.net.hosts.file", hosts);

        List<String> names = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        List<MemcachedNode> nodes = new ArrayList<>();
        Map<InetSocketAddress, Integer> weights = new HashMap<>();
        Integer firstWeight = null;
        if (config != null) {
            String list = String.join("\n", readLines(config)).trim();
            List<InetSocketAddress> addresses = AddrUtil.getAddresses(list);
            String[] given = list.split("[\\s,]+");
            if (addresses.size() != given.length)
                throw new Failure(config + ": AddrUtil made " + addresses.size() + " addresses of " + given.length);
            for (int i = 0; i < given.length; i++) {
                if (!seen.add(given[i]))
                    throw new Failure(config + ": duplicate server " + given[i]);
                names.add(given[i]);
                nodes.add(node(addresses.get(i), given[i]));
            }
        }
        for (String line : config != null ? new ArrayList<String>() : readLines(files.get(0))) {
            if (line.isEmpty())
                continue;
            String[] f = line.split("\t", -1);
            if (f.length != 2)
                throw new Failure(files.get(0) + ": not name<TAB>weight: " + line);
            String name = f[0];
            int weight;
            try {
                weight = Integer.parseInt(f[1]);
            } catch (NumberFormatException e) {
                throw new Failure(files.get(0) + ": weight is not an integer: " + line);
            }
            if (!seen.add(name))
                throw new Failure(files.get(0) + ": duplicate server " + name);
            if (firstWeight == null)
                firstWeight = weight;
            else if (!weighted && weight != firstWeight)
                throw new Failure(files.get(0) + ": weights differ: give --weighted");
            // the client's own parser: "host:port", split at the last ':'
            String spec = name.indexOf(':') < 0 ? name + ":11211" : name;
            InetSocketAddress address;
            try {
                address = AddrUtil.getAddresses(Collections.singletonList(spec)).get(0);
            } catch (IllegalArgumentException e) {
                throw new Failure(files.get(0) + ": bad server " + name + ": " + e.getMessage());
            }
            names.add(name);
            nodes.add(node(address, name));
            // one weight per address, as in the client's map: a later line
            // for the same address replaces it
            weights.put(address, weight);
        }
        if (nodes.isEmpty())
            throw new Failure(files.get(0) + ": no servers");

        KetamaNodeLocator locator = new KetamaNodeLocator(nodes, DefaultHashAlgorithm.KETAMA_HASH, format,
            weighted ? weights : new HashMap<InetSocketAddress, Integer>());
        Map<MemcachedNode, String> nameOf = new java.util.IdentityHashMap<>();
        for (int i = 0; i < nodes.size(); i++)
            nameOf.put(nodes.get(i), names.get(i));

        List<String> keys = readLines(files.get(1));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        if (points) {
            for (Map.Entry<Long, MemcachedNode> e : ring(locator).entrySet()) {
                out.write(Long.toString(e.getKey()));
                out.write('\t');
                out.write(nameOf.get(e.getValue()));
                out.write('\n');
            }
        } else {
            if (ring(locator).isEmpty())
                throw new Failure(files.get(0) + ": no server has a point (weights)");
            for (String key : keys) {
                MemcachedNode n = locator.getPrimary(key);
                String name = n == null ? null : nameOf.get(n);
                if (name == null)
                    throw new Failure("no server for key " + key);
                out.write(name);
                out.write('\n');
            }
        }
        out.flush();
        if (System.out.checkError())
            throw new Failure("write error on standard output");
    }

    public static void main(String[] argv) {
        try {
            run(argv);
        } catch (Failure e) {
            System.err.println("SpymemcachedRoutes: " + e.getMessage());
            System.exit(1);
        } catch (Throwable e) {
            System.err.print("SpymemcachedRoutes: ");
            e.printStackTrace();
            System.exit(1);
        }
    }
}
