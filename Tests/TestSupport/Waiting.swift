// Bounded waiting: tests never wait without a deadline.

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

/// What `body` returned and how long it took, on the monotonic clock.
public func elapsed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try body()
    return (value, clock.now - start)
}
