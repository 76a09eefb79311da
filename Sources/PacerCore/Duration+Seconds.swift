extension Duration {
    /// The duration in whole nanoseconds (saturating far beyond any run's length).
    public var nanoseconds: Int64 {
        let (s, atto) = components
        return s * 1_000_000_000 + atto / 1_000_000_000
    }

    /// The duration in seconds as a floating-point number.
    public var inSeconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
