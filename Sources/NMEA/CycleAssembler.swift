/// The cycle a receiver's report belongs to.
public enum CycleKey<Time: Equatable & Sendable>: Equatable, Sendable {
    /// The report carries the cycle's time.
    case time(Time)
    /// The report is a position report without a time (a receiver still searching sends
    /// `$GPRMC,,V,…`): a cycle of its own.
    case untimed
    /// The report carries no time and joins the cycle in progress (NMEA's VTG, GSA, GSV).
    case joins
}

/// What the reports of one receiver cycle add up to: NMEA's sentences (`NMEACycle`, in
/// `EpochAssembler`) or gpsd's TPV reports (`GPSDCycle`, in the gpsd source).
public protocol CycleContent: Sendable {
    associatedtype Report
    associatedtype Time: Equatable & Sendable
    associatedtype Output
    /// What is carried from cycle to cycle (NMEA's last date, satellites in view).
    associatedtype Context: Sendable

    init()
    static func key(of report: Report) -> CycleKey<Time>
    /// Adds one report of the cycle.
    mutating func add(_ report: Report, context: inout Context)
    /// Nothing a later report of the cycle could add: the cycle is delivered at once.
    var isComplete: Bool { get }
    /// A report of a cycle already delivered is dropped, not made a cycle of its own (gpsd
    /// sends TPVs late, or again after a reconnect); false: it starts a cycle again.
    static var dropsLateReports: Bool { get }
    /// The cycle as delivered; nil when it amounts to nothing (only joiners).
    func output(context: inout Context) -> Output?
}

/// One receiver cycle at a time, from the reports that make it up: the one place Pacer
/// decides where a receiver's cycle ends, for every receiver it reads (the NMEA engine's
/// sentences; gpsd's TPV reports).
///
/// A cycle is the run of reports sharing one receiver time. A report with a time (or a
/// position report without one) opens a new cycle when the cycle in progress has another;
/// the cycle in progress closes then, when it is complete, when the caller flushes it (the
/// end of the stream; a quiet spell from gpsd), or never later. Reports that carry no time
/// join the cycle in progress (or start one that the next timed report adopts).
public struct CycleAssembler<Content: CycleContent>: Sendable {
    private var content: Content?
    private var key: CycleKey<Content.Time> = .joins
    private var lastClosed: Content.Time?
    private var context: Content.Context

    public init(context: Content.Context) {
        self.context = context
    }

    /// A cycle is in progress (a report is held for it).
    public var isHolding: Bool { content != nil }

    /// Takes one report; `deliver` receives each cycle it closes, in order.
    @inline(__always)
    public mutating func offer(_ report: Report, deliver: (Content.Output) -> Void) {
        let next = Content.key(of: report)
        if case .time(let time) = next, Content.dropsLateReports, time == lastClosed { return }
        switch next {
        case .joins:
            break
        case .time, .untimed:
            if content != nil, key != .joins, key != next { flush(deliver: deliver) }
            key = next
        }
        if content == nil { content = Content() }
        content!.add(report, context: &context)
        if content!.isComplete { flush(deliver: deliver) }
    }

    public typealias Report = Content.Report

    /// Closes the cycle in progress, if any, and delivers what it amounts to.
    public mutating func flush(deliver: (Content.Output) -> Void) {
        guard let cycle = content else { return }
        content = nil
        if case .time(let time) = key { lastClosed = time }
        key = .joins
        if let output = cycle.output(context: &context) { deliver(output) }
    }

    /// Forgets the cycle in progress without delivering it (the source is stopping).
    public mutating func discard() {
        content = nil
        key = .joins
    }
}

extension CycleAssembler where Content.Context == Void {
    public init() {
        self.init(context: ())
    }
}
