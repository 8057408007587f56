import NIOCore
import NIOHTTP2

/// Ends each HTTP/2 response with END_STREAM on its last DATA frame instead of in an empty DATA frame of its own.
///
/// Why: Hummingbird's stream codec writes a response's end as a separate empty DATA frame. libcurl (7.88, Debian
/// 12's) completes a transfer as soon as it holds Content-Length bytes, before it reads that frame, and then resets
/// the stream it still counts as open (RST_STREAM, STREAM_CLOSED). swift-nio-http2 counts every reset toward its
/// rapid-reset limit (200 in 30 s per connection) and at the 201st closes the connection with ENHANCE_YOUR_CALM,
/// failing the request in flight: 7 of 1,500 GETs on one `curl --http2` connection, 100 of 19,220 edits of a run.
/// With the flag on the last DATA frame (as nginx sends it) the client has seen the stream end and resets nothing.
///
/// How: the latest outbound DATA frame that does not end the stream is held until the stream's next write; an empty
/// DATA frame with END_STREAM that follows is folded into it, and any other frame first releases it, in order. The
/// async channel writer does not wait for write promises, so holding one frame across a flush only delays it until
/// the response's next part, which a responder writes at once. Runs on the stream channel's event loop.
///
/// ```
/// stream channel: responder ─▶ HTTP part codec ─▶ HTTP2EndStreamCoalescer ─▶ multiplexer ─▶ connection
///                              (HTTP parts → frame payloads)   DATA(bytes) + DATA(empty, END_STREAM) → DATA(bytes, END_STREAM)
/// ```
final class HTTP2EndStreamCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var held: (data: HTTP2Frame.FramePayload.Data, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        guard case .data(let frame) = payload else {
            release(context)
            context.write(data, promise: promise)
            return
        }
        if frame.endStream, frame.data.readableBytes == 0, frame.paddingBytes == nil, var last = held {
            held = nil
            last.data.endStream = true
            switch (last.promise, promise) {
            case (let first?, let second?):
                first.futureResult.cascade(to: second)
                context.write(wrapOutboundOut(.data(last.data)), promise: first)
            default:
                context.write(wrapOutboundOut(.data(last.data)), promise: last.promise ?? promise)
            }
            return
        }
        release(context)
        if frame.endStream {
            context.write(data, promise: promise)
        } else {
            held = (frame, promise)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        release(context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        held?.promise?.fail(ChannelError.ioOnClosedChannel)
        held = nil
    }

    /// Writes the held frame, if any.
    private func release(_ context: ChannelHandlerContext) {
        guard let last = held else { return }
        held = nil
        context.write(wrapOutboundOut(.data(last.data)), promise: last.promise)
    }
}

/// Puts an ``HTTP2EndStreamCoalescer`` at the head of each HTTP/2 stream channel's pipeline, below Hummingbird's
/// HTTP part codec; on an HTTP/1.1 connection it does nothing.
///
/// Hummingbird's only hook into a stream's pipeline is the stream configuration's additional handlers, which it adds
/// above the codec (where parts, not frames, pass) and also to HTTP/1.1 connections over TLS; so this installs the
/// frame handler where frames pass. An HTTP/2 stream is told apart by its ancestry: its parent is the connection,
/// whose parent is the listener, while an HTTP/1.1 connection's parent is the listener itself. It passes everything
/// through (NIO takes only inbound or outbound handlers).
final class HTTP2EndStreamCoalescerInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    func handlerAdded(context: ChannelHandlerContext) {
        guard context.channel.parent?.parent != nil else { return }
        try? context.pipeline.syncOperations.addHandler(HTTP2EndStreamCoalescer(), position: .first)
    }
}
