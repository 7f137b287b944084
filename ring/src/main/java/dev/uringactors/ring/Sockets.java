package dev.uringactors.ring;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * The socket calls a server makes once, at setup (socket, options, bind, listen, addresses), as plain system
 * calls; everything per connection or per byte goes through the ring. Failures are {@link UringException}s
 * naming the call and the address.
 */
public final class Sockets {
    /** IPv4 address family. */
    public static final int AF_INET = 2;
    /** IPv6 address family. */
    public static final int AF_INET6 = 10;
    /** A stream socket. */
    public static final int SOCK_STREAM = 1;
    /** socket(2) type flag: non-blocking. */
    public static final int SOCK_NONBLOCK = 0x800;
    /** Socket-level options. */
    public static final int SOL_SOCKET = 1;
    /** Allow binding an address in TIME_WAIT. */
    public static final int SO_REUSEADDR = 2;
    /** The socket's pending error, cleared by reading it. */
    public static final int SO_ERROR = 4;
    /** Send buffer size. */
    public static final int SO_SNDBUF = 7;
    /** Receive buffer size. */
    public static final int SO_RCVBUF = 8;
    /** TCP keep-alive probes. */
    public static final int SO_KEEPALIVE = 9;
    /** Linger on close; zero makes close(2) send a reset. */
    public static final int SO_LINGER = 13;
    /** Several sockets on one port, the kernel spreading connections. */
    public static final int SO_REUSEPORT = 15;
    /** TCP-level options. */
    public static final int IPPROTO_TCP = 6;
    /** Send small segments at once (no Nagle). */
    public static final int TCP_NODELAY = 1;
    /** Room for a sockaddr_in6, the larger of the two. */
    public static final int SOCKADDR_SIZE = 28;

    private Sockets() {
    }

    /** A TCP socket (close-on-exec) for this address's family. */
    public static int tcpSocket(InetSocketAddress address) {
        return tcpSocket(address, 0);
    }

    /**
     * A non-blocking TCP socket for a connection to {@code address} whose I/O goes through a ring: io_uring
     * polls it for CONNECT, SEND and RECV as it would a blocking one, and a SPLICE into it that finds no room
     * fails with EAGAIN instead of keeping a kernel worker until the peer reads.
     */
    public static int connectionSocket(InetSocketAddress address) {
        return tcpSocket(address, SOCK_NONBLOCK);
    }

    private static int tcpSocket(InetSocketAddress address, int flags) {
        int fd = LibC.socket(family(address), SOCK_STREAM | OpFlags.SOCK_CLOEXEC | flags, 0);
        if (fd < 0) {
            throw failed("socket", address, -LibC.negErrno());
        }
        return fd;
    }

    /** setsockopt(2) with an int value; a failure is a {@link UringException}. */
    public static void setOption(int fd, int level, int name, int value) {
        try (NativeBuffer v = NativeBuffer.allocate(4)) {
            v.putInt(0, value);
            if (LibC.setsockopt(fd, level, name, v.address(), 4) != 0) {
                throw new UringException("setsockopt(" + level + ", " + name + ")", -LibC.negErrno(), null);
            }
        }
    }

    /** SO_LINGER with a zero timeout: close(2) then resets the connection (RST) instead of a graceful FIN. */
    public static void setLingerZero(int fd) {
        try (NativeBuffer linger = NativeBuffer.allocate(8)) {
            linger.putInt(0, 1); // l_onoff, then l_linger = 0
            if (LibC.setsockopt(fd, SOL_SOCKET, SO_LINGER, linger.address(), 8) != 0) {
                throw new UringException("setsockopt(SO_LINGER)", -LibC.negErrno(), null);
            }
        }
    }

    /** getsockopt(2) of an int value. */
    public static int option(int fd, int level, int name) {
        try (NativeBuffer v = NativeBuffer.allocate(8)) {
            v.putInt(4, 4);
            if (LibC.getsockopt(fd, level, name, v.address(), v.address() + 4) != 0) {
                throw new UringException("getsockopt(" + level + ", " + name + ")", -LibC.negErrno(), null);
            }
            return v.getInt(0);
        }
    }

