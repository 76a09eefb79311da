import Coaching
import HAL

/// What a power profile asks of the coaching parts: the coach's alert interval, smoothing
/// and splits, auto-pause's thresholds, the route follower's distances.
extension PowerProfile {
    /// The coach's settings under this profile.
    var coachSettings: CoachSettings {
        var settings = CoachSettings(alertInterval: alertInterval, smoothingWindow: smoothingWindow, splitDistance: splitDistance)
        settings.toGoMetres = anticipation.metres
        settings.toGoTime = anticipation.time
        settings.countdown = anticipation.countdown
        return settings
    }

    /// The heart-rate coach's settings under this profile: its settle time and window, the
    /// profile's alert interval for repeats but at least a minute (a heart answers an easing
    /// off in tens of seconds: a reminder sooner would nag before it could).
    var heartRateSettings: HeartRateCoach.Settings {
        HeartRateCoach.Settings(settle: heartRate.settle, window: heartRate.window, alertInterval: max(alertInterval, .seconds(60)))
    }

    /// Auto-pause's thresholds under this profile; nil when it has none.
    var autoPauseSettings: Coaching.AutoPause.Settings? {
        autoPause.map { Coaching.AutoPause.Settings(below: $0.below, after: $0.after, resumeAbove: $0.resumeAbove) }
    }

    /// The ghost race's settings under this profile: the gap told every `ghostInterval`.
    var ghostSettings: GhostCoach.Settings {
        GhostCoach.Settings(interval: ghostInterval)
    }

    /// The route follower's settings under this profile.
    var routeSettings: RouteFollower.Settings {
        RouteFollower.Settings(offRoute: route.offRoute, backOn: route.backOn, waypointAhead: route.waypointAhead)
    }
}
