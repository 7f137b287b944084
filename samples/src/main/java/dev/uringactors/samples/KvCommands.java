package dev.uringactors.samples;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The commands the kv sample knows, their arity (as redis-server counts it: the name included, negative for
 * "at least"), how a connection carries each out, and the answers of those that need no key.
 */
final class KvCommands {
    /** How a command is carried out. */
    enum Route {
        /** Answered by the connection. */
        CONNECTION,
        /** One key, by the shard holding it. */
        ONE_KEY,
        /** One request per key (MGET, MSET, DEL and EXISTS of several keys), the answers combined. */
        PER_KEY,
        /** One request per shard, the counts summed (DBSIZE). */
        EVERY_SHARD
    }

    record Spec(int arity, Route route) {
        boolean arityOk(int args) {
            return arity >= 0 ? args == arity : args >= -arity;
        }
    }

    private static final Map<String, Spec> SPECS = Map.ofEntries(
            Map.entry("PING", new Spec(-1, Route.CONNECTION)),
            Map.entry("ECHO", new Spec(2, Route.CONNECTION)),
            Map.entry("QUIT", new Spec(-1, Route.CONNECTION)),
            Map.entry("SELECT", new Spec(2, Route.CONNECTION)),
            Map.entry("CLIENT", new Spec(-2, Route.CONNECTION)),
            Map.entry("COMMAND", new Spec(-1, Route.CONNECTION)),
            Map.entry("CONFIG", new Spec(-2, Route.CONNECTION)),
            Map.entry("INFO", new Spec(-1, Route.CONNECTION)),
            Map.entry("GET", new Spec(2, Route.ONE_KEY)),
            Map.entry("SET", new Spec(-3, Route.ONE_KEY)),
            Map.entry("INCR", new Spec(2, Route.ONE_KEY)),
            Map.entry("DECR", new Spec(2, Route.ONE_KEY)),
            Map.entry("INCRBY", new Spec(3, Route.ONE_KEY)),
            Map.entry("DECRBY", new Spec(3, Route.ONE_KEY)),
            Map.entry("EXPIRE", new Spec(3, Route.ONE_KEY)),
            Map.entry("PEXPIRE", new Spec(3, Route.ONE_KEY)),
            Map.entry("TTL", new Spec(2, Route.ONE_KEY)),
            Map.entry("PTTL", new Spec(2, Route.ONE_KEY)),
            Map.entry("DEL", new Spec(-2, Route.PER_KEY)),
            Map.entry("EXISTS", new Spec(-2, Route.PER_KEY)),
            Map.entry("MGET", new Spec(-2, Route.PER_KEY)),
            Map.entry("MSET", new Spec(-3, Route.PER_KEY)),
            Map.entry("DBSIZE", new Spec(1, Route.EVERY_SHARD)));

    private static final byte[] PONG = "+PONG\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EMPTY_ARRAY = "*0\r\n".getBytes(StandardCharsets.US_ASCII);

    private KvCommands() {
    }

    /** The command's spec, or null for a command the sample does not know. */
    static Spec spec(String name) {
        return SPECS.get(name);
    }

    static byte[] unknown(List<byte[]> args) {
        StringBuilder m = new StringBuilder("ERR unknown command '").append(shown(args.get(0)))
                .append("', with args beginning with: ");
        for (int i = 1; i < args.size(); i++) {
            m.append('\'').append(shown(args.get(i))).append("' ");
        }
        return RespOut.errorReply(m.toString());
    }

    static byte[] wrongArity(String name) {
        return RespOut.errorReply("ERR wrong number of arguments for '" + name.toLowerCase(Locale.ROOT) + "' command");
    }

    /** An argument as an error line may show it: at most 128 bytes, CR and LF as spaces. */
    private static String shown(byte[] arg) {
        String s = KvShardState.ascii(arg);
        return (s.length() > 128 ? s.substring(0, 128) : s).replace('\r', ' ').replace('\n', ' ');
    }

    /** What the connection needs to answer its own commands. */
    interface Connection {
        long id();

        String name();

        void name(String name);

        int port();

        boolean appendOnly();

        String fsync();

        /** The cluster's members that are up, as this node sees them. */
        int membersUp();
    }

