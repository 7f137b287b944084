package dev.uringactors.samples.docs;

import com.typesafe.config.Config;
import dev.uringactors.actors.RingFigure;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps README.md and docs/ true to the code: every Java snippet is a copy of a marked region of a source file
 * the build compiles (a module's, or an example's, which {@link QuickStartTest} builds), every setting a HOCON
 * snippet or the prose names exists in a reference.conf, and every relative link and anchor resolves.
 */
class DocsTest {
    /** The repository: the first directory up from here that holds README.md and docs/. */
    static final Path ROOT = findRoot();
    private static final Pattern SNIPPET_START = Pattern.compile("^\\s*// snippet:([a-z0-9-]+)\\s*$");
    private static final Pattern SNIPPET_END = Pattern.compile("^\\s*// end\\s*$");
    private static final Pattern SNIPPET_MARK = Pattern.compile("^<!-- snippet:([a-z0-9-]+) -->$");
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern SETTING = Pattern.compile("^((?:uring|samples)\\.[a-z0-9.-]*[a-z0-9])(\\s*=.*)?$");
    /** Meter names, not settings, that share a setting's prefix: the rings' figures, and the wildcards. */
    private static final Set<String> METERS = RingFigure.ALL.stream().map(RingFigure::meter)
            .collect(Collectors.toSet());

    private static Path findRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs")))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no README.md and docs/ above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** README.md and every Markdown file under docs/. */
    static List<Path> markdownFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    /** A fenced block: its language, its lines, the line before its fence, where it starts. */
    record Block(String language, List<String> lines, String before, int line) {
        String text() {
            return String.join("\n", lines);
        }
    }

    /** What lies outside the fences (fenced lines are blank here, so line numbers hold), and the fences. */
    record Parsed(List<String> prose, List<Block> blocks) {
    }

