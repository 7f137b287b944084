package dev.uringactors.samples;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Arguments that name no usable path are wrong arguments: exit 2, with the usage, before anything starts. */
class WrongArgumentsTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "files --root /nonexistent                    | --root /nonexistent: not a directory",
        "files --root /etc/hostname                   | --root /etc/hostname: not a directory",
        "pekko-http --port 0 --root /nonexistent      | --root /nonexistent: not a directory",
        "kv --port 0 --aof /nonexistent               | --aof /nonexistent: not a directory",
        "kv --port 0 --fsync always                   | --fsync goes with --aof DIR",
        "kv --port 0 --aof /tmp --fsync sometimes     | --fsync sometimes: always, everysec or no",
        "kv --port 0 --seeds 127.0.0.1:2551           | --seeds goes with --cluster HOST:PORT",
        "kv --port 0 --cluster 2551                   | --cluster 2551: not HOST:PORT",
        "kv --port 0 --cluster 127.0.0.1:x            | --cluster 127.0.0.1:x: not HOST:PORT",
    })
    void aRootThatIsNoDirectoryIsAWrongArgument(String args, String message) {
        SampleCommand.Outcome outcome = SampleCommand.run(args.split(" "));
        assertEquals(2, outcome.status(), outcome.errors());
        assertTrue(outcome.errors().startsWith("error: " + message + "\nusage:"), outcome.errors());
    }
}
