import Hummingbird

/// While a workout runs nothing changes but what the button could do: a POST to the routes
/// behind this middleware is refused (409); reading a page changes nothing, and is answered.
struct WorkoutGuardMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let device: any CompanionDevice
    let pages: CompanionPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, device.workoutRunning else { return try await next(request, context) }
        return pages.refused(409, "a workout is running: this waits until it ends (only what the button does works now)",
                             session: context.session)
    }
}
