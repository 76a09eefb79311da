// libxml2's SAX2 push parser (<libxml/parser.h>), for the GPX reader: the same library, options
// and handler functions FoundationXML's XMLParser sets up, with the callbacks' bytes read in
// place.
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, whose headers <libxml/encoding.h> then includes: they
// clash with Foundation's own copy of ICU (_FoundationICU) in one Swift module. Nothing here
// uses libxml2's ICU converters (only pointers to the structures that hold them), so
// libxml2's headers are read without them.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/entities.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>

// What the reader needs of libxml2 beyond its public functions, in one place: the parser
// context's fields and the functions newer libxml2 releases deprecate (2.12 and later, the
// arm64 sysroot's and sid's), so that no version warns in Swift.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

// The plain error callback is variadic, which Swift cannot write: one that ignores its
// message, as FoundationXML's does (errors come through the structured error function).
static void pacer_xml_ignore_error(void *ctx, const char *msg, ...) {
    (void)ctx;
    (void)msg;
}

static inline void pacer_xml_set_ignored_error(xmlSAXHandler *handler) {
    handler->error = pacer_xml_ignore_error;
}

static inline void pacer_xml_set_structured_error(void *context, xmlStructuredErrorFunc function) {
    xmlSetStructuredErrorFunc(context, function);
}

// xmlSAX2GetLineNumber: the line of the input being read, 0 before there is one.
static inline int pacer_xml_line(xmlParserCtxtPtr ctxt) {
    return (ctxt == NULL || ctxt->input == NULL) ? 0 : ctxt->input->line;
}

static inline void pacer_xml_free(xmlParserCtxtPtr ctxt) {
    if (ctxt->myDoc != NULL) xmlFreeDoc(ctxt->myDoc);
    xmlFreeParserCtxt(ctxt);
}

static inline int pacer_xml_is_standalone(xmlParserCtxtPtr ctxt) {
    return ctxt->myDoc != NULL ? ctxt->myDoc->standalone : 0;
}

static inline int pacer_xml_has_internal_subset(xmlParserCtxtPtr ctxt) {
    return ctxt->myDoc != NULL && ctxt->myDoc->intSubset != NULL;
}

static inline int pacer_xml_has_external_subset(xmlParserCtxtPtr ctxt) {
    return ctxt->myDoc != NULL && ctxt->myDoc->extSubset != NULL;
}

// FoundationXML's _NSXMLParserGetEntity: a predefined entity, else the document's, which
// marks the parser's "recursive state" (in `_private`) when read in content: the characters
// that follow are the entity's, and its delegate is not given them.
static inline xmlEntityPtr pacer_xml_entity(xmlParserCtxtPtr ctxt, const xmlChar *name) {
    xmlEntityPtr entity = xmlGetPredefinedEntity(name);
    if (entity != NULL) return entity;
    entity = xmlSAX2GetEntity(ctxt, name);
    if (entity != NULL && ctxt->instate == XML_PARSER_CONTENT) ctxt->_private = (void *)1;
    return entity;
}

// Whether characters are to be dropped (the recursive state, which this clears).
static inline int pacer_xml_take_recursive_state(xmlParserCtxtPtr ctxt) {
    if (ctxt->_private != (void *)1) return 0;
    ctxt->_private = NULL;
    return 1;
}

static inline void pacer_xml_internal_subset(xmlParserCtxtPtr ctxt, const xmlChar *name, const xmlChar *externalID,
                                             const xmlChar *systemID) {
    xmlSAX2InternalSubset(ctxt, name, externalID, systemID);
}

static inline void pacer_xml_external_subset(xmlParserCtxtPtr ctxt, const xmlChar *name, const xmlChar *externalID,
                                             const xmlChar *systemID) {
    xmlSAX2ExternalSubset(ctxt, name, externalID, systemID);
}

static inline void pacer_xml_unparsed_entity(xmlParserCtxtPtr ctxt, const xmlChar *name, const xmlChar *publicID,
                                             const xmlChar *systemID, const xmlChar *notation) {
    xmlSAX2UnparsedEntityDecl(ctxt, name, publicID, systemID, notation);
}

static inline void pacer_xml_free_enumeration(xmlEnumerationPtr tree) {
    xmlFreeEnumeration(tree);
}

// XML_PARSE_RECOVER | XML_PARSE_NOENT, as XMLParser sets them.
static inline void pacer_xml_use_options(xmlParserCtxtPtr ctxt) {
    xmlCtxtUseOptions(ctxt, XML_PARSE_RECOVER | XML_PARSE_NOENT);
}

static inline void pacer_xml_stop(xmlParserCtxtPtr ctxt) {
    xmlStopParser(ctxt);
}

static inline xmlParserCtxtPtr pacer_xml_create(xmlSAXHandler *sax, void *user, const char *chunk, int size) {
    return xmlCreatePushParserCtxt(sax, user, chunk, size, NULL);
}

static inline int pacer_xml_parse_chunk(xmlParserCtxtPtr ctxt, const char *chunk, int size, int terminate) {
    return xmlParseChunk(ctxt, chunk, size, terminate);
}

static inline void pacer_xml_set_sax2(xmlSAXHandler *handler) {
    handler->initialized = XML_SAX2_MAGIC;
}

#pragma clang diagnostic pop
