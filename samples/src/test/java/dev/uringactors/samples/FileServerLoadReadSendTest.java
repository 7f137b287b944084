package dev.uringactors.samples;

/** {@link FileServerLoad} with files sent by READ into native memory, then SEND. */
class FileServerLoadReadSendTest extends FileServerLoad {
    @Override
    String spliceThreshold() {
        return "off";
    }
}
