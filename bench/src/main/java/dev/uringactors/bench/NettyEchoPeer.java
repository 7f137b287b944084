package dev.uringactors.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** Netty's echo server on one of its transports, with {@code threads} event loops. */
final class NettyEchoPeer implements EchoPeer {
    private final String name;
    private final IoHandlerFactory ioHandler;
    private final Class<? extends ServerChannel> channelType;
    private final int threads;
    private EventLoopGroup group;
    private Channel channel;

    private NettyEchoPeer(String name, IoHandlerFactory ioHandler, Class<? extends ServerChannel> channelType,
                          int threads) {
        this.name = name;
        this.ioHandler = ioHandler;
        this.channelType = channelType;
        this.threads = threads;
    }

    static NettyEchoPeer ioUring(int threads) {
        return new NettyEchoPeer("netty-io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class,
                threads);
    }

    static NettyEchoPeer epoll(int threads) {
        return new NettyEchoPeer("netty-epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, threads);
    }

    static NettyEchoPeer nio(int threads) {
        return new NettyEchoPeer("netty-nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, threads);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(threads, ioHandler);
        channel = new ServerBootstrap().group(group).channel(channelType)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(Echo.INSTANCE);
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void stop() throws Exception {
        channel.close().sync();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }

    /** Writes back what it reads; flushes once per read burst, as Netty's own echo example does. */
    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        static final Echo INSTANCE = new Echo();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
