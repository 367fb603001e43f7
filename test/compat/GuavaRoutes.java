/*
 * GuavaRoutes -- route keys with Guava's jump consistent hash,
 * com.google.common.hash.Hashing.consistentHash (Debian's libguava-java 31.1).
 *
 * Build and run (Debian: openjdk-17-jdk-headless libguava-java):
 *
 *   javac -d DIR -cp /usr/share/java/guava.jar test/compat/GuavaRoutes.java
 *
 *   (or, with openjdk-17-jre-headless alone, whose runtime image has the
 *   compiler: java -m jdk.compiler/com.sun.tools.javac.Main -d DIR -cp ...)
 *
 *   java -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
 *        -cp DIR:/usr/share/java/guava.jar GuavaRoutes \
 *        [--hashcode FUNCTION|hex] SERVERS KEYS > ROUTES
 *
 * (or, without DIR, compiled in memory at each start, 1.2 to 1.6 s slower:
 *   java -cp /usr/share/java/guava.jar test/compat/GuavaRoutes.java ...)
 *
 * SERVERS is TSV, one "name<TAB>weight" line per bucket in order (empty
 * lines skipped): bucket i is line i.  Jump hash has no weights: the weight
 * must be a positive integer and is otherwise ignored.  KEYS has one key a
 * line (UTF-8, split on "\n", a trailing "\r" stripped).  ROUTES gets, for
 * each key, the name of bucket consistentHash(key, n), n = number of buckets.
 *
 * Without --hashcode a key is a decimal long, -9223372036854775808 to
 * 9223372036854775807 (Long.parseLong), given to consistentHash(long, int)
 * itself: Guava takes the long, not its text.
 *
 *   --hashcode hex       a key is a HashCode in hex (HashCode.fromString:
 *                        an even number of lowercase hex digits, at least 2),
 *                        routed with consistentHash(HashCode, int), which is
 *                        consistentHash(hashCode.padToLong(), int): its first
 *                        8 bytes little-endian, zero-padded when shorter.
 *   --hashcode FUNCTION  a key is text, hashed with Guava's Hashing.FUNCTION()
 *                        (a no-argument factory: murmur3_128, murmur3_32_fixed,
 *                        sipHash24, farmHashFingerprint64, md5, sha256, crc32,
 *                        ...) over its UTF-8 bytes, hashString(key, UTF_8),
 *                        then consistentHash(HashCode, int) as above.  The
 *                        usual Guava idiom for text keys.
 *
 * Guava 31.1's arithmetic (its bytecode): state = 2862933555777941757 *
 * state + 1 (long); next = (int) ((candidate + 1) / ((double) ((int)
 * (state >>> 33) + 1) / 0x1.0p31)), kept while 0 <= next < buckets.  It
 * differs from the paper's jump hash (j = (b + 1) * (2^31 / ((key >> 33)
 * + 1)) in doubles) in two ways, both found with this Guava: at state >>> 33
 * = 2^31 - 1 the int + 1 overflows, the quotient is negative and Guava stops
 * where the paper jumps to candidate + 1 (key 306526976: Guava 4, the paper 5
 * and on, for n >= 6); and where (b + 1) * 2^31 / (r + 1) is an integer k,
 * Guava's one rounding gives k while the paper's two can give k - 1
 * (key -4887040210034938806, n = 64: Guava 48, the paper 63).
 *
 * Exit status: 0 ok, 1 error (message on stderr).
 */

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import com.google.common.hash.HashCode;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;

public final class GuavaRoutes {
    private static final String USAGE = "usage: GuavaRoutes [--hashcode FUNCTION|hex] SERVERS KEYS > ROUTES";

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

    static HashFunction hashFunction(String name) throws Failure {
        try {
            Method m = Hashing.class.getMethod(name);
            if (Modifier.isStatic(m.getModifiers()) && HashFunction.class.isAssignableFrom(m.getReturnType()))
                return (HashFunction) m.invoke(null);
        } catch (ReflectiveOperationException e) {
            // not a factory
        }
        throw new Failure("no Hashing." + name + "() in this Guava");
    }

    static void run(String[] argv) throws Exception {
        String hashcode = null;
        List<String> files = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("--hashcode") && i + 1 < argv.length)
                hashcode = argv[++i];
            else if (argv[i].startsWith("--"))
                throw new Failure(USAGE);
            else
                files.add(argv[i]);
        }
        if (files.size() != 2)
            throw new Failure(USAGE);
        HashFunction function = hashcode == null || hashcode.equals("hex") ? null : hashFunction(hashcode);

        List<String> names = new ArrayList<>();
        for (String line : readLines(files.get(0))) {
            if (line.isEmpty())
                continue;
            String[] f = line.split("\t", -1);
            if (f.length != 2)
                throw new Failure(files.get(0) + ": not name<TAB>weight: " + line);
            int weight;
            try {
                weight = Integer.parseInt(f[1]);
            } catch (NumberFormatException e) {
                weight = 0;
            }
            if (weight <= 0)
                throw new Failure(files.get(0) + ": weight is not a positive integer: " + line);
            names.add(f[0]);
        }
        int buckets = names.size();
        if (buckets == 0)
            throw new Failure(files.get(0) + ": no servers");

        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        for (String key : readLines(files.get(1))) {
            int bucket;
            if (hashcode == null) {
                long input;
                try {
                    input = Long.parseLong(key);
                } catch (NumberFormatException e) {
                    throw new Failure(files.get(1) + ": not a decimal long: " + key);
                }
                bucket = Hashing.consistentHash(input, buckets);
            } else if (function == null) {
                HashCode code;
                try {
                    code = HashCode.fromString(key);
                } catch (IllegalArgumentException e) {
                    throw new Failure(files.get(1) + ": not a hex HashCode: " + key);
                }
                bucket = Hashing.consistentHash(code, buckets);
            } else {
                bucket = Hashing.consistentHash(function.hashString(key, StandardCharsets.UTF_8), buckets);
            }
            if (bucket < 0 || bucket >= buckets)
                throw new Failure("bucket " + bucket + " out of range for key " + key);
            out.write(names.get(bucket));
            out.write('\n');
        }
        out.flush();
        if (System.out.checkError())
            throw new Failure("write error on standard output");
    }

    public static void main(String[] argv) {
        try {
            run(argv);
        } catch (Failure e) {
            System.err.println("GuavaRoutes: " + e.getMessage());
            System.exit(1);
        } catch (Throwable e) {
            System.err.print("GuavaRoutes: ");
            e.printStackTrace();
            System.exit(1);
        }
    }
}