    /** A listening TCP socket: SO_REUSEADDR, SO_REUSEPORT if asked, bound, listening with {@code backlog}. */
    public static int listen(InetSocketAddress address, int backlog, boolean reusePort) {
        int fd = tcpSocket(address);
        try (NativeBuffer sockaddr = NativeBuffer.allocate(SOCKADDR_SIZE)) {
            setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1);
            if (reusePort) {
                setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1);
            }
            bind(fd, address, sockaddr);
            if (LibC.listen(fd, backlog) != 0) {
                throw failed("listen", address, -LibC.negErrno());
            }
            return fd;
        } catch (RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    /** Binds {@code fd} to {@code address} (port 0: the kernel picks one), as a connection's local end. */
    public static void bind(int fd, InetSocketAddress address) {
        try (NativeBuffer sockaddr = NativeBuffer.allocate(SOCKADDR_SIZE)) {
            bind(fd, address, sockaddr);
        }
    }

    private static void bind(int fd, InetSocketAddress address, NativeBuffer sockaddr) {
        int len = encode(address, sockaddr);
        if (LibC.bind(fd, sockaddr.address(), len) != 0) {
            throw failed("bind", address, -LibC.negErrno());
        }
    }

    /** The address a socket is bound to. */
    public static InetSocketAddress localAddress(int fd) {
        return address(fd, true);
    }

    /** The address of a socket's peer. */
    public static InetSocketAddress remoteAddress(int fd) {
        return address(fd, false);
    }

    private static InetSocketAddress address(int fd, boolean local) {
        try (NativeBuffer sockaddr = NativeBuffer.allocate(SOCKADDR_SIZE + 8)) {
            sockaddr.putInt(SOCKADDR_SIZE, SOCKADDR_SIZE);
            long lenAddr = sockaddr.address() + SOCKADDR_SIZE;
            int r = local ? LibC.getsockname(fd, sockaddr.address(), lenAddr)
                    : LibC.getpeername(fd, sockaddr.address(), lenAddr);
            if (r != 0) {
                throw new UringException(local ? "getsockname" : "getpeername", -LibC.negErrno(), null);
            }
            return decode(sockaddr);
        }
    }

    /** Writes {@code address} as a sockaddr_in or sockaddr_in6; returns its length. */
    public static int encode(InetSocketAddress address, NativeBuffer into) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        byte[] ip = address.getAddress().getAddress();
        var b = into.asByteBuffer();
        b.putShort(0, (short) family(address)); // host order
        b.put(2, (byte) (address.getPort() >>> 8)); // network order
        b.put(3, (byte) address.getPort());
        if (ip.length == 4) {
            into.write(4, ip, 0, 4);
            return 16;
        }
        into.write(8, ip, 0, 16);
        if (address.getAddress() instanceof Inet6Address v6) {
            into.putInt(24, v6.getScopeId());
        }
        return SOCKADDR_SIZE;
    }

    /** The address in a {@code sockaddr_in} or {@code sockaddr_in6}. */
    public static InetSocketAddress decode(NativeBuffer sockaddr) {
        var b = sockaddr.asByteBuffer();
        int family = b.getShort(0) & 0xffff;
        int port = ((b.get(2) & 0xff) << 8) | (b.get(3) & 0xff);
        byte[] ip = new byte[family == AF_INET6 ? 16 : 4];
        b.get(family == AF_INET6 ? 8 : 4, ip, 0, ip.length);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen with 4 or 16 bytes
        }
    }

    private static int family(InetSocketAddress address) {
        return address.getAddress() instanceof Inet4Address ? AF_INET : AF_INET6;
    }

    private static UringException failed(String call, InetSocketAddress address, int errno) {
        String hint = switch (errno) {
            case 98 -> "something already listens on " + address + " (another process, or this one without "
                    + "SO_REUSEPORT)";
            case 99 -> address.getAddress() + " is not an address of this machine";
            case Errno.EACCES -> "ports below 1024 need root or CAP_NET_BIND_SERVICE";
            case Errno.EMFILE, Errno.ENFILE -> "out of file descriptors (ulimit -n)";
            default -> null;
        };
        return new UringException(call + " " + address, errno, hint);
    }
}
