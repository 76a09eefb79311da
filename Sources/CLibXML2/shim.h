// libxml2's SAX2 push parser (<libxml/parser.h>), for the GPX reader: the same library, options
// and handler FoundationXML's XMLParser sets up, with its callbacks' bytes read in place.
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
#include <libxml/xmlerror.h>

// The plain error callback is variadic, which Swift cannot write: one that ignores its
// message, as FoundationXML's does (errors come through the structured error function).
static void pacer_xml_ignore_error(void *ctx, const char *msg, ...) {
    (void)ctx;
    (void)msg;
}

static inline void pacer_xml_set_ignored_error(xmlSAXHandler *handler) {
    handler->error = pacer_xml_ignore_error;
}