    static Parsed parse(Path file) {
        List<String> lines = read(file);
        List<String> prose = new ArrayList<>();
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                String language = line.substring(3).trim();
                String before = "";
                for (int j = i - 1; j >= 0 && before.isEmpty(); j--) {
                    before = lines.get(j).trim();
                }
                int start = i + 1;
                List<String> body = new ArrayList<>();
                prose.add("");
                while (++i < lines.size() && !lines.get(i).startsWith("```")) {
                    body.add(lines.get(i));
                    prose.add("");
                }
                prose.add("");
                blocks.add(new Block(language, body, before, start));
            } else if (line.startsWith("    ") && (prose.isEmpty() || prose.get(prose.size() - 1).isBlank()
                    || prose.get(prose.size() - 1).startsWith("    "))) {
                prose.add("    "); // an indented code block: neither links nor settings
            } else {
                prose.add(line);
            }
        }
        return new Parsed(prose, blocks);
    }

    /** Every {@code // snippet:NAME} ... {@code // end} region of the sources the build compiles, dedented. */
    static Map<String, String> snippets() throws IOException {
        Map<String, String> snippets = new HashMap<>();
        Map<String, Path> where = new HashMap<>();
        List<Path> sources;
        try (Stream<Path> all = Files.walk(ROOT)) {
            sources = all.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> ROOT.relativize(p).toString()
                            .matches("([a-z]+|examples/[a-z0-9-]+)/src/(main|test)/java/.*"))
                    .sorted().toList();
        }
        for (Path source : sources) {
            List<String> lines = read(source);
            for (int i = 0; i < lines.size(); i++) {
                Matcher start = SNIPPET_START.matcher(lines.get(i));
                if (!start.matches()) {
                    continue;
                }
                List<String> body = new ArrayList<>();
                int j = i + 1;
                while (j < lines.size() && !SNIPPET_END.matcher(lines.get(j)).matches()) {
                    body.add(lines.get(j++));
                }
                assertTrue(j < lines.size(), source + ":" + (i + 1) + ": snippet " + start.group(1) + " has no // end");
                Path earlier = where.put(start.group(1), source);
                assertTrue(earlier == null, "snippet " + start.group(1) + " in " + earlier + " and " + source);
                snippets.put(start.group(1), dedent(body));
                i = j;
            }
        }
        return snippets;
    }

    static String dedent(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing())
                .collect(Collectors.joining("\n"));
    }

    @Test
    void everyJavaSnippetIsACopyOfCompiledSource() throws IOException {
        Map<String, String> snippets = snippets();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path file : markdownFiles()) {
            for (Block block : parse(file).blocks()) {
                if (!block.language().equals("java")) {
                    continue;
                }
                String at = ROOT.relativize(file) + ":" + block.line();
                Matcher mark = SNIPPET_MARK.matcher(block.before());
                if (!mark.matches()) {
                    problems.add(at + ": a java block without <!-- snippet:NAME --> on the line before it");
                    continue;
                }
                String source = snippets.get(mark.group(1));
                if (source == null) {
                    problems.add(at + ": no source has // snippet:" + mark.group(1));
                } else if (!source.equals(dedent(block.lines()))) {
                    problems.add(at + ": snippet " + mark.group(1) + " differs from its source:\n" + source);
                }
                checked++;
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(checked >= 4, "the README alone has four Java examples; found " + checked);
    }

    /** The project's own reference.conf files, merged, unresolved (one is filtered by Maven). */
    static ConfigObject projectReference() {
        Config merged = ConfigFactory.empty();
        for (String module : List.of("config", "http", "samples")) {
            Path file = ROOT.resolve(module).resolve("src/main/resources/reference.conf");
            merged = merged.withFallback(ConfigFactory.parseFile(file.toFile(),
                    ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF)));
        }
        return merged.root();
    }

    static boolean has(ConfigObject root, String path) {
        ConfigValue value = root;
        for (String key : path.split("\\.")) {
            if (!(value instanceof ConfigObject object) || !object.containsKey(key)) {
                return false;
            }
            value = object.get(key);
        }
        return true;
    }

    @Test
    void everySettingASnippetOrTheProseNamesExists() throws IOException {
        ConfigObject project = projectReference();
        Config pekko = ConfigFactory.defaultReference(); // Pekko's and pekko-http's, from the class path
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path file : markdownFiles()) {
            Parsed parsed = parse(file);
            for (Block block : parsed.blocks()) {
                if (!block.language().equals("hocon")) {
                    continue;
                }
                String at = ROOT.relativize(file) + ":" + block.line();
                Config snippet = ConfigFactory.parseString(block.text());
                for (String top : snippet.root().keySet()) {
                    Config under = snippet.getConfig(quote(top));
                    if (top.equals("uring") || top.equals("samples")) {
                        for (Map.Entry<String, ConfigValue> e : under.entrySet()) {
                            String path = top + "." + e.getKey();
                            checked++;
                            if (!has(project, path)) {
                                problems.add(at + ": " + path + " is in no reference.conf of the project");
                            }
                        }
                    } else if (top.equals("pekko")) {
                        for (Map.Entry<String, ConfigValue> e : under.entrySet()) {
                            String path = top + "." + e.getKey();
                            checked++;
                            if (!pekko.hasPathOrNull(path)) {
                                problems.add(at + ": " + path + " is no Pekko setting");
                            }
                        }
                    } else if (!under.hasPath("type") && !under.hasPath("executor")) {
                        problems.add(at + ": " + top + " is neither a setting of the project or Pekko nor a"
                                + " dispatcher of the user's");
                    }
                }
            }
            List<String> prose = parsed.prose();
            for (int i = 0; i < prose.size(); i++) {
                Matcher code = INLINE_CODE.matcher(prose.get(i));
                while (code.find()) {
                    Matcher setting = SETTING.matcher(code.group(1).trim());
                    if (setting.matches() && !METERS.contains(setting.group(1))) {
                        checked++;
                        if (!has(project, setting.group(1))) {
                            problems.add(ROOT.relativize(file) + ":" + (i + 1) + ": `" + setting.group(1)
                                    + "` is in no reference.conf of the project");
                        }
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(checked > 0, "no setting checked");
    }

    private static String quote(String key) {
        return "\"" + key + "\"";
    }

    /** GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to hyphens. */
    static String anchor(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1").toLowerCase(java.util.Locale.ROOT);
        StringBuilder b = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                b.appendCodePoint(c);
            } else if (c == ' ') {
                b.append('-');
            }
        });
        return b.toString();
    }

    /** The anchors a Markdown file's headings make, repeated ones numbered as GitHub numbers them. */
    static Set<String> anchors(Path file) {
        Map<String, Integer> seen = new LinkedHashMap<>();
        Set<String> anchors = new java.util.HashSet<>();
        for (String line : parse(file).prose()) {
            Matcher heading = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$").matcher(line);
            if (heading.matches()) {
                String a = anchor(heading.group(1));
                int n = seen.merge(a, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? a : a + "-" + n);
            }
        }
        return anchors;
    }

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path file : markdownFiles()) {
            List<String> prose = parse(file).prose();
            for (int i = 0; i < prose.size(); i++) {
                String line = INLINE_CODE.matcher(prose.get(i)).replaceAll("");
                Matcher link = LINK.matcher(line);
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                        continue; // https:, mailto:: not ours to check here
                    }
                    checked++;
                    String at = ROOT.relativize(file) + ":" + (i + 1) + ": " + target;
                    int hash = target.indexOf('#');
                    String path = hash < 0 ? target : target.substring(0, hash);
                    Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                    if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                        problems.add(at + ": no such file");
                    } else if (hash >= 0 && resolved.toString().endsWith(".md")
                            && !anchors(resolved).contains(target.substring(hash + 1))) {
                        problems.add(at + ": no such heading in " + ROOT.relativize(resolved));
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(checked > 0, "no link checked");
    }

    @Test
    void theReadmeIsShort() {
        List<String> lines = read(ROOT.resolve("README.md"));
        assertTrue(lines.size() <= 160, "README.md has " + lines.size() + " lines; the guide is for the rest");
        for (int i = 0; i < lines.size(); i++) {
            assertFalse(lines.get(i).length() > 120, "README.md:" + (i + 1) + " is over 120 characters");
        }
    }

    static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
