"""SVG files for the content folder: a drawing a designer exports (it must pass), and files that run or load
something (each must be refused where it is written). Shared by the checker's and the browser's tests."""

from __future__ import annotations

#: A blast template as a drawing program writes it: its own notes (Inkscape, Sodipodi, RDF), SVG 1.1's document
#: type, gradients, a marker, a filter and a `use`, all referring to parts of the same file.
DRAWING = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<!-- Created with Inkscape -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
     xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/"
     xmlns:cc="http://creativecommons.org/ns#" width="240" height="160" viewBox="0 0 120 80" version="1.1">
  <sodipodi:namedview id="view" pagecolor="#ffffff" inkscape:zoom="1"/>
  <metadata><rdf:RDF><cc:Work rdf:about=""><dc:title>Blast template</dc:title></cc:Work></rdf:RDF></metadata>
  <title>Blast template</title>
  <defs>
    <radialGradient id="heat"><stop offset="0" stop-color="#f80"/><stop offset="1" stop-color="#f80" stop-opacity="0.2"/></radialGradient>
    <marker id="arrow" orient="auto" markerWidth="4" markerHeight="4"><path d="M0,0 L4,2 L0,4 z"/></marker>
    <filter id="soft"><feGaussianBlur stdDeviation="0.5"/></filter>
  </defs>
  <g inkscape:label="Template" inkscape:groupmode="layer">
    <circle id="blast" cx="40" cy="40" r="30" fill="url(#heat)" stroke="#000" style="filter:url(#soft);stroke-width:0.5"/>
    <line x1="40" y1="40" x2="100" y2="40" stroke="#000" marker-end="url(#arrow)"/>
    <use xlink:href="#blast" transform="translate(70 20) scale(0.3)"/>
    <text x="60" y="70" xml:space="preserve" font-size="6">3&quot; blast <tspan dy="6">(large)</tspan></text>
  </g>
</svg>
"""

_SVG = 'xmlns="http://www.w3.org/2000/svg"'
#: name: (file, where and what the check reports first). Those in `RUNS_ON_OPEN` run script as soon as the
#: file is opened from the site; the others on a click, or they load a file from elsewhere.
HOSTILE = {
    "script": (f"<svg {_SVG}>\n  <script>alert(1)</script>\n</svg>\n", "2:3", "the SVG holds <script>"),
    "xhtml-script": (
        f'<svg {_SVG}>\n  <h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>\n</svg>\n',
        "2:3",
        "the SVG holds <script> of another language (http://www.w3.org/1999/xhtml)",
    ),
    "onload": (
        f'<svg {_SVG} onload="alert(1)">\n  <rect width="9" height="9"/>\n</svg>\n',
        "1:1",
        "<svg> sets 'onload', which runs script",
    ),
    "handler-in-capitals": (f'<svg {_SVG}>\n  <rect width="9" height="9" ONLOAD="alert(1)"/>\n</svg>\n', "2:3", "sets 'ONLOAD'"),
    "foreign-object": (
        f'<svg {_SVG}>\n  <foreignObject width="9" height="9"><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="alert(1)"/></foreignObject>\n</svg>\n',
        "2:3",
        "the SVG holds <foreignObject>",
    ),
    "javascript-link": (
        f'<svg {_SVG} xmlns:xlink="http://www.w3.org/1999/xlink">\n  <a xlink:href="javascript:alert(1)"><rect width="9" height="9"/></a>\n</svg>\n',
        "2:3",
        "the SVG holds <a>",
    ),
    "link-rewritten-by-set": (
        f'<svg {_SVG}>\n  <a href="#x"><set attributeName="href" to="javascript:alert(1)"/><rect width="9" height="9"/></a>\n</svg>\n',
        "2:3",
        "the SVG holds <a>",
    ),
    "use-from-elsewhere": (
        f'<svg {_SVG}>\n  <use href="https://example.com/x.svg#a"/>\n</svg>\n',
        "2:3",
        "<use> links to 'https://example.com/x.svg#a'",
    ),
    "paint-from-elsewhere": (
        f'<svg {_SVG}>\n  <rect width="9" height="9" style="fill: url( \'//example.com/p.svg#g\' )"/>\n</svg>\n',
        "2:3",
        "<rect> style refers to",
    ),
    "style-sheet": (f"<svg {_SVG}>\n  <style>@import url(https://example.com/x.css);</style>\n</svg>\n", "2:3", "the SVG holds <style>"),
    "image": (f'<svg {_SVG}>\n  <image href="https://example.com/x.png" width="9" height="9"/>\n</svg>\n', "2:3", "the SVG holds <image>"),
    "stylesheet-instruction": (
        f'<?xml version="1.0"?>\n<?xml-stylesheet href="https://example.com/x.xsl" type="text/xsl"?>\n<svg {_SVG}/>\n',
        "2:1",
        "processing instruction (<?xml-stylesheet ...?>)",
    ),
    "entities": (
        f'<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>\n<svg {_SVG}><text>&b;</text></svg>\n',
        "2:",
        "the SVG declares entities of its own",
    ),
    "event-namespace": (
        f'<svg {_SVG} xmlns:ev="http://www.w3.org/2001/xml-events">\n  <rect width="9" height="9" ev:event="click"/>\n</svg>\n',
        "2:3",
        "sets 'event' of another language",
    ),
}
RUNS_ON_OPEN = ("script", "xhtml-script", "onload")
