package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.issue.BufferLease;
import dev.uringactors.actors.internal.issue.BufferPool;
import dev.uringactors.actors.internal.issue.CloseOp;
import dev.uringactors.actors.internal.issue.RingOp;
import dev.uringactors.actors.internal.issue.SimpleOp;
import dev.uringactors.actors.internal.loop.RingEvent;
import dev.uringactors.actors.internal.tcp.conn.SocketEvent;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.ring.BufferRing;
import dev.uringactors.ring.CqeFlags;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Pipe;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.SqeFlags;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;

import java.net.InetSocketAddress;

/**
 * The socket requests of listeners and connections, one small class per op. They answer their actor with a
 * message on the ring thread (a same-ring tell: no wake-up, handled next turn). An answer carries the kernel's
 * result, or says that the ring failed or shut down under the op, which then has no result; why, the owner
 * hears through its ring subscription ({@link RingEvent}).
 */
final class TcpOps {
    private TcpOps() {
    }

    /**
     * Accepts connections for a listener: multishot (one SQE, one connection per CQE, re-armed by the listener
     * when a CQE comes without F_MORE) or single-shot (one connection, then re-armed).
     */
    static final class Accept extends RingOp {
        private final int listenFd;
        private final boolean multishot;
        private final ActorRef<TcpProtocol.ListenerCommand> listener;
        private boolean cancelled;

        Accept(int listenFd, boolean multishot, ActorRef<TcpProtocol.ListenerCommand> listener) {
            this.listenFd = listenFd;
            this.multishot = multishot;
            this.listener = listener;
        }

        boolean multishot() {
            return multishot;
        }

        /** From now on, connections that still arrive are closed: nobody wants them. */
        void cancel() {
            cancelled = true;
        }

        @Override
        protected Opcode opcode() {
            return Opcode.ACCEPT;
        }

        @Override
        protected void prepare(Sqe sqe) {
            // Non-blocking: a SPLICE into a full socket then fails with EAGAIN instead of parking a kernel worker.
            int flags = OpFlags.SOCK_CLOEXEC | Sockets.SOCK_NONBLOCK;
            if (multishot) {
                sqe.prepMultishotAccept(listenFd, flags);
            } else {
                sqe.prepAccept(listenFd, 0, 0, flags);
            }
        }

        @Override
        protected boolean complete(int res, int flags, int ringFlags) {
            if (res >= 0) {
                if (cancelled) {
                    Descriptors.close(res);
                } else {
                    listener.tell(new TcpListener.Accepted(res));
                }
            }
            if (CqeFlags.isFinal(flags)) {
                listener.tell(new TcpListener.AcceptEnded(this, Math.min(res, 0), false));
                markAnswered();
            }
            return true;
        }

        @Override
        protected void fail(Throwable cause) {
            cancelled = true;
            listener.tell(new TcpListener.AcceptEnded(this, 0, true));
        }

        @Override
        protected void drained(int res, int flags) {
            if (res >= 0) {
                Descriptors.close(res);
            }
        }
    }

    /**
     * Multishot recv from the ring's provided buffers: each chunk is copied into a {@code ByteString} for the
     * handler, and the buffer goes back to the kernel as soon as the kernel is done with it. With a limit, it ends
     * at the completion that brings it to that many bytes, to be armed again if reading is still wanted.
     */
    static final class MultishotRecv extends RingOp {
        private final int fd;
        private final BufferRing buffers;
        private final ActorRef<TcpProtocol.Event> handler;
        private final ActorRef<Object> connection;
        private final Runnable onData;
        private final int limit;

        MultishotRecv(int fd, BufferRing buffers, int limit, ActorRef<TcpProtocol.Event> handler,
                      ActorRef<Object> connection, Runnable onData) {
            this.fd = fd;
            this.buffers = buffers;
            this.limit = limit;
            this.handler = handler;
            this.connection = connection;
            this.onData = onData;
        }

        @Override
        protected Opcode opcode() {
            return Opcode.RECV;
        }

        @Override
        protected void prepare(Sqe sqe) {
            sqe.prepRecvMultishot(fd, buffers.group(), 0, limit);
        }

        /** The bytes after which it ends, 0 for none. */
        int limit() {
            return limit;
        }

        @Override
        protected boolean complete(int res, int flags, int ringFlags) {
            if (res > 0 && (flags & CqeFlags.F_BUFFER) != 0) {
                onData.run();
                handler.tell(new TcpProtocol.Received(ByteString.fromArrayUnsafe(buffers.take(flags, res))));
            }
            if (CqeFlags.isFinal(flags)) {
                connection.tell(new RingSocket.RecvEnded(res, false));
                markAnswered();
            }
            return true;
        }

        @Override
        protected void fail(Throwable cause) {
            connection.tell(new RingSocket.RecvEnded(0, true));
        }

