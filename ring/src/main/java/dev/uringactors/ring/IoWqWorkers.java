package dev.uringactors.ring;

/**
 * The most io-wq worker threads of each kind one thread's io-wq may run ({@link Ring#registerIoWqMaxWorkers}).
 *
 * @param bounded workers for work that ends in bounded time: regular files and block devices
 * @param unbounded workers for work that may wait without end: SPLICE, requests on files that cannot be polled
 */
public record IoWqWorkers(int bounded, int unbounded) {
}
