import Foundation

// Bounded waiting: tests never wait without a deadline, and wait on what they assert (a
// condition polled until it holds), not on a time they hope is long enough.

/// Polls `condition` every `step` until it holds or `timeout` passes; returns whether it held.
public func eventually(
    within timeout: Duration = .seconds(10), every step: Duration = .milliseconds(5),
    _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: step)
    }
    return condition()
}

/// `eventually` on the calling thread, for synchronous tests and for threads of their own
/// (a test waiting on a child process, a helper thread): blocks it between polls.
public func eventuallyBlocking(
    within timeout: Duration = .seconds(10), every step: Duration = .milliseconds(5),
    _ condition: () -> Bool
) -> Bool {
    polledBlocking(within: timeout, every: step, condition, until: { $0 })
}

/// Reads `probe` every `step` until `accept` holds for what it read or `timeout` passes;
/// returns the last reading (for the assertion's message when it never held).
public func polled<T>(
    within timeout: Duration = .seconds(10), every step: Duration = .milliseconds(5),
    _ probe: () async -> T, until accept: (T) -> Bool
) async -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var value = await probe()
    while !accept(value) && clock.now < deadline {
        try? await Task.sleep(for: step)
        value = await probe()
    }
    return value
}

/// `polled` on the calling thread (see `eventuallyBlocking`).
public func polledBlocking<T>(
    within timeout: Duration = .seconds(10), every step: Duration = .milliseconds(5),
    _ probe: () -> T, until accept: (T) -> Bool
) -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var value = probe()
    while !accept(value) && clock.now < deadline {
        Thread.sleep(forTimeInterval: Double(step.components.attoseconds) / 1e18 + Double(step.components.seconds))
        value = probe()
    }
    return value
}

/// Checks `condition` every `step` for the whole of `window`; false as soon as it fails. For
/// what must not happen (no retry after a stop, no line from a stopped reader): the window
/// is the claim ("nothing within 600 ms"), so it is waited out whole when all is well.
public func holdsThroughout(
    _ window: Duration, every step: Duration = .milliseconds(5), _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + window
    while clock.now < deadline {
        if !condition() { return false }
        try? await Task.sleep(for: step)
    }
    return condition()
}

/// What `body` returned and how long it took, on the monotonic clock.
public func elapsed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try body()
    return (value, clock.now - start)
}