        /** Nobody reads what still arrives: its buffer goes back to the ring. */
        @Override
        protected void drained(int res, int flags) {
            if (res > 0 && (flags & CqeFlags.F_BUFFER) != 0) {
                buffers.take(flags, res);
            }
        }
    }

    /**
     * Sends all of a {@code ByteString} from a pooled native buffer; a short send goes on where it stopped. With
     * {@code zeroCopy}, the first attempt is a SEND_ZC: its first CQE carries the bytes sent (with F_MORE) and
     * its notification, the final CQE, says the kernel no longer reads the buffer. If it sent less than all,
     * the rest goes as a plain SEND after that notification, so that each request has one final completion and
     * the buffer is released only after the last.
     */
    static final class Send extends Sending {
        private final int fd;
        private final ActorRef<Object> connection;
        private ByteString data;
        private int length;
        private BufferLease buffer;
        private boolean zeroCopy;
        private int sent;

        Send(int fd, ByteString data, boolean zeroCopy, ActorRef<Object> connection) {
            this.fd = fd;
            this.data = data;
            this.length = data.size();
            this.zeroCopy = zeroCopy;
            this.connection = connection;
        }

        /**
         * The same plain send, for the next {@code data}: once the answer to the last has come, which for a plain
         * SEND is its final completion (a zero-copy one answers before its notification, and is not reused).
         */
        void renew(ByteString next) {
            if (zeroCopy) {
                throw new IllegalStateException("a zero-copy send is not reused");
            }
            renew();
            data = next;
            length = next.size();
            sent = 0;
            buffer = null;
        }

        @Override
        protected BufferLease acquire(BufferPool pool) {
            buffer = pool.lease(length);
            data.copyToBuffer(buffer.buffer().asByteBuffer().clear());
            return buffer;
        }

        @Override
        protected Opcode opcode() {
            return zeroCopy ? Opcode.SEND_ZC : Opcode.SEND;
        }

        @Override
        protected void prepare(Sqe sqe) {
            if (zeroCopy) {
                sqe.prepSendZc(fd, buffer.address() + sent, length - sent, OpFlags.MSG_NOSIGNAL, 0);
            } else {
                sqe.prepSend(fd, buffer.address() + sent, length - sent, OpFlags.MSG_NOSIGNAL);
            }
        }

        @Override
        protected boolean complete(int res, int flags, int ringFlags) {
            if ((flags & CqeFlags.F_NOTIF) == 0) { // a result, not a zero-copy notification
                if (res > 0) {
                    sent += res;
                } else if (res == 0 || !(zeroCopy && res == -Errno.EOPNOTSUPP)) {
                    answer(res == 0 ? sent : res); // an error, or no progress possible
                }
                if (!answered() && sent == length) {
                    answer(sent);
                }
            }
            if (!CqeFlags.isFinal(flags) || answered()) {
                return true; // the notification is still to come, or all is sent or failed
            }
            if (stopped) {
                answer(-Errno.ECANCELED); // the connection is closing: the rest is not sent
                return true;
            }
            zeroCopy = false; // a short send, or no zero-copy on this socket: send the rest plainly
            return false;
        }

        private void answer(int result) {
            connection.tell(result >= 0 ? new SocketEvent.Sent(result) : new RingSocket.SendFailed(result, false));
            markAnswered();
        }

        @Override
        protected void fail(Throwable cause) {
            connection.tell(new RingSocket.SendFailed(0, true));
        }
    }

    /**
     * One piece of a {@link TcpProtocol.WriteFile}, in steps: fill (up to {@code length} bytes of the file at
     * {@code position} into a staging place, after {@code prefixLength} bytes already there), then drain (all of
     * them to the socket, however many sends that takes). With {@code linked}, the fill and the first drain are one
     * chain, one round trip: the fill posts nothing when it brings all it asked for (CQE_SKIP_SUCCESS), and when
     * it brings less the kernel cancels the drain without a word, which then goes alone. A drain that finds no
     * room in the (non-blocking) socket fails with EAGAIN: the piece then polls the socket for POLLOUT and
     * drains again, instead of holding a kernel worker while the peer does not read. It answers once:
     * {@link SocketEvent.Sent} with the bytes sent (fewer than asked when the file is shorter), or the
     * socket's error; {@link RingSocket.FileUnreadable} when the fill failed or found the end of the file at
     * {@code position}.
     */
    abstract static class FilePiece extends Sending {
        private enum Step { FILL, DRAIN, AWAIT_ROOM }

        final int socket;
        final int file;
        final long position;
        final int length;
        final int prefixLength;
        private final ActorRef<Object> connection;
        private Step step = Step.FILL;
        /** Whether the fill's submission links the first drain behind it. */
        private final boolean linked;
        /** Bytes staged (the prefix and what the fill brought), and how many of them went to the socket. */
        int staged;
        int sent;

