/* Ranks Material's search results the way players look things up, the same way `cadence search`
 * does (generator/search.py):
 *
 * - a word spelled the other way ("armor") is searched as the site spells it ("armour"), from the
 *   system's `spelling_variants`, which the build puts in the search index's config;
 * - a result whose name is exactly the query comes first; among those, the definitions of the game
 *   the reader is in (the first folder of this page's path), then other definitions;
 * - while typing, definitions of the reader's game come before the rest.
 *
 * Material runs lunr in a web worker created after this script has run; this script wraps the
 * Worker constructor so that the query going in and the results coming back pass through it.
 * Nothing else of Material's is touched: without this script, search works as Material's own. */
(function () {
  "use strict";
  var Native = window.Worker;
  var element = document.getElementById("__config");
  if (!Native || !element) return;
  var config = JSON.parse(element.textContent);
  var root = new URL(String(config.base || ".").replace(/\/?$/, "/"), location.href).href;
  var path = location.href.indexOf(root) === 0 ? location.href.slice(root.length) : "";
  var game = path.indexOf("/") > 0 ? path.split("/")[0] : "";

  var SETUP = 0, QUERY = 2, RESULT = 3;
  var SEPARATOR = " \u2014 ";
  var WORD = /[\p{L}\p{N}']+/gu;
  var variants = {};
  var query = "";

  function respell(text) {
    return text.replace(WORD, function (word) {
      var site = variants[word.toLowerCase()];
      return site === undefined ? word : site;
    });
  }

  /* A name as compared: its words, lowercased, respelled, without a trailing "(X)" parameter. */
  function key(text) {
    var words = respell(text.replace(/\s*\([^()]*\)\s*$/, "")).toLowerCase().match(WORD);
    return words ? words.join(" ") : "";
  }

  function nameOf(item) {
    if (typeof item.name === "string") return item.name;
    var title = document.createElement("div");
    title.innerHTML = item.title;
    return title.textContent.split(SEPARATOR)[0];
  }

  function tier(item, wanted) {
    var here = game !== "" && item.location.split("/")[0] === game;
    var definition = typeof item.kind === "string";
    if (wanted && key(nameOf(item)) === wanted) return here ? 4 : definition ? 3 : 2;
    return here && definition ? 1 : 0;
  }

  /* Results again as Material groups them (by page, best first), in the new order. */
  function rerank(groups) {
    var wanted = key(query);
    var flat = [], fillers = {};
    groups.forEach(function (group) {
      group.forEach(function (item) {
        if (item.score === 0 && !item.location.includes("#")) fillers[item.location] = item;
        else flat.push({ item: item, tier: tier(item, wanted), at: flat.length });
      });
    });
    flat.sort(function (a, b) { return b.tier - a.tier || b.item.score - a.item.score || a.at - b.at; });
    var pages = new Map(), ceiling = Infinity;
    flat.forEach(function (entry) {
      var item = Object.assign({}, entry.item, { score: Math.min(entry.item.score, ceiling) });
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

  function hook(worker) {
    var post = worker.postMessage;
    worker.postMessage = function (message) {
      if (message && message.type === SETUP && message.data && message.data.config)
        variants = message.data.config.spelling_variants || {};
      if (message && message.type === QUERY && typeof message.data === "string") {
        query = message.data;
        message = { type: QUERY, data: respell(message.data) };
      }
      return post.apply(this, [message].concat(Array.prototype.slice.call(arguments, 1)));
    };
    var add = worker.addEventListener, remove = worker.removeEventListener, wrapped = new Map();
    worker.addEventListener = function (type, listener, options) {
      if (type !== "message" || !listener) return add.call(this, type, listener, options);
      var wrapper = function (event) {
        var message = event.data;
        if (message && message.type === RESULT && message.data && Array.isArray(message.data.items))
          event = { type: event.type, target: event.target, data: { type: RESULT, data: Object.assign({}, message.data, { items: rerank(message.data.items) }) } };
        return typeof listener === "function" ? listener.call(this, event) : listener.handleEvent(event);
      };
      wrapped.set(listener, wrapper);
      return add.call(this, type, wrapper, options);
    };
    worker.removeEventListener = function (type, listener, options) {
      return remove.call(this, type, wrapped.get(listener) || listener, options);
    };
  }

  window.Worker = function (url, options) {
    var worker = new Native(url, options);
    if (String(url).indexOf("workers/search") !== -1) hook(worker);
    return worker;
  };
  window.Worker.prototype = Native.prototype;
})();
