import NMEA
import PacerCore
import Testing

// `NMEADecoder.ChecksumPolicy`: lines without `*hh`, and lines with a wrong one.

@Suite("Checksum policy")
struct ChecksumPolicyTests {
    @Test func receiverThatNeverSendsChecksumsIsAccepted() {
        let decoded = decode(cycle().map(withoutChecksum))
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.missingChecksum == 0)
        #expect(decoded.statistics.sentences == 7)
    }

    @Test func afterOneChecksummedSentenceMissingChecksumsAreRejected() {
        let decoded = decode(cycle(time: "145243.00") + cycle(time: "145244.00").map(withoutChecksum))
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.missingChecksum == 7)
        #expect(decoded.statistics.sentences == 7)
    }

    @Test func unchecksummedLinesBeforeTheFirstChecksumAreKept() {
        let first = cycle(time: "145243.00")
        let decoded = decode(
            [withoutChecksum(first[0]), first[1], withoutChecksum(first[2])] + first[3...].map(withoutChecksum))
        #expect(decoded.statistics.sentences == 2)
        #expect(decoded.statistics.missingChecksum == 5)
    }

    @Test func requirePolicyRejectsEveryLineWithoutChecksum() {
        let decoded = decode(cycle().map(withoutChecksum), checksumPolicy: .require)
        #expect(decoded.epochs.isEmpty)
        #expect(decoded.statistics.missingChecksum == 7)
        #expect(decoded.statistics.sentences == 0)
    }

    @Test func requirePolicyAcceptsChecksummedLines() {
        let decoded = decode(cycle(), checksumPolicy: .require)
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.rejected == 0)
    }

    @Test(arguments: [NMEADecoder.ChecksumPolicy.acceptFromReceiversWithoutChecksums, .require])
    func badChecksumsAreCountedAndGiveNoFix(_ policy: NMEADecoder.ChecksumPolicy) {
        let sentences = cycle()
        let decoded = decode(
            [withWrongChecksum(sentences[0]), withWrongChecksum(sentences[1])] + sentences[2...],
            checksumPolicy: policy)
        #expect(decoded.epochs.isEmpty)
        #expect(decoded.statistics.badChecksum == 2)
        #expect(decoded.statistics.fixes == 0)
        #expect(decoded.statistics.sentences == 5)
    }
}