        FilePiece(int socket, int file, long position, int length, int prefixLength, boolean linked,
                  ActorRef<Object> connection) {
            this.socket = socket;
            this.file = file;
            this.position = position;
            this.length = length;
            this.prefixLength = prefixLength;
            this.linked = linked;
            this.connection = connection;
        }

        abstract Opcode fillOpcode();

        abstract void prepareFill(Sqe sqe);

        abstract Opcode drainOpcode();

        /** Sends {@code staged - sent} bytes. */
        abstract void prepareDrain(Sqe sqe);

        @Override
        protected final Opcode opcode() {
            return switch (step) {
                case FILL -> fillOpcode();
                case DRAIN -> drainOpcode();
                case AWAIT_ROOM -> Opcode.POLL_ADD;
            };
        }

        @Override
        protected final void prepare(Sqe sqe) {
            switch (step) {
                case FILL -> prepareFill(sqe);
                case DRAIN -> prepareDrain(sqe);
                case AWAIT_ROOM -> sqe.prepPollAdd(socket, OpFlags.POLLOUT);
            }
        }

        @Override
        protected final int chainLength() {
            return linked && step == Step.FILL ? 2 : 1;
        }

        @Override
        protected final void prepare(Sqe sqe, int chainStep) {
            if (chainStep == 0) {
                prepare(sqe);
            } else {
                staged = prefixLength + length; // what a fill that posts nothing leaves
                prepareDrain(sqe);
            }
        }

        @Override
        protected final int link(int chainStep) {
            return SqeFlags.IO_LINK | SqeFlags.CQE_SKIP_SUCCESS;
        }

        /**
         * In a chain, a fill posts only when it brought less than asked, and is then its last completion: its
         * drain was cancelled without one, and goes alone. Every other completion is a drain's.
         */
        @Override
        protected final boolean complete(int chainStep, int res, int flags, int ringFlags) {
            if (chainStep == 1) {
                step = Step.DRAIN;
            }
            return complete(res, flags, ringFlags);
        }

        @Override
        protected final boolean complete(int res, int flags, int ringFlags) {
            switch (step) {
                case FILL -> {
                    if (res <= 0) {
                        answer(new RingSocket.FileUnreadable(res));
                        return true;
                    }
                    staged = prefixLength + res;
                    step = Step.DRAIN;
                }
                case DRAIN -> {
                    if (res == -Errno.EAGAIN) {
                        step = Step.AWAIT_ROOM;
                    } else if (res < 0) {
                        answer(new RingSocket.SendFailed(res, false));
                        return true;
                    } else {
                        sent += res;
                        if (sent == staged || res == 0) {
                            answer(new SocketEvent.Sent(sent));
                            return true;
                        }
                    }
                }
                case AWAIT_ROOM -> {
                    int error = pollError(res);
                    if (error < 0) {
                        answer(new RingSocket.SendFailed(error, false));
                        return true;
                    }
                    step = Step.DRAIN;
                }
            }
            if (stopped) {
                answer(new RingSocket.SendFailed(-Errno.ECANCELED, false)); // closing: the rest is not sent
                return true;
            }
            return false;
        }

        /**
         * 0 when the poll found room; else the error to answer with: the poll's own (ECANCELED when the closing
         * connection cancelled it), or for POLLERR and POLLHUP the socket's pending error, EPIPE if none is left.
         */
        private int pollError(int res) {
            if (res < 0) {
                return res;
            }
            if ((res & (OpFlags.POLLERR | OpFlags.POLLHUP)) == 0) {
                return 0;
            }
            int pending = Sockets.option(socket, Sockets.SOL_SOCKET, Sockets.SO_ERROR);
            return pending != 0 ? -pending : -Errno.EPIPE;
        }

        /** Its one answer: {@link SocketEvent.Sent}, or a {@link RingSocket.PieceAnswer}. */
        private void answer(Object result) {
            if (!answered()) {
                connection.tell(result);
                markAnswered();
            }
        }

        @Override
        protected final void fail(Throwable cause) {
            connection.tell(new RingSocket.SendFailed(0, true));
        }
    }

    /**
     * A file piece through a pooled native buffer: READ after the {@code prefix} (what is left of the header),
     * then SEND both at once; two copies of the file's bytes, no kernel worker thread.
     */
    static final class SendFile extends FilePiece {
        private final ByteString prefix;
        private BufferLease buffer;

        SendFile(int socket, int file, long position, int length, ByteString prefix, boolean linked,
                 ActorRef<Object> connection) {
            super(socket, file, position, length, prefix.size(), linked, connection);
            this.prefix = prefix;
        }

        @Override
        protected BufferLease acquire(BufferPool pool) {
            buffer = pool.lease(prefixLength + length);
            prefix.copyToBuffer(buffer.buffer().asByteBuffer().clear());
            return buffer;
        }

