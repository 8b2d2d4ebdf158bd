/* Rule pop-ups: a tap, click or Enter on a rule mention shows the rule in place instead of leaving
   the page. Everything shown was written into the page at build time: a rule's text comes from the
   page's "rules used" section when it has one, else from the link's tooltip text. Without this
   script a rule mention is a plain link to the rule's definition. */
(() => {
  "use strict";

  const POPOVER_ID = "rule-popover";
  let current = null; // {popover, link}

  /** Data words are percent-encoded in attributes by the build (no character can end the attribute). */
  const decode = (text) => {
    try {
      return decodeURIComponent(text || "");
    } catch {
      return text || "";
    }
  };

  /** A tooltip is stored escaped for Material, which inserts it as HTML: this is its plain text. */
  const plainText = (html) => new DOMParser().parseFromString(html, "text/html").documentElement.textContent || "";

  const section = () => document.querySelector("article .rules-used");

  /** The heading whose text a link's pop-up shows: the rule's entry in "rules used", matched by the
      definition it links to, or the definition itself when it is on this page. */
  const entryFor = (link) => {
    for (const heading of document.querySelectorAll("article .rule-def")) {
      const target = heading.querySelector("a[href]");
      if (target && target.href === link.href) return heading;
    }
    const url = new URL(link.href);
    if (url.origin + url.pathname === location.origin + location.pathname && url.hash) {
      const here = document.getElementById(decodeURIComponent(url.hash.slice(1)));
      if (here && /^H[1-6]$/.test(here.tagName)) return here;
    }
    return null;
  };

  /** Everything after a heading up to the next heading of its level or above. */
  const bodyOf = (heading) => {
    const level = (tag) => (/^H([1-6])$/.exec(tag) || [])[1];
    const own = level(heading.tagName);
    const out = [];
    for (let node = heading.nextElementSibling; node; node = node.nextElementSibling) {
      const other = level(node.tagName);
      if (other && other <= own) break;
      out.push(node.cloneNode(true));
    }
    return out;
  };

  /** Put the value a mention gives into the rule's text wherever the parameter's placeholder stands alone. */
  const fillParameter = (root, placeholder, value) => {
    if (!placeholder || !value) return;
    const escaped = placeholder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "gu");
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    for (const node of nodes) node.nodeValue = node.nodeValue.replace(pattern, (_, before) => before + value);
  };

  const close = (returnFocus) => {
    if (!current) return;
    const { popover, link } = current;
    current = null;
    popover.remove();
    link.setAttribute("aria-expanded", "false");
    link.removeAttribute("aria-controls");
    if (returnFocus) link.focus();
  };

  const place = (popover, link) => {
    if (getComputedStyle(popover).position === "fixed") return; // a phone shows it as a sheet at the bottom
    const box = link.getBoundingClientRect();
    const width = popover.offsetWidth;
    const left = Math.min(Math.max(8, box.left), document.documentElement.clientWidth - width - 8);
    popover.style.left = `${left + window.scrollX}px`;
    popover.style.top = `${box.bottom + window.scrollY + 6}px`;
  };

  const open = (link) => {
    close(false);
    const labels = section();
    const heading = entryFor(link);

    const popover = document.createElement("div");
    popover.id = POPOVER_ID;
    popover.className = "rule-popover";
    popover.setAttribute("role", "dialog");
    popover.setAttribute("aria-labelledby", `${POPOVER_ID}-title`);
    popover.tabIndex = -1;

    const head = document.createElement("div");
    head.className = "rule-popover__head";
    const title = document.createElement("a");
    title.id = `${POPOVER_ID}-title`;
    title.className = "rule-popover__title";
    title.href = link.href;
    title.textContent = link.textContent.trim();
    const button = document.createElement("button");
    button.type = "button";
    button.className = "rule-popover__close";
    button.textContent = "\u2715";
    const closeLabel = labels ? decode(labels.dataset.rulesClose) : "";
    if (closeLabel) button.setAttribute("aria-label", closeLabel);
    button.addEventListener("click", () => close(true));
    head.append(title, button);

    const body = document.createElement("div");
    body.className = "rule-popover__body";
    if (heading) {
      body.append(...bodyOf(heading));
      for (const id of body.querySelectorAll("[id]")) id.removeAttribute("id");
    } else {
      const paragraph = document.createElement("p");
      paragraph.textContent = link.dataset.ruleText || "";
      body.append(paragraph);
    }
    fillParameter(body, heading ? decode(heading.dataset.ruleParameter) : "", decode(link.dataset.ruleValue));
    popover.append(head, body);

    const definition = labels ? decode(labels.dataset.rulesDefinition) : "";
    if (definition) {
      const more = document.createElement("a");
      more.className = "rule-popover__more";
      more.href = link.href;
      more.textContent = `${definition} \u2192`;
      popover.append(more);
    }

    document.body.append(popover);
    place(popover, link);
    link.setAttribute("aria-expanded", "true");
    link.setAttribute("aria-controls", POPOVER_ID);
    current = { popover, link };
    popover.focus({ preventScroll: true });
    if (getComputedStyle(popover).position !== "fixed") popover.scrollIntoView({ block: "nearest" });
  };

  /** Material's search dialog has no name of its own: give it its search box's (the theme's words). */
  const nameSearchDialog = () => {
    const dialog = document.querySelector(".md-search[role='dialog']");
    const input = document.querySelector(".md-search__input");
    const name = input && (input.getAttribute("aria-label") || input.getAttribute("placeholder"));
    if (dialog && name && !dialog.hasAttribute("aria-label") && !dialog.hasAttribute("aria-labelledby")) dialog.setAttribute("aria-label", name);
  };

  /** Name each table after the heading it sits under, and make its name column the rows' headers. */
  const describeTables = () => {
    for (const table of document.querySelectorAll("article table")) {
      const start = table.closest(".md-typeset__scrollwrap") || table;
      for (let node = start.previousElementSibling; node; node = node.previousElementSibling) {
        if (/^H[1-6]$/.test(node.tagName)) {
          if (node.id && !table.hasAttribute("aria-labelledby")) table.setAttribute("aria-labelledby", node.id);
          break;
        }
      }
      const head = table.tHead && table.tHead.rows[0] && table.tHead.rows[0].cells[0];
      if (!head || (head.getAttribute("align") || "left") !== "left") continue; // a roll column is no row's name
      for (const body of table.tBodies) {
        for (const row of body.rows) {
          const cell = row.cells[0];
          if (!cell || cell.tagName !== "TD") continue;
          const header = document.createElement("th");
          for (const { name, value } of cell.attributes) header.setAttribute(name, value);
          header.setAttribute("scope", "row");
          header.append(...cell.childNodes);
          cell.replaceWith(header);
        }
      }
    }
  };

  /** A table wider than the screen fades at the edge that has more of it, until it is scrolled to its end
      (a table's left edge is its name column, which stays: only the game switcher fades there). */
  const scrollerOf = (table) => table.closest(".md-typeset__scrollwrap") || table;
  const markMore = (scroller) => {
    const hidden = scroller.scrollWidth - scroller.clientWidth - scroller.scrollLeft;
    scroller.classList.toggle("rules-more-right", hidden > 1);
    scroller.classList.toggle("rules-more-left", scroller.scrollLeft > 1);
  };
  const markTables = () => {
    for (const table of document.querySelectorAll("article table")) markMore(scrollerOf(table));
    for (const games of document.querySelectorAll(".rules-games")) markMore(games);
  };

  /** On a phone the game switcher scrolls sideways: the reader's game is brought into view, not left off the edge. */
  const showCurrentGame = () => {
    const games = document.querySelector(".rules-games");
    const current = games && games.querySelector("a[aria-current='true']");
    if (!current || games.scrollWidth <= games.clientWidth) return;
    const bar = games.getBoundingClientRect(), link = current.getBoundingClientRect();
    games.scrollLeft += link.left - bar.left - (bar.width - link.width) / 2;
  };

  const init = () => {
    nameSearchDialog();
    describeTables();
    showCurrentGame();
    markTables();
    window.setTimeout(markTables); // the theme wraps each table in its scrolling box once its own script has run
    for (const link of document.querySelectorAll("a.rule-link")) {
      // Keep the tooltip's text now: Material takes the title away while its tooltip shows.
      link.dataset.ruleText = plainText(link.getAttribute("title") || "");
      link.setAttribute("aria-haspopup", "dialog");
      link.setAttribute("aria-expanded", "false");
    }
  };

  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a.rule-link") : null;
    if (current && !current.popover.contains(event.target) && link !== current.link) close(false);
    if (!link || link.closest(".rule-popover") || event.defaultPrevented) return;
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return; // new tab etc.
    event.preventDefault();
    if (current && current.link === link) close(true);
    else open(link);
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && current) {
      event.preventDefault();
      close(true);
    }
  });

  document.addEventListener("focusin", (event) => {
    if (current && !current.popover.contains(event.target) && event.target !== current.link) close(false);
  });

  window.addEventListener("resize", () => {
    if (current) place(current.popover, current.link);
    markTables();
  });
  window.addEventListener("load", markTables);
  // scroll events do not bubble: one listener, in the capture phase, hears every table's
  document.addEventListener("scroll", (event) => {
    const scroller = event.target;
    if (!(scroller instanceof Element)) return; // the page itself
    const scrolls = (name) => scroller.classList.contains(name);
    if (scroller.tagName === "TABLE" || scrolls("md-typeset__scrollwrap") || scrolls("rules-games")) markMore(scroller);
  }, { capture: true, passive: true });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
