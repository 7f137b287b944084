package dev.uringactors.samples;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The commands the kv sample answers: each one's arity (as redis-server counts it: the name included, negative
 * for "at least"), how a connection carries it out, what COMMAND INFO says of it (redis-server 7.0's flags, key
 * positions, ACL categories, tips and key specs for the same command), and the answers of those that need no
 * key. COMMAND, COMMAND COUNT and COMMAND INFO are made from this one table, so that they list exactly what is
 * answered.
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
        /** One request per shard, the answers combined (DBSIZE, KEYS, FLUSHDB, FLUSHALL). */
        EVERY_SHARD
    }

    /**
     * A key spec of COMMAND INFO: the keys start at the first argument and run to {@code lastKey} (0: that one,
     * -1: the last argument) every {@code keyStep}.
     */
    record KeySpec(String notes, List<String> flags, int lastKey, int keyStep) {
    }

    /**
     * A command, or a container's subcommand (its name {@code container|sub}), as COMMAND INFO shows it. The
     * flags are redis-server's command flags, the categories its ACL categories (with their @), the tips its
     * command tips.
     */
    record Spec(String name, int arity, Route route, List<String> flags, List<String> categories, List<String> tips,
                List<KeySpec> keySpecs, List<Spec> subcommands) {
        boolean arityOk(int args) {
            return arity >= 0 ? args == arity : args >= -arity;
        }

        /** The subcommand {@code sub} (any case), or null. */
        Spec subcommand(String sub) {
            String full = name + "|" + sub.toLowerCase(Locale.ROOT);
            return subcommands.stream().filter(s -> s.name.equals(full)).findFirst().orElse(null);
        }

        int firstKey() {
            return keySpecs.isEmpty() ? 0 : 1;
        }

        int lastKey() {
            return keySpecs.isEmpty() ? 0 : keySpecs.get(0).lastKey() == 0 ? 1 : keySpecs.get(0).lastKey();
        }

        int keyStep() {
            return keySpecs.isEmpty() ? 0 : keySpecs.get(0).keyStep();
        }
    }

    private static List<String> words(String s) {
        return s.isEmpty() ? List.of() : List.of(s.split(" "));
    }

    private static KeySpec key(String flags) {
        return new KeySpec(null, words(flags), 0, 1);
    }

    private static Spec cmd(String name, int arity, Route route, String flags, String categories, String tips,
                            KeySpec... keys) {
        return new Spec(name, arity, route, words(flags), words(categories), words(tips), List.of(keys), List.of());
    }

    private static Spec container(String name, int arity, String flags, String categories, String tips,
                                  Spec... subcommands) {
        return new Spec(name, arity, Route.CONNECTION, words(flags), words(categories), words(tips), List.of(),
                List.of(subcommands));
    }

    private static final String CONNECTION = "@slow @connection";
    private static final String ONE_KEY_WRITE = "@write @string @fast";

    /** The commands, in COMMAND's order; the figures are redis-server 7.0.15's COMMAND INFO for each. */
    private static final List<Spec> COMMANDS = List.of(
            cmd("ping", -1, Route.CONNECTION, "fast", "@fast @connection",
                    "request_policy:all_shards response_policy:all_succeeded"),
            cmd("echo", 2, Route.CONNECTION, "loading stale fast", "@fast @connection", ""),
            cmd("quit", -1, Route.CONNECTION, "noscript loading stale fast no_auth allow_busy", "@fast @connection",
                    ""),
            cmd("select", 2, Route.CONNECTION, "loading stale fast", "@fast @connection", ""),
            container("client", -2, "", "@slow", "",
                    cmd("client|id", 2, Route.CONNECTION, "noscript loading stale", CONNECTION, ""),
                    cmd("client|setname", 3, Route.CONNECTION, "noscript loading stale", CONNECTION, ""),
                    cmd("client|getname", 2, Route.CONNECTION, "noscript loading stale", CONNECTION, ""),
                    cmd("client|help", 2, Route.CONNECTION, "loading stale", CONNECTION, "")),
            new Spec("command", -1, Route.CONNECTION, words("loading stale"), words(CONNECTION),
                    words("nondeterministic_output_order"), List.of(), List.of(
                    cmd("command|count", 2, Route.CONNECTION, "loading stale", CONNECTION, ""),
                    cmd("command|info", -2, Route.CONNECTION, "loading stale", CONNECTION,
                            "nondeterministic_output_order"),
                    cmd("command|docs", -2, Route.CONNECTION, "loading stale", CONNECTION,
                            "nondeterministic_output_order"),
                    cmd("command|help", 2, Route.CONNECTION, "loading stale", CONNECTION, ""))),
            container("config", -2, "", "@slow", "",
                    cmd("config|get", -3, Route.CONNECTION, "admin noscript loading stale",
                            "@admin @slow @dangerous", ""),
                    cmd("config|help", 2, Route.CONNECTION, "loading stale", "@slow", "")),
            cmd("info", -1, Route.CONNECTION, "loading stale", "@slow @dangerous",
                    "nondeterministic_output request_policy:all_shards response_policy:special"),
            cmd("get", 2, Route.ONE_KEY, "readonly fast", "@read @string @fast", "", key("RO access")),
            cmd("set", -3, Route.ONE_KEY, "write denyoom", "@write @string @slow", "",
                    new KeySpec("RW and ACCESS due to the optional `GET` argument",
                            words("RW access update variable_flags"), 0, 1)),
            cmd("setex", 4, Route.ONE_KEY, "write denyoom", "@write @string @slow", "", key("OW update")),
            cmd("psetex", 4, Route.ONE_KEY, "write denyoom", "@write @string @slow", "", key("OW update")),
            cmd("getex", -2, Route.ONE_KEY, "write fast", ONE_KEY_WRITE, "",
                    new KeySpec("RW and UPDATE because it changes the TTL", words("RW access update"), 0, 1)),
            cmd("getdel", 2, Route.ONE_KEY, "write fast", ONE_KEY_WRITE, "", key("RW access delete")),
            cmd("append", 3, Route.ONE_KEY, "write denyoom fast", ONE_KEY_WRITE, "", key("RW insert")),
            cmd("strlen", 2, Route.ONE_KEY, "readonly fast", "@read @string @fast", "", key("RO")),
            cmd("incr", 2, Route.ONE_KEY, "write denyoom fast", ONE_KEY_WRITE, "", key("RW access update")),
            cmd("decr", 2, Route.ONE_KEY, "write denyoom fast", ONE_KEY_WRITE, "", key("RW access update")),
            cmd("incrby", 3, Route.ONE_KEY, "write denyoom fast", ONE_KEY_WRITE, "", key("RW access update")),
            cmd("decrby", 3, Route.ONE_KEY, "write denyoom fast", ONE_KEY_WRITE, "", key("RW access update")),
            cmd("expire", -3, Route.ONE_KEY, "write fast", "@keyspace @write @fast", "", key("RW update")),
            cmd("pexpire", -3, Route.ONE_KEY, "write fast", "@keyspace @write @fast", "", key("RW update")),
            cmd("ttl", 2, Route.ONE_KEY, "readonly fast", "@keyspace @read @fast", "nondeterministic_output",
                    key("RO access")),
            cmd("pttl", 2, Route.ONE_KEY, "readonly fast", "@keyspace @read @fast", "nondeterministic_output",
                    key("RO access")),
            cmd("del", -2, Route.PER_KEY, "write", "@keyspace @write @slow",
                    "request_policy:multi_shard response_policy:agg_sum",
                    new KeySpec(null, words("RM delete"), -1, 1)),
            cmd("exists", -2, Route.PER_KEY, "readonly fast", "@keyspace @read @fast",
                    "request_policy:multi_shard response_policy:agg_sum", new KeySpec(null, words("RO"), -1, 1)),
            cmd("mget", -2, Route.PER_KEY, "readonly fast", "@read @string @fast", "request_policy:multi_shard",
                    new KeySpec(null, words("RO access"), -1, 1)),
            cmd("mset", -3, Route.PER_KEY, "write denyoom", "@write @string @slow",
                    "request_policy:multi_shard response_policy:all_succeeded",
                    new KeySpec(null, words("OW update"), -1, 2)),
            cmd("dbsize", 1, Route.EVERY_SHARD, "readonly fast", "@keyspace @read @fast",
                    "request_policy:all_shards response_policy:agg_sum"),
            cmd("keys", 2, Route.EVERY_SHARD, "readonly", "@keyspace @read @slow @dangerous",
                    "request_policy:all_shards nondeterministic_output_order"),
            cmd("flushdb", -1, Route.EVERY_SHARD, "write", "@keyspace @write @slow @dangerous",
                    "request_policy:all_shards response_policy:all_succeeded"),
            cmd("flushall", -1, Route.EVERY_SHARD, "write", "@keyspace @write @slow @dangerous",
                    "request_policy:all_shards response_policy:all_succeeded"));

    private static final Map<String, Spec> SPECS = new LinkedHashMap<>();

    static {
        COMMANDS.forEach(c -> SPECS.put(c.name().toUpperCase(Locale.ROOT), c));
    }

    /** The names of the commands, and of the one request only shards take (INFO's keyspace figures). */
    static final KnownNames NAMES = new KnownNames(KnownNames.Fold.UPPER,
            Stream.concat(SPECS.keySet().stream(), Stream.of("KEYSPACE")).toList());

    private static final byte[] PONG = "+PONG\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EMPTY_ARRAY = "*0\r\n".getBytes(StandardCharsets.US_ASCII);
    static final byte[] SYNTAX = RespOut.errorReply("ERR syntax error");

    private KvCommands() {
    }

    /** The command's spec, or null for a command the sample does not know. */
    static Spec spec(String name) {
        return SPECS.get(name);
    }

    /** redis-server's unknown command error: the name and the arguments, 128 bytes of them, as C prints them. */
    static byte[] unknown(List<byte[]> args) {
        StringBuilder shown = new StringBuilder();
        for (int i = 1; i < args.size() && shown.length() < 128; i++) {
            String arg = KvShardState.cString(args.get(i));
            int room = 128 - shown.length();
            shown.append('\'').append(arg, 0, Math.min(arg.length(), room)).append("' ");
        }
        return RespOut.errorReply("ERR unknown command '" + upTo128(args.get(0))
                + "', with args beginning with: " + shown);
    }

    static byte[] wrongArity(String name) {
        return RespOut.errorReply("ERR wrong number of arguments for '" + name.toLowerCase(Locale.ROOT) + "' command");
    }

    /** An argument as C's {@code %.128s} prints it. */
    private static String upTo128(byte[] arg) {
        String s = KvShardState.cString(arg);
        return s.length() > 128 ? s.substring(0, 128) : s;
    }

    /** What the connection needs to answer its own commands. */
    interface Connection {
        long id();

        String name();

        void name(String name);

        /** The port the client connected to. */
        int port();

        boolean appendOnly();

        String fsync();

        /** samples.kv.max-bulk-length, shown as proto-max-bulk-len. */
        int maxBulkLength();

        KvNode.Counters counters();

        /** The cluster's members that are up, as this node sees them. */
        int membersUp();

        /** The shards that run on this node now. */
        int shardsLocal();
    }

    /** The answer to a {@link Route#CONNECTION} command other than QUIT and INFO. */
    static byte[] answer(String name, List<byte[]> args, Connection c) {
        Spec spec = SPECS.get(name);
        if (!spec.subcommands().isEmpty() && args.size() > 1) {
            Spec sub = spec.subcommand(KvShardState.ascii(args.get(1)));
            if (sub == null) {
                return RespOut.errorReply("ERR unknown subcommand '" + upTo128(args.get(1)) + "'. Try " + name
                        + " HELP.");
            }
            if (!sub.arityOk(args.size())) {
                return wrongArity(sub.name());
            }
        }
        String sub = args.size() > 1 ? KvShardState.ascii(args.get(1)).toUpperCase(Locale.ROOT) : "";
        if (sub.equals("HELP") && !spec.subcommands().isEmpty()) {
            return help(name);
        }
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
                case "" -> commandInfo(List.of());
                case "INFO" -> commandInfo(args.subList(2, args.size()));
                case "DOCS" -> EMPTY_ARRAY; // no docs; redis-cli does without them
                case "COUNT" -> RespOut.integerReply(SPECS.size());
                default -> throw new IllegalStateException("a subcommand not handled: " + sub);
            };
            case "CONFIG" -> configGet(args.subList(2, args.size()), c);
            default -> throw new IllegalArgumentException("not a connection command: " + name);
        };
    }

    /** redis-server's help lines of the subcommands answered here. */
    private static final Map<String, List<String>> HELP = Map.of(
            "CLIENT", List.of(
                    "GETNAME",
                    "    Return the name of the current connection.",
                    "ID",
                    "    Return the ID of the current connection.",
                    "SETNAME <name>",
                    "    Assign the name <name> to the current connection."),
            "COMMAND", List.of(
                    "(no subcommand)",
                    "    Return details about all Redis commands.",
                    "COUNT",
                    "    Return the total number of commands in this Redis server.",
                    "INFO [<command-name> ...]",
                    "    Return details about multiple Redis commands.",
                    "    If no command names are given, documentation details for all",
                    "    commands are returned.",
                    "DOCS [<command-name> ...]",
                    "    Answered with no documentation (an empty array)."),
            "CONFIG", List.of(
                    "GET <pattern>",
                    "    Return parameters matching the glob-like <pattern> and their values."));

    /** CONTAINER HELP, as redis-server's addReplyHelp writes it: simple strings, HELP's own lines last. */
    private static byte[] help(String container) {
        List<String> lines = HELP.get(container);
        RespOut out = new RespOut().arrayHeader(lines.size() + 3)
                .simple(container + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        lines.forEach(out::simple);
        return out.simple("HELP").simple("    Prints this help.").toArray();
    }

    private static byte[] client(String sub, List<byte[]> args, Connection c) {
        return switch (sub) {
            case "SETNAME" -> {
                String n = KvShardState.ascii(args.get(2));
                if (!n.chars().allMatch(ch -> ch > ' ' && ch <= '~')) {
                    yield RespOut.errorReply("ERR Client names cannot contain spaces, newlines or special characters.");
                }
                c.name(n);
                yield RespOut.OK;
            }
            case "GETNAME" -> RespOut.bulkReply(c.name().isEmpty() ? null
                    : c.name().getBytes(StandardCharsets.ISO_8859_1));
            case "ID" -> RespOut.integerReply(c.id());
            default -> throw new IllegalStateException("a subcommand not handled: " + sub);
        };
    }

    /**
     * COMMAND INFO: for each name (a command, or container|subcommand, any case) its entry, or a null for a name
     * not answered here; no names: every command, as COMMAND.
     */
    private static byte[] commandInfo(List<byte[]> names) {
        RespOut out = new RespOut();
        if (names.isEmpty()) {
            out.arrayHeader(COMMANDS.size());
            COMMANDS.forEach(c -> entry(out, c));
            return out.toArray();
        }
        out.arrayHeader(names.size());
        for (byte[] n : names) {
            String[] parts = KvShardState.ascii(n).toUpperCase(Locale.ROOT).split("\\|", -1);
            Spec spec = parts.length <= 2 ? SPECS.get(parts[0]) : null;
            if (spec != null && parts.length == 2) {
                spec = spec.subcommand(parts[1]);
            }
            if (spec == null) {
                out.bulk((byte[]) null);
            } else {
                entry(out, spec);
            }
        }
        return out.toArray();
    }

    /** One command's entry, as redis-server 7.0 writes it: ten elements. */
    private static void entry(RespOut out, Spec c) {
        out.arrayHeader(10).bulk(c.name()).integer(c.arity());
        simples(out, c.flags());
        out.integer(c.firstKey()).integer(c.lastKey()).integer(c.keyStep());
        simples(out, c.categories());
        out.arrayHeader(c.tips().size());
        c.tips().forEach(out::bulk);
        out.arrayHeader(c.keySpecs().size());
        for (KeySpec k : c.keySpecs()) {
            out.arrayHeader(k.notes() == null ? 6 : 8);
            if (k.notes() != null) {
                out.bulk("notes").bulk(k.notes());
            }
            out.bulk("flags");
            simples(out, k.flags());
            out.bulk("begin_search").arrayHeader(4).bulk("type").bulk("index").bulk("spec")
                    .arrayHeader(2).bulk("index").integer(1);
            out.bulk("find_keys").arrayHeader(4).bulk("type").bulk("range").bulk("spec")
                    .arrayHeader(6).bulk("lastkey").integer(k.lastKey()).bulk("keystep").integer(k.keyStep())
                    .bulk("limit").integer(0);
        }
        out.arrayHeader(c.subcommands().size());
        c.subcommands().forEach(s -> entry(out, s));
    }

    private static void simples(RespOut out, List<String> words) {
        out.arrayHeader(words.size());
        words.forEach(out::simple);
    }

    /** The settings CONFIG GET shows, with the names redis-server gives them. */
    private static Map<String, String> config(Connection c) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("save", ""); // this store takes no snapshots
        config.put("appendonly", c.appendOnly() ? "yes" : "no");
        config.put("appendfsync", c.fsync());
        config.put("port", Integer.toString(c.port()));
        config.put("databases", "1");
        config.put("maxmemory", "0");
        config.put("maxmemory-policy", "noeviction");
        config.put("timeout", "0");
        config.put("proto-max-bulk-len", Integer.toString(c.maxBulkLength()));
        return config;
    }

    /**
     * CONFIG GET as redis-server 7.0 answers it: each parameter is a name (any case, shown as given) or, if it
     * holds * ? or [, a glob matched without case; the matches flat, name then value, each setting once.
     */
    private static byte[] configGet(List<byte[]> patterns, Connection c) {
        Map<String, String> config = config(c);
        Map<String, String> matched = new LinkedHashMap<>(); // setting -> the name shown
        for (byte[] p : patterns) {
            String pattern = KvShardState.cString(p); // a glob is read as a C string, a name is not
            if (pattern.chars().noneMatch(ch -> ch == '*' || ch == '?' || ch == '[')) {
                String name = KvShardState.ascii(p);
                String setting = name.toLowerCase(Locale.ROOT);
                if (config.containsKey(setting)) {
                    matched.putIfAbsent(setting, name);
                }
            } else {
                byte[] glob = pattern.getBytes(StandardCharsets.ISO_8859_1);
                for (String setting : config.keySet()) {
                    if (KvGlob.matches(glob, setting.getBytes(StandardCharsets.ISO_8859_1), true)) {
                        matched.putIfAbsent(setting, setting);
                    }
                }
            }
        }
        RespOut out = new RespOut().arrayHeader(matched.size() * 2);
        matched.forEach((setting, shown) -> out.bulk(shown).bulk(config.get(setting)));
        return out.toArray();
    }

    // ---- INFO ----

    /** INFO's sections, in redis-server's order; INFO with none, default, all or everything gives them all. */
    static final List<String> SECTIONS = List.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "cluster", "keyspace");

    /**
     * The sections INFO {@code args} asks for that this store has, in their order: as redis-server's
     * genInfoSectionDict reads the arguments (any case; a name it has not is skipped).
     */
    static Set<String> infoSections(List<byte[]> args) {
        if (args.size() == 1) {
            return new LinkedHashSet<>(SECTIONS);
        }
        Set<String> asked = new LinkedHashSet<>();
        for (byte[] a : args.subList(1, args.size())) {
            String s = KvShardState.cString(a).toLowerCase(Locale.ROOT);
            if (s.equals("default") || s.equals("all") || s.equals("everything")) {
                asked.addAll(SECTIONS);
            } else {
                asked.add(s);
            }
        }
        Set<String> sections = new LinkedHashSet<>();
        SECTIONS.stream().filter(asked::contains).forEach(sections::add);
        return sections;
    }

    private static final String RUN_ID = runId();
    private static final long STARTED_MILLIS = System.currentTimeMillis();

    private static String runId() {
        byte[] b = new byte[20];
        new SecureRandom().nextBytes(b);
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }

    /** The sections other than the keyspace's, each "# Name" and its fields, separated by an empty line. */
    static String info(Set<String> sections, Connection c) {
        List<String> parts = new ArrayList<>();
        for (String section : sections) {
            StringBuilder s = new StringBuilder();
            switch (section) {
                case "server" -> {
                    long now = System.currentTimeMillis();
                    long uptime = (now - STARTED_MILLIS) / 1000;
                    String arch = System.getProperty("os.arch");
                    s.append("# Server\r\n");
                    field(s, "redis_version", "7.0.15");
                    field(s, "redis_mode", "standalone");
                    field(s, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + (arch.equals("amd64") ? "x86_64" : arch));
                    field(s, "arch_bits", System.getProperty("sun.arch.data.model", "64"));
                    field(s, "multiplexing_api", "io_uring");
                    field(s, "process_id", ProcessHandle.current().pid());
                    field(s, "run_id", RUN_ID);
                    field(s, "tcp_port", c.port());
                    field(s, "server_time_usec", now * 1000);
                    field(s, "uptime_in_seconds", uptime);
                    field(s, "uptime_in_days", uptime / 86400);
                    field(s, "server_name", "uring-actors-kv");
                }
                case "clients" -> {
                    s.append("# Clients\r\n");
                    field(s, "connected_clients", c.counters().connections.sum());
                    field(s, "blocked_clients", 0);
                }
                case "memory" -> memory(s);
                case "persistence" -> {
                    s.append("# Persistence\r\n");
                    field(s, "loading", 0);
                    field(s, "aof_enabled", c.appendOnly() ? 1 : 0);
                }
                case "stats" -> {
                    s.append("# Stats\r\n");
                    field(s, "total_connections_received", c.counters().connectionsReceived.sum());
                    field(s, "total_commands_processed", c.counters().commands.sum());
                    field(s, "total_net_input_bytes", c.counters().inputBytes.sum());
                    field(s, "total_net_output_bytes", c.counters().outputBytes.sum());
                }
                case "replication" -> {
                    s.append("# Replication\r\n");
                    field(s, "role", "master");
                    field(s, "connected_slaves", 0);
                }
                case "cpu" -> cpu(s);
                case "cluster" -> {
                    s.append("# Cluster\r\n");
                    field(s, "cluster_enabled", 0); // redis-server's cluster protocol is not spoken
                    field(s, "cluster_members_up", c.membersUp());
                    field(s, "cluster_shards_local", c.shardsLocal());
                }
                default -> {
                    continue; // keyspace: from the shards
                }
            }
            parts.add(s.toString());
        }
        return String.join("\r\n", parts);
    }

    /**
     * The keyspace section from the shards' answers to KEYSPACE (each [keys, keys with a TTL, their TTLs' sum in
     * ms]): no db0 line when there are no keys, as redis-server. avg_ttl is the exact mean, where redis-server's
     * is an estimate from the keys its expiry cycle sampled. A shard that has not answered within the request
     * timeout (its node is down) is left out, so that INFO answers all the same.
     */
    static String keyspace(byte[][] answers) {
        long keys = 0;
        long expires = 0;
        long ttls = 0;
        for (byte[] a : answers) {
            if (a == null || a.length == 0 || a[0] != '*') {
                continue; // a shard that did not answer in time, or answered an error: not counted
            }
            long[] n = integers(a);
            keys += n[0];
            expires += n[1];
            ttls += n[2];
        }
        StringBuilder s = new StringBuilder("# Keyspace\r\n");
        if (keys > 0) {
            s.append("db0:keys=").append(keys).append(",expires=").append(expires).append(",avg_ttl=")
                    .append(expires == 0 ? 0 : ttls / expires).append("\r\n");
        }
        return s.toString();
    }

    /** The integers of an array reply of integers. */
    private static long[] integers(byte[] reply) {
        String[] lines = new String(reply, StandardCharsets.US_ASCII).split("\r\n");
        long[] n = new long[lines.length - 1];
        for (int i = 1; i < lines.length; i++) {
            n[i - 1] = Long.parseLong(lines[i].substring(1));
        }
        return n;
    }

    private static void field(StringBuilder s, String name, Object value) {
        s.append(name).append(':').append(value).append("\r\n");
    }

    /** The JVM's figures under redis-server's names: used_memory is the heap in use, the peak its pools' peaks. */
    private static void memory(StringBuilder s) {
        long used = 0;
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.isValid()) {
                used += pool.getUsage().getUsed();
                peak += pool.getPeakUsage().getUsed();
            }
        }
        peak = Math.max(peak, used);
        long rss = rss();
        long total = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() : 0;
        s.append("# Memory\r\n");
        field(s, "used_memory", used);
        field(s, "used_memory_human", human(used));
        field(s, "used_memory_rss", rss);
        field(s, "used_memory_rss_human", human(rss));
        field(s, "used_memory_peak", peak);
        field(s, "used_memory_peak_human", human(peak));
        field(s, "total_system_memory", total);
        field(s, "total_system_memory_human", human(total));
        field(s, "maxmemory", 0);
        field(s, "maxmemory_human", "0B");
        field(s, "maxmemory_policy", "noeviction");
        field(s, "mem_allocator", "jvm");
    }

    /** The process's resident set (VmRSS of /proc/self/status), 0 if it cannot be read. */
    private static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux's /proc
        }
        return 0;
    }

    /** redis-server's bytesToHuman. */
    static String human(long n) {
        if (n < 1024) {
            return n + "B";
        }
        String[] units = {"K", "M", "G", "T", "P"};
        double d = n;
        int unit = -1;
        while (d >= 1024 && unit < units.length - 1) {
            d /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.2f%s", d, units[unit]);
    }

    /**
     * The process's CPU time, user and system, its own and its waited-for children's, from /proc/self/stat (in
     * clock ticks of 1/100 s, the USER_HZ of Linux's ABI), in seconds as redis-server prints them.
     */
    private static void cpu(StringBuilder s) {
        long[] ticks = new long[4];
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            for (int i = 0; i < 4; i++) {
                ticks[i] = Long.parseLong(f[11 + i]); // utime, stime, cutime, cstime: fields 14 to 17
            }
        } catch (IOException | RuntimeException e) {
            // not Linux's /proc: zeros
        }
        s.append("# CPU\r\n");
        field(s, "used_cpu_sys", seconds(ticks[1]));
        field(s, "used_cpu_user", seconds(ticks[0]));
        field(s, "used_cpu_sys_children", seconds(ticks[3]));
        field(s, "used_cpu_user_children", seconds(ticks[2]));
    }

    private static String seconds(long ticks) {
        return String.format(Locale.ROOT, "%d.%06d", ticks / 100, ticks % 100 * 10_000);
    }

    /** FLUSHDB and FLUSHALL take nothing, ASYNC or SYNC (any case); anything else is a syntax error. */
    static boolean flushArgumentsOk(List<byte[]> args) {
        if (args.size() == 1) {
            return true;
        }
        String a = KvShardState.cString(args.get(1)); // strcasecmp, as there
        return args.size() == 2 && (a.equalsIgnoreCase("ASYNC") || a.equalsIgnoreCase("SYNC"));
    }
}
