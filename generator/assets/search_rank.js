/* Cadence search ranking, put by the build at the head of Material's search worker. It ranks the
 * way players look things up, as `cadence search` does (generator/search.py):
 *
 * - words are trimmed of punctuation as the index's are ("Charge!" finds Charge!);
 * - a word spelled the other way ("armor") is searched as the site spells it ("armour"), from the
 *   system's `spelling_variants`, which the build puts in the search index's config;
 * - a result whose name is exactly the query comes first: definitions (units, weapons, rules...)
 *   before other headings, and the reader's game's (which the page script search.js adds to each
 *   query) before other games';
 * - otherwise the reader's game's definitions come before the rest.
 *
 * It runs before Material's own worker code: its listener sees each message first (and respells the
 * query in place), and it wraps postMessage to reorder the results going back. */
(function () {
  "use strict";
  var SETUP = 0, QUERY = 2, RESULT = 3;
  var SEPARATOR = " \u2014 ";
  var WORD = /[\p{L}\p{N}']+/gu;
  var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: "\"", "#39": "'", "#x27": "'" };
  var variants = {}, query = "", game = "";

  /* Each word trimmed of punctuation at its ends, as the index's trimmer trims it ("Charge!"),
   * a leading + or - (Material's operators) kept. */
  function trim(text) {
    return text.split(/(\s+)/).map(function (part) {
      return /^\s*$/.test(part) ? part : part.replace(/^([+-]?)\W*/, "$1").replace(/\W+$/, "");
    }).join("");
  }

  function respell(text) {
    return text.replace(WORD, function (word) {
      var site = variants[word.toLowerCase()];
      return typeof site === "string" ? site : word;
    });
  }

  /* A name as compared: its words, lowercased, respelled, without a trailing "(X)" parameter. */
  function key(text) {
    var words = respell(text.replace(/\s*\([^()]*\)\s*$/, "")).toLowerCase().match(WORD);
    return words ? words.join(" ") : "";
  }

  function nameOf(item) {
    if (typeof item.name === "string") return item.name;
    var text = String(item.title).replace(/<[^>]*>/g, "").replace(/&(#?\w+);/g, function (all, name) {
      return ENTITIES[name] || all;
    });
    return text.split(SEPARATOR)[0];
  }

  function tier(item, wanted) {
    var here = game !== "" && item.location.split("/")[0] === game;
    var definition = typeof item.kind === "string";
    if (wanted && key(nameOf(item)) === wanted) return 2 + 2 * definition + here;
    return here && definition ? 1 : 0;
  }

  /* Results again as Material groups them (by page, best first), in the new order. */
  function rerank(groups) {
    var wanted = key(query);
    var flat = [], fillers = {};
    groups.forEach(function (group) {
      group.forEach(function (item) {
        if (item.score === 0 && item.location.indexOf("#") === -1) fillers[item.location] = item;
        else flat.push({ item: item, tier: tier(item, wanted), at: flat.length });
      });
    });
    flat.sort(function (a, b) { return b.tier - a.tier || b.item.score - a.item.score || a.at - b.at; });
    var pages = new Map(), ceiling = Infinity;
    flat.forEach(function (entry) {
      /* Scores fall in the new order, 1% a place (Material shows scores to two decimals). */
      var item = Object.assign({}, entry.item, { score: Math.min(entry.item.score, ceiling * 0.99) });
      ceiling = item.score;
      var page = item.location.split("#")[0];
      if (!pages.has(page)) pages.set(page, []);
      pages.get(page).push(item);
    });
    pages.forEach(function (items, page) {
      if (!items.some(function (item) { return item.location === page; }) && fillers[page]) items.push(fillers[page]);
    });
    return Array.from(pages.values());
  }

  self.addEventListener("message", function (event) {
    var message = event.data;
    if (!message) return;
    if (message.type === SETUP && message.data && message.data.config)
      variants = message.data.config.spelling_variants || {};
    if (message.type === QUERY && typeof message.data === "string") {
      query = message.data;
      game = typeof message.game === "string" ? message.game : "";
      message.data = trim(respell(message.data));
    }
  });

  var post = self.postMessage.bind(self);
  self.postMessage = function (message) {
    if (message && message.type === RESULT && message.data && Array.isArray(message.data.items))
      message = { type: RESULT, data: Object.assign({}, message.data, { items: rerank(message.data.items) }) };
    return post.apply(self, [message].concat(Array.prototype.slice.call(arguments, 1)));
  };
})();
