internal import CLibXML2
import Foundation

extension GPXReader {
    /// What libxml2's SAX callbacks report to (GPX's handler, TCX's): the parser's context
    /// while it parses, libxml2's functions, and the events, which a reader overrides.
    class SAXHandler {
        /// The parser's context while it parses (libxml2's), nil before and after.
        var context: xmlParserCtxtPtr?
        /// libxml2, for the handler functions and the helpers that call it.
        let xml: LibXML2

        init(xml: LibXML2) {
            self.xml = xml
        }

        /// An element starts: its local name, prefix and namespace as libxml2 gives them.
        func didStartElement(_ localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?,
                             namespaceURI uri: UnsafePointer<UInt8>?, attributes: SAXAttributes) {}
        /// The element last started ends.
        func didEndElement() {}
        func foundCharacters(_ bytes: UnsafeBufferPointer<UInt8>) {}
        func foundCDATA(_ bytes: UnsafeBufferPointer<UInt8>) {}
        /// libxml2 reports an error (or a warning): its code (`xmlParserErrors`).
        func parseErrorOccurred(_ code: Int) {}
    }

    /// libxml2's SAX2 push parser, set up as FoundationXML's `XMLParser(stream:)` set it up
    /// for the reader before: the same handler functions (the DTD's through
    /// libxml2's own SAX2 ones, entities looked up the same way, errors through the
    /// structured error function), the same options (XML_PARSE_RECOVER | XML_PARSE_NOENT),
    /// the same chunks (the first 4 bytes to create the context, then the rest of 128 KiB
    /// reads, then an empty last chunk), so every error, code and line stays what it was.
    /// What is gone is XMLParser's work per callback: a String for each name, namespace and
    /// text, a dictionary of attributes for each element; the handler reads the bytes in place.
    final class SAXParser {
        let handler: SAXHandler
        /// The first non-zero result of `xmlParseChunk` (an `xmlParserErrors` code), or 0.
        private(set) var result = 0
        private var context: xmlParserCtxtPtr?
        /// The first bytes, until there are 4 to create the context with (XMLParser's "BOM chunk").
        private var head: [UInt8] = []
        static let chunkSize = 4096 * 32

        /// libxml2's functions (the handler's).
        private let xml: UnsafePointer<pacer_xml_library>

        init(handler: SAXHandler) {
            self.handler = handler
            xml = handler.xml.functions
        }

        deinit { close() }

        /// Frees the context; the handler's line number is 0 after.
        func close() {
            guard let context else { return }
            pacer_xml_free(xml, context)
            self.context = nil
            handler.context = nil
        }

        /// Reads `input` to its end (or to an error, or the handler's stop); false when a chunk
        /// was refused or the input could not be read.
        func parse(_ input: Input) -> Bool {
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.chunkSize)
            defer { buffer.deallocate() }
            input.open()
            defer { input.close() }
            while true {
                let count = input.read(buffer, maxLength: Self.chunkSize)
                if count > 0 {
                    guard feed(UnsafeBufferPointer(start: buffer, count: count), last: false) else { return false }
                } else if count == 0 {
                    return feed(UnsafeBufferPointer(start: buffer, count: 0), last: true)
                } else {
                    return false
                }
            }
        }

        private func feed(_ bytes: UnsafeBufferPointer<UInt8>, last: Bool) -> Bool {
            let me = Unmanaged.passUnretained(handler).toOpaque()
            pacer_xml_set_structured_error(xml, me, Self.structuredError)
            defer { pacer_xml_set_structured_error(xml, nil, nil) }
            var code: Int32
            if let context {
                code = parseChunk(context, bytes, last: last)
            } else {
                head.append(contentsOf: bytes)
                guard head.count >= 4 else { return true }
                var sax = Self.handlerFunctions()
                let created = head.withUnsafeBufferPointer { all in
                    all.baseAddress!.withMemoryRebound(to: CChar.self, capacity: 4) { pacer_xml_create(xml, &sax, me, $0, 4) }
                }
                guard let created else {
                    result = 2  // XML_ERR_NO_MEMORY, as XMLParser says it
                    return false
                }
                context = created
                handler.context = created
                pacer_xml_use_options(xml, created)
                code = head.withUnsafeBufferPointer { parseChunk(created, UnsafeBufferPointer(rebasing: $0[4...]), last: last) }
                head = []
            }
            if code == Int32(XML_ERR_DOCUMENT_END.rawValue), last { code = 0 }
            guard code == 0 else {
                if result == 0 { result = Int(code) }
                return false
            }
            return true
        }

        private func parseChunk(_ context: xmlParserCtxtPtr, _ bytes: UnsafeBufferPointer<UInt8>, last: Bool) -> Int32 {
            let start = bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            return pacer_xml_parse_chunk(xml, context, start, Int32(bytes.count), last ? 1 : 0)
        }

        static let structuredError: xmlStructuredErrorFunc = { context, error in
            guard let context, let error else { return }
            GPXReader.saxHandler(context).parseErrorOccurred(Int(error.pointee.code))
        }

