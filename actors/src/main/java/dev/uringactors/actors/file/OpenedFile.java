package dev.uringactors.actors.file;

/** A file just opened, and its stat taken through the descriptor the open gave: of that very file. */
public record OpenedFile(FileHandle file, FileStat stat) {
}
