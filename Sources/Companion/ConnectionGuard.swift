import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How long the page waits for a client, and how many connections one address may hold: what
/// keeps the page usable for its owner while someone on the same Wi-Fi opens connections and
/// trickles bytes into them (a "slowloris").
public struct CompanionConnectionLimits: Hashable, Sendable {
    /// Connections one client address may hold at once; more are answered 503 with a
    /// `Retry-After` and closed. A phone's browser opens up to 6 to one host.
    public var perAddress: Int
    /// Connections at once from every address; more wait in the listening socket's backlog.
    public var total: Int
    /// A request's head (its line and headers) must have arrived this long after the
    /// connection opened, or after the answer to its previous request; else it is closed.
    public var headerTimeout: Duration
    /// A request's body must have arrived this long after its head.
    public var bodyTimeout: Duration
    /// A connection with nothing sent or read for this long is closed.
    public var idleTimeout: Duration
    /// The `Retry-After` of a refused connection, in seconds.
    public var retryAfterSeconds: Int

    public static let defaultPerAddress = 16

    public init(perAddress: Int = CompanionConnectionLimits.defaultPerAddress, total: Int = 256,
                headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(60),
                idleTimeout: Duration = .seconds(30), retryAfterSeconds: Int = 10) {
        self.perAddress = perAddress
        self.total = total
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.retryAfterSeconds = retryAfterSeconds
    }
}

extension Duration {
    /// As NIO's `TimeAmount`.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// The connections open per client address, shared by the server's connections.
final class ConnectionLedger: Sendable {
    let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts a new connection from `address`; false (and not counted) when the address
    /// holds `limit` already.
    func admit(_ address: String) -> Bool {
        open.withLock { open in
            let count = open[address, default: 0]
            guard count < limit else { return false }
            open[address] = count + 1
            return true
        }
    }

    func release(_ address: String) {
        open.withLock { open in
            let count = open[address, default: 0] - 1
            open[address] = count > 0 ? count : nil
        }
    }

    /// Connections open from `address`.
    func count(_ address: String) -> Int { open.withLock { $0[address, default: 0] } }
}

/// First in a connection's pipeline, before HTTP is decoded: counts the connection against its
/// address, and refuses one over the address's limit at once with a 503 and `Retry-After`
/// (without reading its request). The refusal half-closes and discards what the client sends
/// for a moment before closing, so that the client reads the answer rather than a reset.
final class AddressLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let ledger: ConnectionLedger
    private let retryAfterSeconds: Int
    private let logger: Logger
    private var checked = false
    private var counted: String?
    private var refused = false

    init(ledger: ConnectionLedger, retryAfterSeconds: Int, logger: Logger) {
        self.ledger = ledger
        self.retryAfterSeconds = retryAfterSeconds
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { check(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        check(context)
        context.fireChannelActive()
    }

    private func check(_ context: ChannelHandlerContext) {
        guard !checked else { return }
        checked = true
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if ledger.admit(address) {
            counted = address
            return
        }
        refused = true
        logger.warning("companion: connection from \(address) refused: it holds \(ledger.limit) already")
        let body = "busy: this address has \(ledger.limit) connections open; try again in \(retryAfterSeconds) s\n"
        let answer = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: \(retryAfterSeconds)\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: answer))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's request is not read: it is dropped until the close.
        if refused { return }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let counted { ledger.release(counted) }
        counted = nil
        context.fireChannelInactive()
    }
}

/// After HTTP is decoded: a request's head must arrive within the header timeout (from the
/// connection's start, or from the answer to its previous request), its body within the body
/// timeout after the head; else the connection is closed. A request being answered has no
/// deadline (a report may take a while), and neither has a connection with requests in flight.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Requests whose head was read and whose answer has not ended.
    private var inFlight = 0

    init(headerTimeout: TimeAmount, bodyTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, headerTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancel() }

    func channelActive(context: ChannelHandlerContext) {
        if deadline == nil { arm(context, headerTimeout) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inFlight += 1
            arm(context, bodyTimeout)
        case .body:
            break
        case .end:
            cancel()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inFlight = max(0, inFlight - 1)
            if inFlight == 0 { arm(context, headerTimeout) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ amount: TimeAmount) {
        cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: amount) { channel.close(promise: nil) }
    }

    private func cancel() {
        deadline?.cancel()
        deadline = nil
    }
}

/// Hummingbird's HTTP/1.1 channel with the two guards above in its pipeline.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http: HTTP1Channel
    let ledger: ConnectionLedger
    let retryAfterSeconds: Int
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let guardLogger = self.logger
        let ledger = self.ledger, retryAfter = retryAfterSeconds
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                AddressLimitHandler(ledger: ledger, retryAfterSeconds: retryAfter, logger: guardLogger))
        }.flatMap { self.http.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await http.handle(value: value, logger: logger)
    }
}