        /// The handler functions XMLParser gives libxml2 (`_CFXMLInterfaceCreateSAXHandler`),
        /// the ones that only tell its delegate something the reader never asked doing nothing.
        static func handlerFunctions() -> xmlSAXHandler {
            var sax = xmlSAXHandler()
            sax.internalSubset = { context, name, externalID, systemID in
                let reader = GPXReader.saxHandler(context)
                guard let parser = reader.context else { return }
                pacer_xml_internal_subset(reader.xml.functions, parser, name, externalID, systemID)
            }
            sax.externalSubset = { context, name, externalID, systemID in
                let reader = GPXReader.saxHandler(context)
                guard let parser = reader.context else { return }
                pacer_xml_external_subset(reader.xml.functions, parser, name, externalID, systemID)
            }
            // XMLParser reads these from the document, which it never builds (it would crash
            // if asked): none here.
            sax.isStandalone = { context in
                guard let parser = GPXReader.saxHandler(context).context else { return 0 }
                return pacer_xml_is_standalone(parser)
            }
            sax.hasInternalSubset = { context in
                guard let parser = GPXReader.saxHandler(context).context else { return 0 }
                return pacer_xml_has_internal_subset(parser)
            }
            sax.hasExternalSubset = { context in
                guard let parser = GPXReader.saxHandler(context).context else { return 0 }
                return pacer_xml_has_external_subset(parser)
            }
            sax.getEntity = { context, name in
                let reader = GPXReader.saxHandler(context)
                guard let parser = reader.context, let name else { return nil }
                return pacer_xml_entity(reader.xml.functions, parser, name)
            }
            sax.notationDecl = { _, _, _, _ in }
            sax.attributeDecl = { context, _, _, _, _, _, tree in
                pacer_xml_free_enumeration(GPXReader.saxHandler(context).xml.functions, tree)
            }
            sax.elementDecl = { _, _, _, _ in }
            sax.unparsedEntityDecl = { context, name, publicID, systemID, notation in
                let reader = GPXReader.saxHandler(context)
                guard let parser = reader.context else { return }
                pacer_xml_unparsed_entity(reader.xml.functions, parser, name, publicID, systemID, notation)
            }
            sax.startDocument = { _ in }
            sax.endDocument = { _ in }
            sax.startElementNs = { context, localName, prefix, uri, _, _, attributeCount, _, attributes in
                guard let localName else { return }
                GPXReader.saxHandler(context).didStartElement(
                    localName, prefix: prefix, namespaceURI: uri,
                    attributes: SAXAttributes(base: attributes, count: Int(attributeCount)))
            }
            sax.endElementNs = { context, _, _, _ in
                GPXReader.saxHandler(context).didEndElement()
            }
            sax.characters = { context, bytes, count in
                let reader = GPXReader.saxHandler(context)
                guard let parser = reader.context else { return }
                if pacer_xml_take_recursive_state(parser) == 0, let bytes {
                    reader.foundCharacters(UnsafeBufferPointer(start: bytes, count: Int(count)))
                }
            }
            sax.processingInstruction = { _, _, _ in }
            sax.cdataBlock = { context, bytes, count in
                guard let bytes else { return }
                GPXReader.saxHandler(context).foundCDATA(UnsafeBufferPointer(start: bytes, count: Int(count)))
            }
            sax.comment = { _, _ in }
            pacer_xml_set_ignored_error(&sax)
            pacer_xml_set_sax2(&sax)
            return sax
        }
    }

    /// The handler behind a SAX callback's user data.
    fileprivate static func saxHandler(_ context: UnsafeMutableRawPointer?) -> SAXHandler {
        Unmanaged<SAXHandler>.fromOpaque(context!).takeUnretainedValue()
    }

    /// An element's attributes as libxml2's SAX2 gives them: five pointers each (local name,
    /// prefix, namespace, value start, value end), read in place.
    struct SAXAttributes {
        let base: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
        let count: Int

        /// The value of the attribute `name` without a prefix, as XMLParser's dictionary of
        /// attributes had it under that key (the last one of the name).
        func value(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
            guard let base else { return nil }
            var found: UnsafeBufferPointer<UInt8>?
            for i in 0..<count {
                let at = base + 5 * i
                guard let local = at[0], GPXReader.same(local, name) else { continue }
                if let prefix = at[1], prefix[0] != 0 { continue }
                guard let start = at[3], let end = at[4] else { continue }
                found = UnsafeBufferPointer(start: start, count: Swift.max(0, end - start))
            }
            return found
        }

        func string(_ name: StaticString) -> String? {
            value(name).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Whether the C string `a` is `b` (a C string too, ending in 0).
    static func same(_ a: UnsafePointer<UInt8>, _ b: [UInt8]) -> Bool {
        b.withUnsafeBufferPointer { b in
            var i = 0
            while true {
                if a[i] != b[i] { return false }
                if b[i] == 0 { return true }
                i += 1
            }
        }
    }

    static func same(_ a: UnsafePointer<UInt8>, _ b: StaticString) -> Bool {
        let b = b.utf8Start
        var i = 0
        while true {
            if a[i] != b[i] { return false }
            if b[i] == 0 { return true }
            i += 1
        }
    }
}
