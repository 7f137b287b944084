package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.OpenedFile;
import org.apache.pekko.Done;
import org.apache.pekko.util.ByteString;

import java.nio.ByteBuffer;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The file calls behind {@code UringFiles}, one per request of the file protocol, each completing with the answer
 * the file actor would give: on the rings by asking it ({@link AskedFileCalls}), on the JDK backend by running
 * the JDK's call on the file dispatcher. The arguments are the caller's to keep: none is changed or kept after.
 */
public interface FileCalls {
    /** Opens {@code path} for requests to file actor {@code ring}. */
    CompletionStage<FileHandle> open(int ring, Path path, Set<? extends OpenOption> options);

    /** Opens {@code path} beneath the open {@code directory}, or fails with EXDEV. */
    CompletionStage<FileHandle> openBeneath(FileHandle directory, Path path, Set<? extends OpenOption> options);

    /** {@link #openBeneath}, answered with the file and its stat. */
    CompletionStage<OpenedFile> openBeneathWithStat(FileHandle directory, Path path, Set<? extends OpenOption> options);

    /** Up to {@code length} bytes at {@code position}. */
    CompletionStage<ByteString> read(FileHandle file, long position, int length);

    /** What {@code reader} makes of up to {@code length} bytes at {@code position}. */
    <T> CompletionStage<T> read(FileHandle file, long position, int length, Function<ByteBuffer, T> reader);

    /** Up to {@code length} bytes at each of {@code positions}, in their order. */
    CompletionStage<List<ByteString>> read(FileHandle file, long[] positions, int length);

    /** The whole of the file at {@code path}, through file actor {@code ring}. */
    CompletionStage<ByteString> readAll(int ring, Path path);

    /** Writes all of {@code data} at {@code position}. */
    CompletionStage<Integer> write(FileHandle file, long position, ByteString data);

    /** fsync, or fdatasync when {@code dataOnly}. */
    CompletionStage<Done> fsync(FileHandle file, boolean dataOnly);

    /** The metadata of {@code path}, through file actor {@code ring}. */
    CompletionStage<FileStat> stat(int ring, Path path);

    /** The metadata of the open {@code file}. */
    CompletionStage<FileStat> stat(FileHandle file);

    /** Closes {@code file} once the requests taken before are done. */
    CompletionStage<Done> close(FileHandle file);
}