    /** The answer to a {@link Route#CONNECTION} command other than QUIT. */
    static byte[] answer(String name, List<byte[]> args, Connection c) {
        String sub = args.size() > 1 ? KvShardState.ascii(args.get(1)).toUpperCase(Locale.ROOT) : "";
        return switch (name) {
            case "PING" -> args.size() == 1 ? PONG : args.size() == 2 ? RespOut.bulkReply(args.get(1))
                    : wrongArity(name);
            case "ECHO" -> RespOut.bulkReply(args.get(1));
            case "SELECT" -> {
                Long db = KvShardState.integer(args.get(1));
                yield db == null ? RespOut.errorReply("ERR value is not an integer or out of range")
                        : db == 0 ? RespOut.OK : RespOut.errorReply("ERR DB index is out of range");
            }
            case "CLIENT" -> client(sub, args, c);
            case "COMMAND" -> switch (sub) {
                case "", "DOCS", "INFO" -> EMPTY_ARRAY; // redis-cli asks for the docs; it does without them
                case "COUNT" -> RespOut.integerReply(SPECS.size());
                default -> unknownSubcommand(args.get(1), name);
            };
            case "CONFIG" -> sub.equals("GET") && args.size() > 2 ? configGet(args.subList(2, args.size()), c)
                    : sub.equals("GET") ? wrongArity("config|get") : unknownSubcommand(args.get(1), name);
            case "INFO" -> RespOut.bulkReply(info(c).getBytes(StandardCharsets.UTF_8));
            default -> throw new IllegalArgumentException("not a connection command: " + name);
        };
    }

    private static byte[] unknownSubcommand(byte[] sub, String name) {
        return RespOut.errorReply("ERR unknown subcommand '" + shown(sub) + "'. Try " + name + " HELP.");
    }

    private static byte[] client(String sub, List<byte[]> args, Connection c) {
        return switch (sub) {
            case "SETNAME" -> {
                if (args.size() != 3) {
                    yield wrongArity("client|setname");
                }
                String n = KvShardState.ascii(args.get(2));
                if (!n.chars().allMatch(ch -> ch > ' ' && ch <= '~')) {
                    yield RespOut.errorReply("ERR Client names cannot contain spaces, newlines or special characters.");
                }
                c.name(n);
                yield RespOut.OK;
            }
            case "GETNAME" -> RespOut.bulkReply(c.name().isEmpty() ? null : c.name().getBytes(StandardCharsets.ISO_8859_1));
            case "ID" -> RespOut.integerReply(c.id());
            default -> unknownSubcommand(args.get(1), "CLIENT");
        };
    }

    /**
     * CONFIG GET as redis-server 7 answers it: for each parameter (a glob), the matching names and values, flat,
     * each name once; none match: an empty array.
     */
    private static byte[] configGet(List<byte[]> patterns, Connection c) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("save", ""); // this store takes no snapshots
        config.put("appendonly", c.appendOnly() ? "yes" : "no");
        config.put("appendfsync", c.fsync());
        config.put("port", Integer.toString(c.port()));
        config.put("databases", "1");
        config.put("maxmemory", "0");
        config.put("timeout", "0");
        List<String> matched = new ArrayList<>();
        for (byte[] p : patterns) {
            Pattern glob = glob(KvShardState.ascii(p).toLowerCase(Locale.ROOT));
            config.keySet().stream().filter(k -> glob.matcher(k).matches() && !matched.contains(k))
                    .forEach(matched::add);
        }
        RespOut out = new RespOut().arrayHeader(matched.size() * 2);
        matched.forEach(k -> out.bulk(k).bulk(config.get(k)));
        return out.toArray();
    }

    private static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char ch : glob.toCharArray()) {
            regex.append(ch == '*' ? ".*" : ch == '?' ? "." : Pattern.quote(String.valueOf(ch)));
        }
        return Pattern.compile(regex.toString());
    }

    private static String info(Connection c) {
        return "# Server\r\nredis_version:7.0.0\r\nredis_mode:standalone\r\nserver_name:uring-actors-kv\r\n"
                + "tcp_port:" + c.port() + "\r\n\r\n# Persistence\r\naof_enabled:" + (c.appendOnly() ? 1 : 0)
                + "\r\n\r\n# Cluster\r\ncluster_members_up:" + c.membersUp() + "\r\n";
    }
}
