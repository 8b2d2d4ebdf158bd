"""Which SVG files the content folder may publish: drawings, with nothing in them that runs or loads.

An SVG opened from the site is a document of the site's own origin, so whatever runs in it runs as the
site. A designer's diagram (a template, a deployment map) needs shapes, text, paint and filters; those pass.
Anything that can run or fetch is refused, each where it is written: an element off `ELEMENTS` (`script`,
`foreignObject`, `animate` and `set`, which can rewrite a link, `image`, `style`, `a`...), an element of
any other language (an XHTML `script` runs inside an SVG too), an event handler, a link or `url(...)` to
anything but a part of the same file, entities declared in the file (they can expand without bound) and a
processing instruction (`<?xml-stylesheet?>` loads a style sheet or a transform). The file is checked, never
rewritten: what passes is published byte for byte.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from collections.abc import Iterator

from ..problems import Location, Problem, error, shortened

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"
#: Namespaces drawing programs write their own notes in (Inkscape, Sodipodi, RDF metadata): inert in a browser.
NOTES = frozenset({
    "http://www.inkscape.org/namespaces/inkscape", "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://purl.org/dc/elements/1.1/", "http://creativecommons.org/ns#",
})  # fmt: skip
#: SVG elements a drawing may use: shapes, text, paint servers, clipping, markers, filters and reuse of its own parts.
ELEMENTS = frozenset({
    "svg", "g", "defs", "symbol", "use", "title", "desc", "metadata",
    "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan", "textPath",
    "linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask", "marker",
    "filter", "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feDiffuseLighting", "feDisplacementMap",
    "feDistantLight", "feDropShadow", "feFlood", "feFuncA", "feFuncB", "feFuncG", "feFuncR", "feGaussianBlur",
    "feMerge", "feMergeNode", "feMorphology", "feOffset", "fePointLight", "feSpecularLighting", "feSpotLight",
    "feTile", "feTurbulence",
})  # fmt: skip
_URL = re.compile(r"url\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)
_HINT = (
    "an SVG in the content folder may hold shapes, text, paint and filters that refer only to its own parts; or convert it to PNG or WebP"
)


_NO_NAMESPACE = f'the drawing has no SVG namespace, so a browser does not draw it: write xmlns="{SVG}" on its <svg>'


class _Stop(Exception):
    """A document type or an entity: nothing after it is read."""


def check_svg(data: bytes, path: str) -> list[Problem]:
    """Every place in an SVG file that could run script or load something, each where it is written."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    problems: list[Problem] = []

    def at() -> Location:
        return Location(path, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)

    def refuse(message: str) -> None:
        problems.append(error(at(), "unsafe-content", message, _HINT))

    def doctype(_name: str, _system: str | None, _public: str | None, has_internal_subset: int) -> None:
        if has_internal_subset:  # SVG 1.1's own `<!DOCTYPE svg PUBLIC ...>` line, common in exported files, passes
            entity()

    def entity(*_: object) -> None:
        refuse("the SVG declares entities of its own, which can expand without bound or read other files")
        raise _Stop

    def skipped(name: str, _is_parameter: int) -> None:  # declared, if anywhere, in a document type the browser never reads
        refuse(f"the SVG uses the entity '&{shortened(name, 20)};', which it does not declare: a browser shows an error in its place")

    def instruction(target: str, _data: str) -> None:
        refuse(f"the SVG holds a processing instruction (<?{shortened(target, 20)} ...?>), which can load a style sheet or a transform")

    def start(name: str, attributes: dict[str, str]) -> None:
        for message in _element_problems(name, attributes):
            if message != _NO_NAMESPACE or not any(p.message == message for p in problems):  # once, not per element
                refuse(message)

    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.SkippedEntityHandler = skipped
    parser.ProcessingInstructionHandler = instruction
    parser.StartElementHandler = start
    try:
        parser.Parse(data, True)
    except _Stop:
        pass
    except xml.parsers.expat.ExpatError as exc:
        where = Location(path, exc.lineno, exc.offset + 1)
        message = f"the SVG is not well-formed XML ({xml.parsers.expat.ErrorString(exc.code)}): a browser shows an error in its place"
        problems.append(error(where, "unsafe-content", message, "save it again from the drawing program, or convert it to PNG or WebP"))
    return problems


def _element_problems(name: str, attributes: dict[str, str]) -> Iterator[str]:
    """What in one element (`namespace local-name`, as expat names it) could run or load something."""
    namespace, _, local = name.rpartition(" ")
    if namespace in NOTES:
        return
    if not namespace:
        yield _NO_NAMESPACE
        return
    if namespace != SVG:
        yield f"the SVG holds <{shortened(local, 20)}> of another language ({shortened(namespace, 40)}), which a browser may run"
        return
    if local not in ELEMENTS:
        yield f"the SVG holds <{shortened(local, 20)}>, which can run script, change a link or load another file"
    for key, value in attributes.items():
        key_space, _, attribute = key.rpartition(" ")
        if key_space not in ("", SVG, XLINK, XML, *NOTES):
            yield f"<{local}> sets '{shortened(attribute, 20)}' of another language ({shortened(key_space, 40)})"
        elif attribute.lower().startswith("on"):
            yield f"<{local}> sets '{shortened(attribute, 20)}', which runs script"
        elif attribute == "href" and not value.strip().startswith("#"):
            yield f"<{local}> links to '{shortened(value)}', outside the file"
        elif any(not target.startswith("#") for target in _URL.findall(value)):
            yield f"<{local}> {attribute} refers to '{shortened(value)}', outside the file"
        elif attribute == "style" and re.search(r"@import|expression\s*\(|javascript:", value, re.IGNORECASE):
            yield f"<{local}> style '{shortened(value)}' loads or runs something"
