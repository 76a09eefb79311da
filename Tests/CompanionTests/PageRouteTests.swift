import Testing
@testable import Companion

@Suite struct PageRouteTests {
    @Test func aRouteKeepsItsMethodAndPattern() async throws {
        let route = PageRoute(.get, "/activities/:id") { request in .json("{\"id\":\"\(request.parameters["id"] ?? "")\"}") }
        #expect(route.method == .get)
        #expect(route.pattern == "/activities/:id")
        #expect(!route.allowedDuringWorkout)
    }
}
