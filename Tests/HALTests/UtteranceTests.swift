import HAL
import Testing

/// What one utterance says is a sentence or two, whatever text it was made from.
@Suite("utterances")
struct UtteranceTests {
    @Test func longTextIsCutAtTheLastSpaceBeforeTheLimit() {
        let waypoint = String(repeating: "Bridge ", count: 20_000)
        let said = Utterance(text: "Turn left at \(waypoint)", key: "route", priority: .safety).text
        #expect(said.count <= Utterance.maximumCharacters)
        #expect(said.count > Utterance.maximumCharacters - 8, "only the last word is cut: \(said.count)")
        #expect(said.hasPrefix("Turn left at Bridge") && said.hasSuffix("Bridge"))
        let word = String(repeating: "x", count: 1000)
        #expect(Utterance(text: word, key: "k", priority: .pace).text.count == Utterance.maximumCharacters)
        #expect(Utterance(text: "split 1", key: "split", priority: .announcement).text == "split 1")
    }
}
