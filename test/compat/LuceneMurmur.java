/*
 * Elasticsearch's routing hash, computed by Debian's Lucene (liblucene8-java).
 *
 *     java -cp /usr/share/java/lucene-core-8.7.0.jar LuceneMurmur.java < STRINGS > HASHES
 *
 * (Java's source-file mode: nothing is compiled to disk; es_routing.py runs it.)
 * STRINGS is UTF-8, one string a line; HASHES gets, for each, the signed decimal
 * int that Elasticsearch's Murmur3HashFunction.hash(String) returns: Lucene's
 * StringHelper.murmurhash3_x86_32 with seed 0 over the string's UTF-16 code
 * units, each written little-endian (2 bytes a char, surrogates as they are).
 * Malformed UTF-8 is an error (exit 1), not a replacement character.
 */
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import org.apache.lucene.util.StringHelper;

public final class LuceneMurmur {
    private LuceneMurmur() {}

    /** Murmur3HashFunction.hash(String) of Elasticsearch 7.x/8.x. */
    static int hash(String routing) {
        final int n = routing.length();
        final byte[] bytes = new byte[n * 2];
        for (int i = 0; i < n; i++) {
            final char c = routing.charAt(i);
            bytes[2 * i] = (byte) c;
            bytes[2 * i + 1] = (byte) (c >>> 8);
        }
        return StringHelper.murmurhash3_x86_32(bytes, 0, bytes.length, 0);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 0) {
            System.err.println("usage: java -cp LUCENE_CORE_JAR LuceneMurmur.java < STRINGS > HASHES");
            System.exit(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
            StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)), 1 << 16);
        BufferedWriter out = new BufferedWriter(
            new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 16);
        try {
            String line;
            while ((line = in.readLine()) != null) {
                out.write(Integer.toString(hash(line)));
                out.write('\n');
            }
        } catch (CharacterCodingException e) {
            System.err.println("LuceneMurmur: input is not UTF-8: " + e);
            System.exit(1);
        }
        out.flush();
        if (System.out.checkError()) {
            System.err.println("LuceneMurmur: write error");
            System.exit(1);
        }
    }
}
