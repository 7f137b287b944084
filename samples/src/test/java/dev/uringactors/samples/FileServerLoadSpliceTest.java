package dev.uringactors.samples;

/** {@link FileServerLoad} with files sent by SPLICE through a pipe. */
class FileServerLoadSpliceTest extends FileServerLoad {
    @Override
    String spliceThreshold() {
        return "4 KiB";
    }
}
