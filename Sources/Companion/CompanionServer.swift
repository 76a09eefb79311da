import Configurator
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import Synchronization

/// The companion page's HTTP server: Hummingbird 2 on SwiftNIO's own threads (never
/// the device's clock loop), HTTP/1.1 with NIO's header limits, every request answered by
/// `CompanionCore`'s router. Its connections are guarded (`CompanionConnectionLimits`): so many
/// per client address, a deadline for each request's head and body, an idle timeout. `start()` returns once it listens (`port` is then
/// the bound one, port 0 in the settings picks a free one); `stop()` closes the listening
/// socket and the connections.
public final class CompanionServer: Sendable {
    public let core: CompanionCore
    public let limits: CompanionConnectionLimits
    private let settings: CompanionSettings
    private let ledger: ConnectionLedger
    private let logger: Logger
    private let running = Mutex<(task: Task<Void, Never>?, group: ServiceGroup?, port: Int?)>((nil, nil, nil))
    /// How long `stop` lets the connections finish before it cancels what is left.
    public static let shutdownGrace = Duration.seconds(2)

    /// `password`: the hash file (default: the settings' `passwordFile`, set from the data
    /// folder; none: the page asks for one to be set).
    public init(settings: CompanionSettings, sections: [any CompanionSection], device: any CompanionDevice,
                password: CompanionPassword? = nil, logger: Logger, clock: @escaping CompanionClock,
                version: String = "unknown", limits: CompanionConnectionLimits? = nil) {
        let password = password ?? CompanionPassword(path: settings.passwordFile ?? "/nonexistent/companion.passwd")
        self.settings = settings
        self.logger = logger
        let limits = limits ?? CompanionConnectionLimits(perAddress: settings.connectionsPerAddress)
        self.limits = limits
        self.ledger = ConnectionLedger(limit: limits.perAddress)
        self.core = CompanionCore(sections: sections, device: device, password: password, logger: logger, clock: clock,
                                  version: version)
    }

    /// The port it listens on (nil when stopped).
    public var port: Int? { running.withLock { $0.port } }

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Listens on the settings' address; throws when it cannot (a port in use, no such address).
    public func start() async throws {
        guard let listen = settings.listen else { throw StartFailure(description: "companion: no listen address in the settings") }
        if running.withLock({ $0.task != nil }) { return }
        let (events, continuation) = AsyncStream<Result<Int, any Error>>.makeStream()
        let limits = self.limits, ledger = self.ledger, logger = self.logger
        let httpConfiguration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestDeadlineHandler(headerTimeout: limits.headerTimeout.timeAmount,
                                                               bodyTimeout: limits.bodyTimeout.timeAmount)],
            idleTimeout: limits.idleTimeout.timeAmount,
            httpDecoderConfiguration: .init(maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100))
        let server = HTTPServerBuilder { responder in
            GuardedHTTP1Channel(http: HTTP1Channel(responder: responder, configuration: httpConfiguration), ledger: ledger,
                                retryAfterSeconds: limits.retryAfterSeconds, logger: logger)
        }
        let app = Application(
            responder: core.responder,
            server: server,
            configuration: .init(
                address: .hostname(listen.host, port: listen.port), serverName: nil, backlog: 64,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.total)),
            onServerRunning: { channel in continuation.yield(.success(channel.localAddress?.port ?? listen.port)) },
            logger: Self.quiet(logger))
        // In a service group, so that `stop` can shut it down gracefully (see `stop`).
        let group = ServiceGroup(services: [app], logger: Self.quiet(logger))
        let task = Task {
            do {
                try await group.run()
                continuation.yield(.failure(StartFailure(description: "companion: the server stopped")))
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        for await event in events {
            switch event {
            case .success(let port):
                running.withLock { $0 = (task, group, port) }
                return
            case .failure(let error):
                throw StartFailure(description: "companion: cannot listen on \(listen.host):\(listen.port): \(error)")
            }
        }
    }

    /// Hummingbird's own logger: its errors only when critical. A stop (a workout starting)
    /// may cancel connections, which it reports as errors; what matters
    /// (a port in use) is thrown to `start`'s caller, and the core logs the logins.
    static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = .critical
        return quiet
    }

    /// Stops listening and closes the connections; returns once the socket is closed.
    ///
    /// Gracefully first: the listening socket is closed, the connections accepted but not yet
    /// handed over are served, idle ones are closed and those mid-request finish theirs. What
    /// is still open after `shutdownGrace` is cancelled. (Cancelling at once, as before, could
    /// trap in SwiftNIO when a connection had been accepted but not yet handed over, "Deinited
    /// NIOAsyncWriter without calling finish()": apple/swift-nio#3481.)
    public func stop() async {
        let (task, group) = running.withLock { state -> (Task<Void, Never>?, ServiceGroup?) in
            defer { state = (nil, nil, nil) }
            return (state.task, state.group)
        }
        guard let task else { return }
        await group?.triggerGracefulShutdown()
        let grace = Self.shutdownGrace
        await withTaskGroup(of: Bool.self) { race in
            race.addTask {
                await task.value
                return true
            }
            race.addTask {
                try? await Task.sleep(for: grace)
                return false
            }
            // Past the grace, the server's task is cancelled, so that its waiter ends too.
            if await race.next() == false { task.cancel() }
            race.cancelAll()
        }
    }
}