        @Override
        Opcode fillOpcode() {
            return Opcode.READ;
        }

        @Override
        protected void prepareFill(Sqe sqe) {
            sqe.prepRead(file, buffer.address() + prefixLength, length, position);
        }

        @Override
        Opcode drainOpcode() {
            return Opcode.SEND;
        }

        @Override
        protected void prepareDrain(Sqe sqe) {
            sqe.prepSend(socket, buffer.address() + sent, staged - sent, OpFlags.MSG_NOSIGNAL);
        }
    }

    /**
     * A file piece without copying it: SPLICE from the file into the connection's pipe, then from the pipe to
     * the socket. The kernel hands the file's pages to the socket, as sendfile(2) does; every SPLICE runs in one
     * of its worker threads, and none of them waits: the socket is non-blocking (a full one answers EAGAIN, and
     * the piece polls it), and the fill finds the pipe empty (each drain empties it) with room for the whole piece.
     */
    static final class SpliceFile extends FilePiece {
        private final Pipe pipe;

        SpliceFile(int socket, int file, long position, int length, Pipe pipe, boolean linked,
                   ActorRef<Object> connection) {
            super(socket, file, position, length, 0, linked, connection);
            this.pipe = pipe;
        }

        @Override
        Opcode fillOpcode() {
            return Opcode.SPLICE;
        }

        @Override
        protected void prepareFill(Sqe sqe) {
            sqe.prepSplice(file, position, pipe.writeEnd(), -1, length, 0);
        }

        @Override
        Opcode drainOpcode() {
            return Opcode.SPLICE;
        }

        @Override
        protected void prepareDrain(Sqe sqe) {
            sqe.prepSplice(pipe.readEnd(), -1, socket, -1, staged - sent, 0);
        }
    }

    /** What a connection sends with: one request of it is in flight at a time, and it stops where it is. */
    abstract static class Sending extends RingOp {
        boolean stopped;

        /**
         * The connection is closing and has cancelled what is in flight on the socket: a short send must not
         * go on with a new request, which that cancellation would not reach (and a peer that reads nothing
         * would then keep the socket open for ever).
         */
        final void stop() {
            stopped = true;
        }
    }

    /** CONNECT of {@code fd} to {@code remote}, its address in a zeroed buffer of its own (the kernel reads all). */
    static final class Connect extends RingOp {
        private final int fd;
        private final InetSocketAddress remote;
        private final ActorRef<Object> connection;
        private BufferLease sockaddr;
        private int sockaddrLength;

        /** Refuses an unresolved address at once: it has no sockaddr. */
        Connect(int fd, InetSocketAddress remote, ActorRef<Object> connection) {
            if (remote.isUnresolved()) {
                throw new IllegalArgumentException("unresolved address: " + remote);
            }
            this.fd = fd;
            this.remote = remote;
            this.connection = connection;
        }

        @Override
        protected Opcode opcode() {
            return Opcode.CONNECT;
        }

        @Override
        protected BufferLease acquire(BufferPool pool) {
            sockaddr = BufferLease.owning(NativeBuffer.allocate(Sockets.SOCKADDR_SIZE));
            sockaddrLength = Sockets.encode(remote, sockaddr.buffer());
            return sockaddr;
        }

        @Override
        protected void prepare(Sqe sqe) {
            sqe.prepConnect(fd, sockaddr.address(), sockaddrLength);
        }

        @Override
        protected boolean complete(int res, int flags, int ringFlags) {
            connection.tell(new RingSocket.ConnectDone(res, null, remote));
            markAnswered();
            return true;
        }

        @Override
        protected void fail(Throwable cause) {
            connection.tell(new RingSocket.ConnectDone(0, cause, remote));
        }
    }

    /** CLOSE of a socket, then {@code whenClosed}: after its completion, or the ring's end under it. */
    static CloseOp close(int fd, Runnable whenClosed) {
        return new CloseOp(fd, false, RingOp.Admission.EXEMPT, new SimpleOp.Outcome() {
            @Override
            public void completed(int res, int ringFlags) {
                whenClosed.run();
            }

            @Override
            public void failed(Throwable cause) {
                whenClosed.run();
            }
        });
    }

    /** An op of a connection whose result nobody waits for: its effect shows on the socket. */
    static SimpleOp unanswered(Opcode opcode, RingOp.Prep prep) {
        return new SimpleOp(opcode, RingOp.Admission.EXEMPT, prep, SimpleOp.Outcome.IGNORED);
    }

    /** A CLOSE nobody waits for. */
    static CloseOp close(int fd) {
        return new CloseOp(fd, false, RingOp.Admission.EXEMPT, SimpleOp.Outcome.IGNORED);
    }
}
