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

#include <dlfcn.h>

// libxml2 is opened when a GPX file is first read (dlopen), not linked: linking it made every
// command load it and the libraries it needs (ICU, liblzma, zlib) at start-up, about 0.76 M
// instructions, for a parser only GPX import uses. The library opened is the one whose headers
// these are: libxml2 2.14 changed its ABI and SONAME (Debian 12 and 13 have 2.9 and 2.12,
// sid 2.15).
#if LIBXML_VERSION >= 20900 && LIBXML_VERSION < 21400
#define PACER_LIBXML2_SONAME "libxml2.so.2"
#define PACER_LIBXML2_PACKAGE "libxml2"
#elif LIBXML_VERSION >= 21400 && LIBXML_VERSION < 21600
#define PACER_LIBXML2_SONAME "libxml2.so.16"
#define PACER_LIBXML2_PACKAGE "libxml2-16"
#else
#error "a libxml2 version this list does not know: add its SONAME (objdump -p /usr/lib/*/libxml2.so | grep SONAME)"
#endif

// What the reader needs of libxml2 beyond its public functions, in one place: the parser
// context's fields and the functions newer libxml2 releases deprecate (2.12 and later, the
// arm64 sysroot's and sid's), so that no version warns in Swift.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

// The functions the reader calls, each field named as the function and typed as this header
// declares it (`__typeof__`), filled by `pacer_xml_open`: the helpers below call libxml2
// through it only, since a call by the function's own name would not link.
#define PACER_XML_FUNCTIONS(F) \
    F(xmlCreatePushParserCtxt) F(xmlCtxtUseOptions) F(xmlParseChunk) F(xmlStopParser) \
    F(xmlFreeDoc) F(xmlFreeParserCtxt) F(xmlSetStructuredErrorFunc) F(xmlGetPredefinedEntity) \
    F(xmlSAX2GetEntity) F(xmlSAX2InternalSubset) F(xmlSAX2ExternalSubset) F(xmlSAX2UnparsedEntityDecl) \
    F(xmlFreeEnumeration)

#define PACER_XML_FIELD(name) __typeof__(&name) name;
typedef struct pacer_xml_library {
    PACER_XML_FUNCTIONS(PACER_XML_FIELD)
} pacer_xml_library;
#undef PACER_XML_FIELD

// Opens `soname` (PACER_LIBXML2_SONAME but in tests) and fills `xml`: NULL, or why it could
// not (dlerror's words: the library missing, or the function it lacks). The library is never
// closed: the process keeps it, as it kept it linked.
static inline const char *pacer_xml_open(const char *soname, pacer_xml_library *xml) {
    (void)dlerror();
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PACER_XML_SYMBOL(name) \
    if ((xml->name = (__typeof__(&name))dlsym(library, #name)) == NULL) return dlerror();
    PACER_XML_FUNCTIONS(PACER_XML_SYMBOL)
#undef PACER_XML_SYMBOL
    return NULL;
}

// The plain error callback is variadic, which Swift cannot write: one that ignores its
// message, as FoundationXML's does (errors come through the structured error function).
static void pacer_xml_ignore_error(void *ctx, const char *msg, ...) {
    (void)ctx;
    (void)msg;
}

static inline void pacer_xml_set_ignored_error(xmlSAXHandler *handler) {
    handler->error = pacer_xml_ignore_error;
}

static inline void pacer_xml_set_structured_error(const pacer_xml_library *xml, void *context,
                                                  xmlStructuredErrorFunc function) {
    xml->xmlSetStructuredErrorFunc(context, function);
}

// xmlSAX2GetLineNumber: the line of the input being read, 0 before there is one.
static inline int pacer_xml_line(xmlParserCtxtPtr ctxt) {
    return (ctxt == NULL || ctxt->input == NULL) ? 0 : ctxt->input->line;
}

static inline void pacer_xml_free(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt) {
    if (ctxt->myDoc != NULL) xml->xmlFreeDoc(ctxt->myDoc);
    xml->xmlFreeParserCtxt(ctxt);
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
static inline xmlEntityPtr pacer_xml_entity(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt, const xmlChar *name) {
    xmlEntityPtr entity = xml->xmlGetPredefinedEntity(name);
    if (entity != NULL) return entity;
    entity = xml->xmlSAX2GetEntity(ctxt, name);
    if (entity != NULL && ctxt->instate == XML_PARSER_CONTENT) ctxt->_private = (void *)1;
    return entity;
}

// Whether characters are to be dropped (the recursive state, which this clears).
static inline int pacer_xml_take_recursive_state(xmlParserCtxtPtr ctxt) {
    if (ctxt->_private != (void *)1) return 0;
    ctxt->_private = NULL;
    return 1;
}

static inline void pacer_xml_internal_subset(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt, const xmlChar *name,
                                             const xmlChar *externalID, const xmlChar *systemID) {
    xml->xmlSAX2InternalSubset(ctxt, name, externalID, systemID);
}

static inline void pacer_xml_external_subset(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt, const xmlChar *name,
                                             const xmlChar *externalID, const xmlChar *systemID) {
    xml->xmlSAX2ExternalSubset(ctxt, name, externalID, systemID);
}

static inline void pacer_xml_unparsed_entity(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt, const xmlChar *name,
                                             const xmlChar *publicID, const xmlChar *systemID, const xmlChar *notation) {
    xml->xmlSAX2UnparsedEntityDecl(ctxt, name, publicID, systemID, notation);
}

static inline void pacer_xml_free_enumeration(const pacer_xml_library *xml, xmlEnumerationPtr tree) {
    xml->xmlFreeEnumeration(tree);
}

// XML_PARSE_RECOVER | XML_PARSE_NOENT, as XMLParser sets them.
static inline void pacer_xml_use_options(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt) {
    xml->xmlCtxtUseOptions(ctxt, XML_PARSE_RECOVER | XML_PARSE_NOENT);
}

static inline void pacer_xml_stop(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt) {
    xml->xmlStopParser(ctxt);
}

static inline xmlParserCtxtPtr pacer_xml_create(const pacer_xml_library *xml, xmlSAXHandler *sax, void *user,
                                                const char *chunk, int size) {
    return xml->xmlCreatePushParserCtxt(sax, user, chunk, size, NULL);
}

static inline int pacer_xml_parse_chunk(const pacer_xml_library *xml, xmlParserCtxtPtr ctxt, const char *chunk, int size,
                                        int terminate) {
    return xml->xmlParseChunk(ctxt, chunk, size, terminate);
}

static inline void pacer_xml_set_sax2(xmlSAXHandler *handler) {
    handler->initialized = XML_SAX2_MAGIC;
}

#pragma clang diagnostic pop
